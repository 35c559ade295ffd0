// The shared pty_* suite on the tmux backend.
import { ptySuite } from "./pty_suite.ts";

ptySuite("tmux");
