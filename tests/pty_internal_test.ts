// The shared pty_* suite on the internal PTY backend (Deno FFI + @xterm/headless).
import { ptySuite } from "./pty_suite.ts";

ptySuite("pty");
