/**
 * Doctor checks of tmux itself: the binary and its version, and whether a
 * server answers on the configured socket. Both run spawned `tmux` clients
 * (`createSpawnExecutor`, lib/tmux/executor.ts); the control-mode check
 * (control_mode.ts) goes through the engine (lib/tmux/engine.ts), which owns
 * the server's connections to tmux.
 *
 * @example
 * ```ts
 * import { createSpawnExecutor } from "../tmux/executor.ts";
 * const tmux = createSpawnExecutor({ bin: "tmux", socketName: "work", maxConcurrency: 2 });
 * const { result } = await checkTmuxVersion(tmux, "tmux", true); // ok  tmux: 3.3a (minimum 3.2)
 * ```
 */
import { describeSocket, type TmuxExecutor } from "../tmux/executor.ts";
import { type CheckResult, failIfNeeded, messageOf } from "./check.ts";
import { asTmuxVersion, tmuxBuild } from "../tmux/engine.ts";
import { startServerLine } from "../tmux/launcher.ts";

/** The oldest tmux the server supports (README: Install). */
export const MIN_TMUX = [3, 2] as const;
const MIN_TEXT = MIN_TMUX.join(".");

/** What doctor makes of a `tmux -V` answer ({@linkcode judgeTmux}). */
export type TmuxJudgement = "none" | "old" | "unknown" | "ok" | "ok-unsafe-start";

/**
 * `tmux -V`'s output (tmux's name already put back, lib/tmux/engine.ts `asTmuxVersion`) judged as the server judges
 * it (`tmuxBuild`): "none" for a binary that is no tmux ("Python 3.11.2": the server refuses it), "old" when control
 * mode cannot serve (before 3.2; OpenBSD's own before 6.9, whose `openbsd-6.8` is no tmux release number), "unknown"
 * for a build without a number ("tmux master"), "ok-unsafe-start" for a release before the fix of a client's start.
 *
 * @example
 * ```ts
 * judgeTmux("tmux 3.3a"); // "ok-unsafe-start"
 * judgeTmux("tmux openbsd-6.8"); // "old"
 * judgeTmux("Python 3.11.2"); // "none"
 * ```
 */
export function judgeTmux(out: string): TmuxJudgement {
  const build = tmuxBuild(out.trim());
  if (!build) return "none";
  if (!build.control) return "old";
  if (!/^tmux (?:next-)?\d+\.\d+/.test(out)) return "unknown";
  return build.handshakeSafe ? "ok" : "ok-unsafe-start";
}

/**
 * The tmux binary runs and is new enough; `found` is false when it is missing (later checks skip), `old` is the
 * version text when it is older than {@linkcode MIN_TMUX} (no control mode: that check skips).
 */
export async function checkTmuxVersion(
  tmux: TmuxExecutor,
  bin: string,
  needed: boolean,
): Promise<{ result: CheckResult; found: boolean; old?: string }> {
  let out: string;
  try {
    out = asTmuxVersion((await tmux.text(["-V"], { timeoutMs: 10_000 })).trim(), bin);
  } catch (e) {
    return { found: false, result: { status: failIfNeeded(needed), name: "tmux", detail: messageOf(e) } };
  }
  const judged = judgeTmux(out);
  const name = out.replace(/^tmux\s+/, "");
  if (judged === "none") {
    return {
      found: false,
      result: {
        status: failIfNeeded(needed),
        name: "tmux",
        detail: `"${bin}" is not tmux (its -V printed ${JSON.stringify(out.slice(0, 60))}): pass --tmux-bin PATH ` +
          `of tmux ${MIN_TEXT} or later`,
      },
    };
  }
  if (judged === "unknown") {
    return {
      found: true,
      result: { status: "warn", name: "tmux", detail: `${name} at "${bin}": unknown version (minimum ${MIN_TEXT})` },
    };
  }
  if (judged === "old") {
    return {
      found: true,
      old: name,
      result: {
        status: failIfNeeded(needed),
        name: "tmux",
        detail: `${name} is older than the minimum ${MIN_TEXT}: upgrade tmux (brew install tmux, or your ` +
          `distribution's backports) or pass --tmux-bin PATH to a newer one`,
      },
    };
  }
  // lib/tmux/attach_gate.ts: tmux-mcp orders its own calls around the crash; other programs it cannot order.
  const note = judged === "ok-unsafe-start"
    ? "; before 3.7 a control client's start can crash the tmux server when another program changes " +
      "sessions at that instant: tmux 3.7 fixes it"
    : "";
  return { found: true, result: { status: "ok", name: "tmux", detail: `${name} (minimum ${MIN_TEXT}${note})` } };
}

/** A tmux server answers on the configured socket; `up` tells the control-mode check whether to run. */
export async function checkSocket(
  tmux: TmuxExecutor,
  bin: string,
  needed: boolean,
): Promise<{ result: CheckResult; up: boolean }> {
  const where = describeSocket(tmux.socket);
  try {
    const rows = (await tmux.text(["list-sessions", "-F", "#{socket_path}"], { timeoutMs: 10_000 }))
      .split("\n").filter((l) => l.length > 0);
    const path = rows[0] ? ` (${rows[0]})` : "";
    return {
      up: true,
      result: {
        status: "ok",
        name: "socket",
        detail: `server on ${where}${path} reachable, ${rows.length} session(s)`,
      },
    };
  } catch (e) {
    const kind = (e as { kind?: string }).kind;
    const detail = kind === "no-server"
      ? `no server running on ${where}: start one with \`${startServerLine(bin, tmux.socket)}\`, or point ` +
        "--socket-name/--socket-path at a running server"
      : messageOf(e);
    return { up: false, result: { status: failIfNeeded(needed), name: "socket", detail } };
  }
}
