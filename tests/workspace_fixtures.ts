/**
 * Fixtures for workspace tests: windows running a script (under sh, not a
 * login shell, whose profile can be slow on a busy machine). To wait for a
 * pane's text, use `waitForPane` (tests/pane_helpers.ts).
 */
import type { TmuxFixture } from "./helpers.ts";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a detached window at `target` running `script` then `sleep 300`; returns its pane id. */
export async function windowRunning(tmux: TmuxFixture, target: string, script: string, name = "w"): Promise<string> {
  const out = await tmux.tmux(
    "new-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    "-t",
    target,
    "-n",
    name,
    `${script}; exec sleep 300`,
  );
  return out.trim();
}
