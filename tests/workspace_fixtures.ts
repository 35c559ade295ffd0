/**
 * Fixtures for workspace tests: windows running a script (under sh, not a
 * login shell, whose profile can be slow on a busy machine) and waiting for
 * a pane to show some text.
 */
import type { TmuxFixture } from "./helpers.ts";
import { waitUntil } from "./pane_helpers.ts";

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

/** Polls the pane (screen and scrollback) until `pred` holds for its text. */
export async function waitText(tmux: TmuxFixture, pane: string, pred: (s: string) => boolean): Promise<void> {
  await waitUntil(
    `pane ${pane} to show the expected text`,
    async () => pred(await tmux.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane)),
    30_000,
  );
}
