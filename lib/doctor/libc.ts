/**
 * The internal PTY backend's C library: found and loadable through FFI with
 * the permissions this process has (the start task's / the binary's).
 *
 * @example
 * ```ts
 * checkLibc(true); // ok  pty libc: /lib/x86_64-linux-gnu/libc.so.6 loaded through FFI
 * ```
 */
import { currentPlatform, libc } from "../terminal/pty/ffi.ts";
import { type CheckResult, failIfNeeded, messageOf } from "./check.ts";

/** Loads libc the way the backend does ({@linkcode libc}); reports the first path that exists. */
export function checkLibc(needed: boolean): CheckResult {
  try {
    const path = currentPlatform().libPaths.find((p) => {
      try {
        return Deno.statSync(p).isFile;
      } catch {
        return false;
      }
    });
    libc();
    return { status: "ok", name: "pty libc", detail: `${path ?? "C library"} loaded through FFI` };
  } catch (e) {
    return { status: failIfNeeded(needed), name: "pty libc", detail: messageOf(e) };
  }
}
