/**
 * The C library, through Deno FFI, for the internal PTY backend: pseudo-
 * terminal allocation, `posix_spawn`, non-blocking reads and writes, window
 * size, termios and child reaping. No native addon, no helper binary.
 *
 * The numbers differ between Linux and macOS, so every one of them lives in
 * {@linkcode PLATFORMS}; any other system gets a clear error from
 * {@linkcode libc}. Loading is lazy: a server that never launches an internal
 * PTY session never opens the library (and needs no `--allow-ffi`).
 *
 * @example
 * ```ts
 * const c = libc();
 * const { fd } = c.openMaster();
 * c.setWindowSize(fd, 24, 80);
 * ```
 */
import { UserError } from "../../errors.ts";
import { LIBC_PATHS } from "../../policy/path_identity.ts";

/** Constants and struct layouts of one operating system's C library. */
export interface Platform {
  /**
   * Where the C library may be, by absolute path: Deno's `--allow-ffi` can
   * be scoped to files, and then only absolute paths match. The start and
   * compile tasks in deno.json allow exactly these files.
   */
  libPaths: readonly string[];
  errnoSymbol: "__errno_location" | "__error";
  /** Flags for posix_openpt (O_RDWR | O_NOCTTY, plus O_CLOEXEC where posix_openpt accepts it). */
  openptFlags: number;
  O_RDWR: number;
  O_NOCTTY: number;
  O_NONBLOCK: number;
  TIOCSWINSZ: bigint;
  FIONBIO: bigint;
  FIOCLEX: bigint;
  /** Bytes waiting in a terminal's input queue (TIOCINQ). */
  FIONREAD: bigint;
  POSIX_SPAWN_SETSIGDEF: number;
  POSIX_SPAWN_SETSIGMASK: number;
  POSIX_SPAWN_SETSID: number;
  /** macOS only: the child keeps only the descriptors the file actions name. */
  POSIX_SPAWN_CLOEXEC_DEFAULT: number;
  EAGAIN: number;
  EINTR: number;
  /** Size of tcflag_t (4 on Linux, 8 on macOS) and the offsets of c_iflag / c_lflag. */
  tcflagSize: 4 | 8;
  iflagOffset: number;
  lflagOffset: number;
  ECHO: number;
  ICANON: number;
  IUTF8: number;
}

/** The /proc files {@linkcode Libc.procFile} reads. */
export type ProcFile = "stat" | "syscall" | "children" | "io";

/** {@linkcode Libc.ttyState}'s answer. */
export interface TtyState {
  canonical: boolean;
  echo: boolean;
  /** Bytes typed that the program has not read yet. */
  unread: number;
}

/** One row per supported OS. POLL* and WNOHANG are the same on both. */
export const PLATFORMS: Readonly<Record<"linux" | "darwin", Platform>> = {
  linux: {
    libPaths: LIBC_PATHS.linux,
    errnoSymbol: "__errno_location",
    openptFlags: 0o2 | 0o400 | 0o2000000,
    O_RDWR: 0o2,
    O_NOCTTY: 0o400,
    O_NONBLOCK: 0o4000,
    TIOCSWINSZ: 0x5414n,
    FIONBIO: 0x5421n,
    FIOCLEX: 0x5451n,
    FIONREAD: 0x541bn,
    POSIX_SPAWN_SETSIGDEF: 0x04,
    POSIX_SPAWN_SETSIGMASK: 0x08,
    POSIX_SPAWN_SETSID: 0x80,
    POSIX_SPAWN_CLOEXEC_DEFAULT: 0,
    EAGAIN: 11,
    EINTR: 4,
    tcflagSize: 4,
    iflagOffset: 0,
    lflagOffset: 12,
    ECHO: 0o10,
    ICANON: 0o2,
    IUTF8: 0o40000,
  },
  darwin: {
    libPaths: LIBC_PATHS.darwin,
    errnoSymbol: "__error",
    // macOS' posix_openpt accepts only O_RDWR | O_NOCTTY; close-on-exec is set with FIOCLEX.
    openptFlags: 0x2 | 0x20000,
    O_RDWR: 0x2,
    O_NOCTTY: 0x20000,
    O_NONBLOCK: 0x4,
    TIOCSWINSZ: 0x80087467n,
    FIONBIO: 0x8004667en,
    FIOCLEX: 0x20006601n,
    FIONREAD: 0x4004667fn,
    POSIX_SPAWN_SETSIGDEF: 0x04,
    POSIX_SPAWN_SETSIGMASK: 0x08,
    POSIX_SPAWN_SETSID: 0x400,
    POSIX_SPAWN_CLOEXEC_DEFAULT: 0x4000,
    EAGAIN: 35,
    EINTR: 4,
    tcflagSize: 8,
    iflagOffset: 0,
    lflagOffset: 24,
    ECHO: 0x8,
    ICANON: 0x100,
    IUTF8: 0x4000,
  },
};

