/**
 * What run-command's prompt check costs per call (lib/exec/prompt.ts
 * `shellActivity`): the shell's foreground program and terminal mode read
 * from the kernel (/proc and tcgetattr through the C library), against the
 * fallback that spawns `ps` and `stty`. Every run-command pays it at least
 * once (more while a shell is still starting). The run-command round trip
 * itself is in exec_bench.ts.
 *
 * Run: deno bench --allow-all tests/bench/prompt_bench.ts
 */
import { uniqueSocketName } from "../helpers.ts";
import { shellActivity } from "../../lib/exec/prompt.ts";

const socket = uniqueSocketName("bench");
const tmux = (...args: string[]) =>
  new TextDecoder().decode(new Deno.Command("tmux", { args: ["-L", socket, ...args] }).outputSync().stdout).trim();

tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "bash --norc --noprofile");
const [tty, pid] = tmux("display-message", "-p", "-t", "main", "#{pane_tty}\t#{pane_pid}").split("\t");
const pane = { tty, pid: Number(pid) };
globalThis.addEventListener("unload", () => {
  tmux("kill-server");
  try {
    Deno.removeSync(`${Deno.env.get("TMUX_TMPDIR") || "/tmp"}/tmux-${Deno.uid()}/${socket}`);
  } catch {
    // already gone
  }
});

// Both answer the same for this pane (an idle bash at its prompt: raw mode, bash in the foreground).
const [viaKernel, viaTools] = [await shellActivity(pane, "kernel"), await shellActivity(pane, "tools")];
if (JSON.stringify(viaKernel) !== JSON.stringify(viaTools)) {
  throw new Error(`the two sources disagree: ${JSON.stringify(viaKernel)} vs ${JSON.stringify(viaTools)}`);
}

Deno.bench("prompt check: /proc + tcgetattr through the C library", { baseline: true }, async () => {
  await shellActivity(pane, "kernel");
});

Deno.bench("prompt check: ps + stty processes", async () => {
  await shellActivity(pane, "tools");
});
