// The shared pty-* suite on the internal PTY backend (Deno FFI + @xterm/headless).
import { exitCleanupTest, ptySuite } from "./pty_suite.ts";

ptySuite("pty");
exitCleanupTest("pty");