export const POLLIN = 0x1;
export const POLLOUT = 0x4;
export const POLLERR = 0x8;
export const POLLHUP = 0x10;
export const POLLNVAL = 0x20;
const WNOHANG = 1;
/** Large enough for glibc's and macOS' opaque spawn structs, sigset_t and struct termios. */
const OPAQUE_BYTES = 1024;
/** /proc/<pid>/stat is one line of about 52 fields: a few hundred bytes. */
const PROC_STAT_BYTES = 4096;
/** Where a Linux `struct dirent` (64-bit) holds its name: after d_ino, d_off, d_reclen and d_type. */
const DIRENT_NAME_OFFSET = 19;

/**
 * `ioctl` is variadic. On Apple Silicon a variadic argument travels on the
 * stack, not in a register, so there the pointer is declared as the ninth
 * integer argument (x0–x7 are filled first, the ninth lands where va_arg
 * reads it). Everywhere else variadic and fixed integer arguments are passed
 * alike. (`open` is variadic too, but its optional mode is never passed.)
 */
const APPLE_ARM64 = Deno.build.os === "darwin" && Deno.build.arch === "aarch64";

const SYMBOLS = {
  posix_openpt: { parameters: ["i32"], result: "i32" },
  grantpt: { parameters: ["i32"], result: "i32" },
  unlockpt: { parameters: ["i32"], result: "i32" },
  ptsname_r: { parameters: ["i32", "buffer", "usize"], result: "i32" },
  ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
  ioctlAppleArm64: {
    name: "ioctl",
    parameters: ["i32", "u64", "u64", "u64", "u64", "u64", "u64", "u64", "buffer"],
    result: "i32",
  },
  open: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  readlink: { parameters: ["buffer", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  /** poll() with a zero timeout, on the main thread. */
  pollNow: { name: "poll", parameters: ["buffer", "u64", "i32"], result: "i32" },
  tcgetattr: { parameters: ["i32", "buffer"], result: "i32" },
  // mode_t is 32 bits on Linux, 16 on macOS: passed in a register either way.
  mkfifo: { parameters: ["buffer", "u32"], result: "i32" },
  tcsetattr: { parameters: ["i32", "i32", "buffer"], result: "i32" },
  waitpid: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  sigemptyset: { parameters: ["buffer"], result: "i32" },
  sigfillset: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_init: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_addopen: { parameters: ["buffer", "i32", "buffer", "i32", "u32"], result: "i32" },
  posix_spawn_file_actions_adddup2: { parameters: ["buffer", "i32", "i32"], result: "i32" },
  posix_spawn_file_actions_addchdir_np: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawn_file_actions_addclose: { parameters: ["buffer", "i32"], result: "i32" },
  // glibc 2.34 and later; before that the descriptors are listed (openDescriptors) and closed one by one.
  posix_spawn_file_actions_addclosefrom_np: { parameters: ["buffer", "i32"], result: "i32", optional: true },
  opendir: { parameters: ["buffer"], result: "usize" },
  readdir: { parameters: ["usize"], result: "usize" },
  closedir: { parameters: ["usize"], result: "i32" },
  posix_spawnattr_init: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_setflags: { parameters: ["buffer", "i16"], result: "i32" },
  posix_spawnattr_setsigdefault: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawnattr_setsigmask: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawn: { parameters: ["buffer", "buffer", "buffer", "buffer", "buffer", "buffer"], result: "i32" },
  // Addresses are plain integers here, read and written with memcpy: Deno's pointer API needs
  // an unscoped --allow-ffi, while these calls work with --allow-ffi scoped to the C library.
  strerror: { parameters: ["i32"], result: "usize" },
  strlen: { parameters: ["usize"], result: "usize" },
  /** memcpy(dest, src, 0) returns dest: the address of a JS buffer. */
  addressOf: { name: "memcpy", parameters: ["buffer", "buffer", "usize"], result: "usize" },
  copyFrom: { name: "memcpy", parameters: ["buffer", "usize", "usize"], result: "usize" },
  // errno's address: glibc and macOS name the function differently.
  __errno_location: { parameters: [], result: "usize", optional: true },
  __error: { parameters: [], result: "usize", optional: true },
} as const;

type Symbols = typeof SYMBOLS;

/** A finished child: its exit code (128 + signal number when a signal ended it). */
export interface ChildExit {
  exitCode: number;
  signal?: number;
}

/** The operations the PTY backend needs, with errors turned into exceptions. */
export interface Libc {
  readonly platform: Platform;
  /** A new pseudo-terminal master (close-on-exec, non-blocking) and its slave's path. */
  openMaster(): { fd: number; slavePath: string };
  setWindowSize(fd: number, rows: number, cols: number): void;
  /** Sets IUTF8 on the terminal (as tmux does) so line editing erases whole UTF-8 characters. */
  setUtf8Input(fd: number): void;
  /**
   * True while the terminal reads a whole line without echoing it, the mode
   * of password prompts (a line editor at a shell prompt reads raw keys
   * instead). Undefined when the terminal cannot be asked.
   */
  hiddenLineInput(fd: number): boolean | undefined;
  /** Spawns `argv` in a new session whose controlling terminal is `slavePath`; returns the pid. */
  spawn(opts: { path: string; argv: string[]; env: string[]; slavePath: string; cwd: string }): number;
  /** Reads what is available: bytes, `"again"` when nothing is, `"eof"` when the slave side is gone. */
  read(fd: number, buf: Uint8Array): number | "again" | "eof";
  /** Writes some bytes; returns how many were taken (0 when the terminal's input queue is full). */
  write(fd: number, data: Uint8Array): number;
  /**
   * One poll() (off the main thread) until one of `set` has its `events` or `timeoutMs` passes; returns each one's
   * revents, in order.
   */
  pollMany(set: readonly { fd: number; events: number }[], timeoutMs: number): Promise<number[]>;
  /**
   * poll() for POLLIN with a zero timeout, on the calling thread; returns revents. On a terminal it also waits
   * for bytes just written to the other side to arrive (Linux passes them on from a worker thread).
   */
  pollNow(fd: number): number;
  /** Reaps `pid` if it has ended (never blocks). */
  reap(pid: number): ChildExit | undefined;
  close(fd: number): void;
  /** {@linkcode Libc.hiddenLineInput} for the terminal device at `path`. */
  ttyHiddenLineInput(path: string): boolean | undefined;
  /**
   * True while the terminal device at `path` is in canonical (line) mode — what `stty -a` shows as
   * `icanon` — without spawning stty. Undefined when the terminal cannot be asked.
   */
  ttyCanonical(path: string): boolean | undefined;
  /**
   * The terminal device at `path` in one look: canonical (line) mode, echo, and the input its program has not read
   * yet (in line mode: complete lines only), keys written to its master before the call included. Undefined when
   * the terminal cannot be asked.
   */
  ttyState(path: string): TtyState | undefined;
  /**
   * The text of `/proc/<pid>/stat` on Linux, without spawning `ps`; undefined elsewhere or when the process
   * is gone. (Read through the C library: Deno grants /proc only to --allow-all, while the server may already
   * run `ps`, which reads the same files.)
   */
  procStat(pid: number): string | undefined;
  /**
   * A file of a process under /proc on Linux (`stat`; `syscall`, the system call it is blocked in; `children`,
   * its main thread's children), read through the C library as {@linkcode Libc.procStat} is; undefined elsewhere,
   * when the process is gone or the file may not be read.
   */
  procFile(pid: number, file: ProcFile): string | undefined;
  /**
   * What descriptor `fd` of process `pid` is open on, from /proc on Linux (a path; ` (deleted)` after it once the
   * file was deleted); undefined elsewhere, when the descriptor is not open or may not be read.
   */
  procFd(pid: number, fd: number): string | undefined;
  /** Makes a named pipe (FIFO) at `path` with `mode`; throws with the C library's error. */
  makeFifo(path: string, mode: number): void;
  /** This process's open descriptors, from /proc/self/fd on Linux; undefined elsewhere or when it cannot be read. */
  openDescriptors(): number[] | undefined;
}

let loaded: Libc | undefined;

/** The platform row for this OS, or a clear error. */
export function currentPlatform(): Platform {
  const os = Deno.build.os;
  if (os !== "linux" && os !== "darwin") {
    throw new UserError(
      `the internal pty backend supports Linux and macOS only (this system is ${os}): ` +
        "restart the server with --terminal-backend tmux",
    );
  }
  return PLATFORMS[os];
}

/** Loads the C library once; throws a {@linkcode UserError} when FFI is not available. */
export function libc(): Libc {
  if (loaded) return loaded;
  const platform = currentPlatform();
  let denied = false;
  for (const path of platform.libPaths) {
    try {
      loaded = bind(Deno.dlopen(path, SYMBOLS).symbols, platform);
      return loaded;
    } catch (e) {
      // Not at this path (another distribution's layout), or not allowed: try the next one.
      if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) denied = true;
    }
  }
  throw new UserError(
    denied
      ? "the internal pty backend needs FFI permission for the C library: start the server with " +
        `--allow-ffi=${platform.libPaths.join(",")} (the start task does), or use --terminal-backend tmux`
      : `the internal pty backend found no C library at ${platform.libPaths.join(", ")}: ` +
        "use --terminal-backend tmux on this system",
  );
}

const encoder = new TextEncoder();

function cString(s: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(encoder.encode(s).length + 1);
  encoder.encodeInto(s, bytes);
  return bytes;
}

function bind(s: Deno.DynamicLibrary<Symbols>["symbols"], p: Platform): Libc {
  const errnoAddress = s[p.errnoSymbol];
  const errno = (): number => {
    const address = errnoAddress?.() ?? 0;
    if (!address) return 0;
    const out = new Int32Array(1);
    s.copyFrom(out, address, 4n);
    return out[0];
  };
  const describe = (code: number): string => {
    const address = s.strerror(code);
    if (!address) return `errno ${code}`;
    const text = new Uint8Array(Number(s.strlen(address)));
    s.copyFrom(text, address, BigInt(text.length));
    return new TextDecoder().decode(text);
  };
  /**
   * A NULL-terminated char*[] for posix_spawn. The strings share one
   * ArrayBuffer (its memory is outside V8's heap and never moves); the
   * returned block must stay referenced until the call returns.
   */
  const cStringArray = (items: string[]): { array: BigUint64Array<ArrayBuffer>; block: Uint8Array } => {
    const encoded = items.map((x) => encoder.encode(x));
    const block = new Uint8Array(new ArrayBuffer(Math.max(256, encoded.reduce((n, e) => n + e.length + 1, 0))));
    const base = BigInt(s.addressOf(block, block, 0n));
    const array = new BigUint64Array(items.length + 1);
    let off = 0;
    encoded.forEach((e, i) => {
      block.set(e, off);
      array[i] = base + BigInt(off);
      off += e.length + 1; // the byte after each string stays 0
    });
    return { array, block };
  };
  /** For calls that return -1 and set errno. */
  const check = (what: string, rc: number | bigint): void => {
    if (Number(rc) < 0) throw new Error(`${what} failed: ${describe(errno())}`);
  };
  /** For calls that return an error number (the posix_spawn family). */
  const checkRc = (what: string, rc: number): void => {
    if (rc !== 0) throw new Error(`${what} failed: ${describe(rc)}`);
  };
  const ioctlPtr = (fd: number, request: bigint, arg: Uint8Array<ArrayBuffer>): number =>
    APPLE_ARM64 ? s.ioctlAppleArm64(fd, request, 0n, 0n, 0n, 0n, 0n, 0n, arg) : s.ioctl(fd, request, arg);
  const readTermios = (fd: number): DataView | undefined => {
    const buf = new Uint8Array(OPAQUE_BYTES);
    if (s.tcgetattr(fd, buf) !== 0) return undefined;
    return new DataView(buf.buffer);
  };
  const flag = (view: DataView, offset: number): number =>
    p.tcflagSize === 4 ? view.getUint32(offset, true) : Number(view.getBigUint64(offset, true));
  /** Opens `path` (O_RDONLY plus `flags`), runs `fn` on it, closes it; undefined when it cannot be opened. */
  const withFile = <T>(path: string, flags: number, fn: (fd: number) => T | undefined): T | undefined => {
    const fd = s.open(cString(path), flags); // O_RDONLY is 0
    if (fd < 0) return undefined;
    try {
      return fn(fd);
    } finally {
      s.close(fd);
    }
  };
  const procFile = (pid: number, file: ProcFile): string | undefined => {
    if (Deno.build.os !== "linux" || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
    return withFile(file === "children" ? `/proc/${pid}/task/${pid}/children` : `/proc/${pid}/${file}`, 0, (fd) => {
      const buf = new Uint8Array(PROC_STAT_BYTES);
      const n = Number(s.read(fd, buf, BigInt(buf.length)));
      return n >= 0 ? new TextDecoder().decode(buf.subarray(0, Math.max(0, n))) : undefined;
    });
  };
  const procFd = (pid: number, fd: number): string | undefined => {
    if (Deno.build.os !== "linux" || !Number.isSafeInteger(pid) || pid <= 0 || !Number.isSafeInteger(fd)) return;
    const buf = new Uint8Array(PROC_STAT_BYTES);
    const n = Number(s.readlink(cString(`/proc/${pid}/fd/${fd}`), buf, BigInt(buf.length)));
    return n >= 0 ? new TextDecoder().decode(buf.subarray(0, n)) : undefined;
  };
  const pollNow = (fd: number): number => {
    const pfd = new Uint8Array(8); // struct pollfd { int fd; short events, revents; }
    const v = new DataView(pfd.buffer);
    v.setInt32(0, fd, true);
    v.setInt16(4, POLLIN, true);
    return s.pollNow(pfd, 1n, 0) > 0 ? v.getInt16(6, true) : 0;
  };
  const openDescriptors = (): number[] | undefined => {
    if (Deno.build.os !== "linux") return undefined;
    const dir = s.opendir(cString("/proc/self/fd"));
    if (!dir) return undefined;
    const fds: number[] = [];
    try {
      const entry = new Uint8Array(DIRENT_NAME_OFFSET + 256);
      for (let at = s.readdir(dir); at; at = s.readdir(dir)) {
        s.copyFrom(entry, at, BigInt(entry.length));
        const name = entry.subarray(DIRENT_NAME_OFFSET);
        const text = new TextDecoder().decode(name.subarray(0, name.indexOf(0)));
        if (/^\d+$/.test(text)) fds.push(Number(text));
      }
    } finally {
      s.closedir(dir);
    }
    return fds;
  };
  /**
   * Closes in the child every descriptor above stderr: the server's own that are not close-on-exec (inherited from
   * whatever started it) would let a program read or write them, and keep a pipe open after the server is gone.
   */
  const closeTheRest = (actions: Uint8Array<ArrayBuffer>): void => {
    if (p.POSIX_SPAWN_CLOEXEC_DEFAULT !== 0) return; // macOS: the spawn flag does it
    const closeFrom = s.posix_spawn_file_actions_addclosefrom_np;
    if (closeFrom) return checkRc("posix_spawn_file_actions_addclosefrom_np", closeFrom(actions, 3));
    for (const fd of openDescriptors() ?? []) {
      if (fd > 2) checkRc("posix_spawn_file_actions_addclose", s.posix_spawn_file_actions_addclose(actions, fd));
    }
  };
  const hiddenLine = (fd: number): boolean | undefined => {
    const view = readTermios(fd);
    if (!view) return undefined;
    const lflag = flag(view, p.lflagOffset);
    return (lflag & p.ECHO) === 0 && (lflag & p.ICANON) !== 0;
  };

  return {
    platform: p,
    openMaster() {
      const fd = s.posix_openpt(p.openptFlags);
      check("posix_openpt", fd);
      try {
        check("ioctl(FIOCLEX)", ioctlPtr(fd, p.FIOCLEX, new Uint8Array(8)));
        check("grantpt", s.grantpt(fd));
        check("unlockpt", s.unlockpt(fd));
        const name = new Uint8Array(256);
        const rc = s.ptsname_r(fd, name, BigInt(name.length));
        if (rc !== 0) throw new Error(`ptsname_r failed: ${describe(rc > 0 ? rc : errno())}`);
        const one = new Uint8Array(4);
        new DataView(one.buffer).setInt32(0, 1, true);
        check("ioctl(FIONBIO)", ioctlPtr(fd, p.FIONBIO, one));
        return { fd, slavePath: new TextDecoder().decode(name.subarray(0, name.indexOf(0))) };
      } catch (e) {
        s.close(fd);
        throw e;
      }
    },
    setWindowSize(fd, rows, cols) {
      const ws = new Uint8Array(8); // struct winsize { rows, cols, xpixel, ypixel } as unsigned short
      const v = new DataView(ws.buffer);
      v.setUint16(0, rows, true);
      v.setUint16(2, cols, true);
      check("ioctl(TIOCSWINSZ)", ioctlPtr(fd, p.TIOCSWINSZ, ws));
    },
    setUtf8Input(fd) {
      const view = readTermios(fd);
      if (!view) return;
      if (p.tcflagSize === 4) view.setUint32(p.iflagOffset, flag(view, p.iflagOffset) | p.IUTF8, true);
      else view.setBigUint64(p.iflagOffset, BigInt(flag(view, p.iflagOffset) | p.IUTF8), true);
      s.tcsetattr(fd, 0, /* TCSANOW */ new Uint8Array(view.buffer as ArrayBuffer));
    },
    hiddenLineInput: (fd) => hiddenLine(fd),
    spawn({ path, argv, env, slavePath, cwd }) {
      const actions = new Uint8Array(OPAQUE_BYTES);
      const attr = new Uint8Array(OPAQUE_BYTES);
      // Strings stay referenced until posix_spawn returns, whatever the C library copies.
      const slave = cString(slavePath);
      const dir = cString(cwd);
      const file = cString(path);
      checkRc("posix_spawn_file_actions_init", s.posix_spawn_file_actions_init(actions));
      try {
        checkRc("posix_spawnattr_init", s.posix_spawnattr_init(attr));
        try {
          // Opening the slave after setsid() makes it the child's controlling terminal.
          checkRc(
            "posix_spawn_file_actions_addopen",
            s.posix_spawn_file_actions_addopen(actions, 0, slave, p.O_RDWR, 0),
          );
          checkRc("posix_spawn_file_actions_adddup2", s.posix_spawn_file_actions_adddup2(actions, 0, 1));
          checkRc("posix_spawn_file_actions_adddup2", s.posix_spawn_file_actions_adddup2(actions, 0, 2));
          checkRc("posix_spawn_file_actions_addchdir_np", s.posix_spawn_file_actions_addchdir_np(actions, dir));
          closeTheRest(actions);
          // Deno ignores SIGPIPE and may block signals: the child starts with default dispositions and no mask.
          const all = new Uint8Array(OPAQUE_BYTES);
          const none = new Uint8Array(OPAQUE_BYTES);
          s.sigfillset(all);
          s.sigemptyset(none);
          checkRc("posix_spawnattr_setsigdefault", s.posix_spawnattr_setsigdefault(attr, all));
          checkRc("posix_spawnattr_setsigmask", s.posix_spawnattr_setsigmask(attr, none));
          const flags = p.POSIX_SPAWN_SETSID | p.POSIX_SPAWN_SETSIGDEF | p.POSIX_SPAWN_SETSIGMASK |
            p.POSIX_SPAWN_CLOEXEC_DEFAULT;
          checkRc("posix_spawnattr_setflags", s.posix_spawnattr_setflags(attr, flags));
          const args = cStringArray(argv);
          const environ = cStringArray(env);
          const pid = new Int32Array(1);
          const rc = s.posix_spawn(pid, file, actions, attr, args.array, environ.array);
          checkRc(`posix_spawn ${path}`, rc);
          // The string blocks must outlive the call: the arrays only hold their addresses.
          void args.block, environ.block;
          return pid[0];
        } finally {
          s.posix_spawnattr_destroy(attr);
        }
      } finally {
        s.posix_spawn_file_actions_destroy(actions);
      }
    },
    read(fd, buf) {
      const n = Number(s.read(fd, buf, BigInt(buf.length)));
      if (n > 0) return n;
      if (n === 0) return "eof";
      const code = errno();
      return code === p.EAGAIN || code === p.EINTR ? "again" : "eof"; // EIO: every slave descriptor closed
    },
    write(fd, data) {
      const n = Number(s.write(fd, data as Uint8Array<ArrayBuffer>, BigInt(data.length)));
      if (n >= 0) return n;
      const code = errno();
      if (code === p.EAGAIN || code === p.EINTR) return 0;
      throw new Error(`write to the terminal failed: ${describe(code)}`);
    },
    async pollMany(set, timeoutMs) {
      const fds = new Uint8Array(8 * set.length); // struct pollfd { int fd; short events, revents; }
      const v = new DataView(fds.buffer);
      set.forEach(({ fd, events }, i) => {
        v.setInt32(8 * i, fd, true);
        v.setInt16(8 * i + 4, events, true);
      });
      const rc = await s.poll(fds, BigInt(set.length), timeoutMs);
      return set.map((_, i) => rc > 0 ? v.getInt16(8 * i + 6, true) : 0);
    },
    pollNow,
    reap(pid) {
      const status = new Int32Array(1);
      const rc = s.waitpid(pid, status, WNOHANG);
      if (rc !== pid) return undefined;
      const st = status[0];
      const sig = st & 0x7f;
      if (sig === 0) return { exitCode: (st >> 8) & 0xff };
      return { exitCode: 128 + sig, signal: sig };
    },
    close(fd) {
      s.close(fd);
    },
    ttyHiddenLineInput: (path) => withFile(path, p.O_NOCTTY | p.O_NONBLOCK, hiddenLine),
    ttyState: (path) =>
      withFile(path, p.O_NOCTTY | p.O_NONBLOCK, (fd) => {
        pollNow(fd); // so the count below includes keys written to the master just before
        const view = readTermios(fd);
        const n = new Uint8Array(4);
        if (!view || ioctlPtr(fd, p.FIONREAD, n) !== 0) return undefined;
        const lflag = flag(view, p.lflagOffset);
        const unread = new DataView(n.buffer).getInt32(0, true);
        return { canonical: (lflag & p.ICANON) !== 0, echo: (lflag & p.ECHO) !== 0, unread };
      }),
    ttyCanonical: (path) =>
      withFile(path, p.O_NOCTTY | p.O_NONBLOCK, (fd) => {
        const view = readTermios(fd);
        return view && (flag(view, p.lflagOffset) & p.ICANON) !== 0;
      }),
    makeFifo(path, mode) {
      check("mkfifo", s.mkfifo(cString(path), mode));
    },
    procStat: (pid) => procFile(pid, "stat"),
    procFile,
    procFd,
    openDescriptors,
  };
}

/**
 * Whether this process started with signal `signo` ignored, as `nohup` starts a program with SIGHUP: asked of the
 * C library (sigaction) before any listener of ours replaces that disposition. False when it cannot be asked (no
 * FFI permission, another system): the signal is then handled as if it were not ignored.
 */
export function signalIgnored(signo: number): boolean {
  const os = Deno.build.os;
  if (os !== "linux" && os !== "darwin") return false;
  for (const path of PLATFORMS[os].libPaths) {
    let lib: Deno.DynamicLibrary<typeof SIGACTION> | undefined;
    try {
      lib = Deno.dlopen(path, SIGACTION);
      // struct sigaction starts with the handler's address on Linux and macOS; SIG_IGN is 1 on both.
      const old = new Uint8Array(256);
      if (lib.symbols.sigaction(signo, null, old) !== 0) return false;
      return new DataView(old.buffer).getBigUint64(0, true) === 1n;
    } catch {
      // not at this path, or not allowed: the next one
    } finally {
      lib?.close();
    }
  }
  return false;
}

const SIGACTION = { sigaction: { parameters: ["i32", "buffer", "buffer"], result: "i32" } } as const;
