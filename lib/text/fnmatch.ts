/**
 * fnmatch(3) without flags, the way tmux matches session and window names
 * against a pattern (`*`, `?`, `[…]`, `[!…]`; a backslash quotes the next character).
 *
 * @example
 * ```ts
 * fnmatch("work-*", "work-api"); // true
 * fnmatch("w?rk", "work");       // true
 * fnmatch("[!w]*", "work");      // false
 * fnmatch("work-\\*", "work-*"); // true: the name "work-*" only
 * ```
 */

/** Whether `name` matches the fnmatch `pattern` (no flags: `/` and a leading `.` are ordinary characters). */
export function fnmatch(pattern: string, name: string): boolean {
  const re = fnmatchRegExp(pattern);
  return re !== undefined && re.test(name);
}

/** A character that stands for itself, as a regular expression. */
const itself = (c: string) => c.replace(/[\\^$.|?*+()[\]{}/]/g, "\\$&");

/** The pattern as a whole-string regular expression; undefined when it cannot be one. */
export function fnmatchRegExp(pattern: string): RegExp | undefined {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") re += "[^]*";
    else if (c === "?") re += "[^]";
    else if (c === "\\") {
      // A backslash quotes the next character (`work-\*` is the name "work-*"); one at the end matches nothing.
      if (i + 1 === pattern.length) return undefined;
      re += itself(pattern[++i]);
    } else if (c === "[") {
      const set = bracket(pattern, i);
      if (set === undefined) re += "\\[";
      else {
        re += set.re;
        i = set.end;
      }
    } else re += itself(c);
  }
  try {
    return new RegExp(`^${re}$`, "u");
  } catch {
    return undefined;
  }
}

/**
 * The set a `[` at `start` opens, as a regular expression's class, and the index of the `]` that closes it (a `]`
 * first in the set is one of its characters; a backslash quotes the next one); undefined when none closes it.
 */
function bracket(pattern: string, start: number): { re: string; end: number } | undefined {
  let i = start + 1;
  let re = "[";
  if (pattern[i] === "!" || pattern[i] === "^") {
    re += "^";
    i++;
  }
  for (let first = true; i < pattern.length; i++, first = false) {
    let c = pattern[i];
    if (c === "]" && !first) return { re: `${re}]`, end: i };
    if (c === "\\" && i + 1 < pattern.length) c = pattern[++i];
    else if (c === "-" && !first && i + 1 < pattern.length && pattern[i + 1] !== "]") {
      re += "-"; // a range: a-z
      continue;
    }
    re += c.replace(/[\\\][^-]/g, "\\$&");
  }
  return undefined;
}
