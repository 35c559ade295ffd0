/**
 * The pane the round-trip benches capture: `seq 1 60` run by a shell without
 * rc files, waited for until its last line shows. (Typed into the session's
 * default shell, the command may never run: the image's bash rc can hang in
 * `pyenv init`, and the capture would then be one line, not 50.)
 *
 * @example
 * ```ts
 * import { startTmux } from "../helpers.ts";
 * const fx = await startTmux("bench");
 * await fillPane(fx); // pane "main" shows 1..60 and a prompt
 * ```
 */
import type { TmuxFixture } from "../helpers.ts";
import { waitUntil } from "../pane_helpers.ts";

export async function fillPane(fx: TmuxFixture): Promise<void> {
  await fx.tmux("respawn-pane", "-k", "-t", "main", "env HISTFILE=/dev/null PS1='$ ' bash --norc --noprofile");
  await fx.tmux("send-keys", "-t", "main", "seq 1 60", "Enter");
  await waitUntil(
    "the bench pane to show `seq 1 60`",
    async () => /^60$/m.test(await fx.tmux("capture-pane", "-p", "-t", "main")),
    20_000,
  );
}
