/**
 * The doctor's "control mode usable" check: the engine's own control-mode
 * client (lib/tmux/engine.ts) attaches and answers one command, as it will
 * for every tool call.
 *
 * @example
 * ```ts
 * const r = await checkControlMode({ bin: "tmux", socketName: "work" }, true);
 * ```
 */
import { createTmuxEngine } from "../tmux/engine.ts";
import { parentDeathPrefix, type SocketSpec } from "../tmux/launcher.ts";
import { type CheckResult, failIfNeeded, messageOf } from "./check.ts";

const decoder = new TextDecoder();

/** Attaches the engine's control-mode client (`tmux -C`) and runs `list-sessions -F ok` through it. */
export async function checkControlMode(opts: SocketSpec & { bin: string }, needed: boolean): Promise<CheckResult> {
  const engine = createTmuxEngine({ ...opts, maxConcurrency: 1, controlMode: true, timeoutMs: 10_000 });
  try {
    const reply = decoder.decode(await engine.runAttached(["list-sessions", "-F", "ok"])).trim();
    if (!/^ok(\nok)*$/.test(reply)) {
      return {
        status: failIfNeeded(needed),
        name: "control mode",
        detail: `unexpected reply ${JSON.stringify(reply.slice(0, 80))}: check tmux -V and --tmux-bin`,
      };
    }
    const ends = parentDeathPrefix().length
      ? "; it ends with the server, even a SIGKILLed one (setpriv --pdeathsig)"
      : "; no `setpriv --pdeathsig` here (util-linux 2.33+ on Linux): a SIGKILLed server may leave it attached";
    return { status: "ok", name: "control mode", detail: "a control client (tmux -C) attached and answered" + ends };
  } catch (e) {
    return {
      status: failIfNeeded(needed),
      name: "control mode",
      detail: `${messageOf(e)}: check that a session exists, or serve with --control-mode off (one tmux client ` +
        "per command)",
    };
  } finally {
    await engine.close();
  }
}
