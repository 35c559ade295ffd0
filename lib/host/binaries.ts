/**
 * Executables found the way a shell finds them, on `PATH`; and the tmux a
 * desktop app cannot see. An app started from a macOS Dock or Finder (Claude
 * Desktop) gets `PATH=/usr/bin:/bin:/usr/sbin:/sbin`, where Homebrew's
 * `/opt/homebrew/bin` is not, so the tmux its user installed is "not found"
 * although it is there. {@linkcode localTmuxBin} looks in the folders package
 * managers install into when PATH has no tmux; a PATH that has one always
 * wins, so no user's choice is overridden.
 *
 * @example
 * ```ts
 * findOnPath("sh", "/usr/local/bin:/usr/bin:/bin"); // "/usr/bin/sh"
 * resolveBinary("tmux", "/usr/bin"); // "/usr/bin/tmux", or "tmux" when not there
 * localTmuxBin("/opt/tmux/bin/tmux"); // "/opt/tmux/bin/tmux": a path is taken as given
 * localTmuxBin("tmux", { PATH: "/usr/bin:/bin", HOME: "/Users/me" }); // on a Mac with Homebrew: /opt/homebrew/bin/tmux
 * ```
 */

/** Where package managers put tmux, looked in (in this order) when PATH has none. */
export const PACKAGE_BIN_DIRS: readonly string[] = [
  "/opt/homebrew/bin", // Homebrew on Apple silicon
  "/usr/local/bin", // Homebrew on Intel Macs, source builds
  "/home/linuxbrew/.linuxbrew/bin", // Homebrew on Linux
  "/opt/local/bin", // MacPorts
  "/run/current-system/sw/bin", // NixOS
  "/nix/var/nix/profiles/default/bin", // Nix, multi-user
  "/snap/bin",
];

/** The first executable file called `name` in the `PATH` list `path`, or undefined. */
export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const full = `${dir.replace(/\/+$/, "")}/${name}`;
    try {
      const st = Deno.statSync(full);
      if (st.isFile && (st.mode === null || (st.mode & 0o111) !== 0)) return full;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** `bin` found on `path` the way a shell would (a name with a slash is taken as is, made absolute); else `bin`. */
export function resolveBinary(bin: string, path = Deno.env.get("PATH") ?? ""): string {
  if (bin.includes("/")) return bin.startsWith("/") ? bin : `${Deno.cwd()}/${bin}`;
  return findOnPath(bin, path) ?? bin;
}

/**
 * The tmux this machine's server runs: `bin` as given when it names a path or is on `env.PATH`; else the first
 * `bin` in {@linkcode PACKAGE_BIN_DIRS} or `~/.nix-profile/bin`; else `bin` (whose launch then fails, and says so).
 */
export function localTmuxBin(bin: string, env: { PATH?: string; HOME?: string } = Deno.env.toObject()): string {
  if (bin.includes("/") || findOnPath(bin, env.PATH ?? "") !== undefined) return bin;
  const dirs = [...PACKAGE_BIN_DIRS, ...(env.HOME ? [`${env.HOME}/.nix-profile/bin`] : [])];
  return findOnPath(bin, dirs.join(":")) ?? bin;
}
