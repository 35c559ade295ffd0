/**
 * fnmatch(3) without flags, the way tmux matches session and window names
 * against a pattern (`*`, `?`, `[…]`, `[!…]`).
 *
 * @example
 * ```ts
 * fnmatch("work-*", "work-api"); // true
 * fnmatch("w?rk", "work");       // true
 * fnmatch("[!w]*", "work");      // false
 * ```
 */

/** Whether `name` matches the fnmatch `pattern` (no flags: `/` and a leading `.` are ordinary characters). */
export function fnmatch(pattern: string, name: string): boolean {
  const re = fnmatchRegExp(pattern);
  return re !== undefined && re.test(name);
}

/** The pattern as a whole-string regular expression; undefined when it cannot be one. */
export function fnmatchRegExp(pattern: string): RegExp | undefined {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") re += "[^]*";
    else if (c === "?") re += "[^]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) re += "\\[";
      else {
        const body = pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        re += `[${body}]`;
        i = end;
      }
    } else re += c.replace(/[\\^$.|?*+()[\]{}/]/g, "\\$&");
  }
  try {
    return new RegExp(`^${re}$`, "u");
  } catch {
    return undefined;
  }
}
