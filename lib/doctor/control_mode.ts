/**
 * The doctor's "control mode usable" check, isolated in one function so it
 * can follow whatever lib/tmux uses to talk control mode.
 *
 * @example
 * ```ts
 * const r = await checkControlMode({ bin: "tmux", socketArgs: ["-L", "work"] }, true);
 * ```
 */
import { createCommandChannel } from "../tmux/channel.ts";
import { type CheckResult, failIfNeeded, messageOf } from "./check.ts";

/** Attaches a control-mode client (`tmux -C`) and runs `display-message -p ok` through it. */
export async function checkControlMode(
  opts: { bin: string; socketArgs: readonly string[] },
  needed: boolean,
): Promise<CheckResult> {
  const channel = createCommandChannel({ bin: opts.bin, socketArgs: opts.socketArgs, timeoutMs: 10_000 });
  try {
    const lines = await channel.run(["display-message", "-p", "ok"]);
    if (lines.join("\n").trim() !== "ok") {
      return {
        status: failIfNeeded(needed),
        name: "control mode",
        detail: `unexpected reply ${JSON.stringify(lines.join("\\n").slice(0, 80))}: check tmux -V and --tmux-bin`,
      };
    }
    return { status: "ok", name: "control mode", detail: "a control client (tmux -C) attached and answered" };
  } catch (e) {
    return {
      status: failIfNeeded(needed),
      name: "control mode",
      detail: `${messageOf(e)}: the server needs tmux control mode (tmux -C); check that a session exists`,
    };
  } finally {
    await channel.close();
  }
}
