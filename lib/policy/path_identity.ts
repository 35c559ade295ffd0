/**
 * Which file a path names when no symlink is followed on the way, asked of
 * the C library (Deno has no `openat` or `O_NOFOLLOW`): every directory from
 * `/` down is opened with `O_NOFOLLOW | O_DIRECTORY` relative to the one
 * before, the last name with `O_NOFOLLOW | O_NONBLOCK`, and the file reached
 * is identified by device and inode (`statx` on Linux, `/dev/fd` on macOS). The file policy (lib/policy/files.ts)
 * compares a file it has opened by path with this: equal, the opened file is
 * the one at the symlink-free path it checked, whatever was swapped in on the
 * way between the check and the open. (Little-endian only, as Deno's
 * supported systems are.)
 *
 * @example
 * ```ts
 * const id = await identityWithoutSymlinks("/tmp/out.log");
 * // { dev: 2049, ino: 131 }; "unavailable" without FFI; undefined when a symlink or nothing is on the way
 * ```
 */

/** Where the C library is, per system (the start task's --allow-ffi list names the same files). */
export const LIBC_PATHS: Readonly<Record<"linux" | "darwin", readonly string[]>> = {
  // Debian/Ubuntu (amd64, arm64), Fedora/RHEL, Arch.
  linux: [
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/lib/aarch64-linux-gnu/libc.so.6",
    "/lib64/libc.so.6",
    "/usr/lib64/libc.so.6",
    "/usr/lib/libc.so.6",
  ],
  darwin: ["/usr/lib/libSystem.B.dylib"],
};

/** open(2) flags: directories, the last name, and the directory a path starts at. */
interface Flags {
  dir: number;
  last: number;
  /** Where `/proc/self/fd` or `/dev/fd` shows a descriptor's file. */
  fdDir: string;
}

function flags(): Flags | undefined {
  const arm = Deno.build.arch === "aarch64";
  if (Deno.build.os === "linux") {
    const O_NOFOLLOW = arm ? 0o100000 : 0o400000;
    const O_DIRECTORY = arm ? 0o40000 : 0o200000;
    const O_CLOEXEC = 0o2000000, O_PATH = 0o10000000, O_NONBLOCK = 0o4000;
    return {
      dir: O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
      last: O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
      fdDir: "/proc/self/fd",
    };
  }
  if (Deno.build.os === "darwin") {
    const O_NOFOLLOW = 0x100, O_DIRECTORY = 0x100000, O_CLOEXEC = 0x1000000, O_NONBLOCK = 0x4;
    return { dir: O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, last: O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, fdDir: "/dev/fd" };
  }
  return undefined;
}

const SYMBOLS = {
  open: { parameters: ["buffer", "i32"], result: "i32", nonblocking: true },
  openat: { parameters: ["i32", "buffer", "i32"], result: "i32", nonblocking: true },
  close: { parameters: ["i32"], result: "i32" },
  // Linux (glibc 2.28 and later): the descriptor's device and inode, as Deno reads a file's (it also uses statx).
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32", nonblocking: true, optional: true },
} as const;

const AT_EMPTY_PATH = 0x1000;
const STATX_INO = 0x100;

/** The device and inode of descriptor `fd` from statx (`struct statx` is the same on every Linux architecture). */
async function statxIdentity(
  c: Deno.DynamicLibrary<typeof SYMBOLS>["symbols"],
  fd: number,
): Promise<{ dev: number; ino: number } | undefined> {
  if (!c.statx) return undefined;
  const buf = new Uint8Array(256);
  if (await c.statx(fd, cString(""), AT_EMPTY_PATH, STATX_INO, buf) !== 0) return undefined;
  const view = new DataView(buf.buffer);
  const ino = view.getBigUint64(32, true);
  const major = BigInt(view.getUint32(136, true));
  const minor = BigInt(view.getUint32(140, true));
  // glibc's makedev, which the device number Deno reports is made with.
  const dev = ((major & 0xfffff000n) << 32n) | ((major & 0xfffn) << 8n) | ((minor & 0xffffff00n) << 12n) |
    (minor & 0xffn);
  return { dev: Number(dev), ino: Number(ino) };
}

let lib: Deno.DynamicLibrary<typeof SYMBOLS>["symbols"] | null | undefined;

function libc(): Deno.DynamicLibrary<typeof SYMBOLS>["symbols"] | null {
  if (lib !== undefined) return lib;
  const os = Deno.build.os;
  lib = null;
  if (os !== "linux" && os !== "darwin") return lib;
  for (const path of LIBC_PATHS[os]) {
    try {
      lib = Deno.dlopen(path, SYMBOLS).symbols;
      break;
    } catch {
      // not at this path, or no FFI permission: the next one
    }
  }
  return lib;
}

const encoder = new TextEncoder();

function cString(s: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(encoder.encode(s).length + 1);
  encoder.encodeInto(s, bytes);
  return bytes;
}

/**
 * The device and inode of the file absolute path `path` names through no symlink; undefined when a component
 * is a symlink, is missing, or cannot be opened (the last one is opened for reading); "unavailable" where the C
 * library cannot be called (no FFI permission, another system).
 */
export async function identityWithoutSymlinks(
  path: string,
): Promise<{ dev: number; ino: number | null } | undefined | "unavailable"> {
  const f = flags();
  const c = f && libc();
  if (!f || !c || !path.startsWith("/")) return "unavailable";
  const names = path.split("/").filter((n) => n !== "" && n !== ".");
  if (names.length === 0 || names.includes("..")) return undefined;
  let fd = await c.open(cString("/"), f.dir);
  if (fd < 0) return "unavailable";
  try {
    for (let i = 0; i < names.length; i++) {
      const next = await c.openat(fd, cString(names[i]), i === names.length - 1 ? f.last : f.dir);
      c.close(fd);
      fd = next;
      if (fd < 0) return undefined;
    }
    const known = Deno.build.os === "linux" ? await statxIdentity(c, fd) : undefined;
    if (known) return known;
    try {
      const info = await Deno.stat(`${f.fdDir}/${fd}`);
      return { dev: info.dev, ino: info.ino };
    } catch {
      return "unavailable"; // no statx, and no /proc (or not allowed to look): nothing to compare with
    }
  } finally {
    if (fd >= 0) c.close(fd);
  }
}
