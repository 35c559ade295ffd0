/**
 * Where keys typed into a pane go. tmux drops them, and pastes too, for a pane whose input is off (`select-pane
 * -d`). With synchronize-panes it types them into every other visible pane of the window that has the option and
 * its input on and is neither in a mode nor dead (tmux 3.3a's window_pane_key; a paste goes to the one pane). Tools that type into a
 * pane read this with the target and refuse: the keys (a command line, C-c) would reach nothing, or panes the call
 * never named.
 *
 * @example
 * ```ts
 * declare const output: Uint8Array; // of typingRead("%3"), run after resolving the target
 * const refusal = typingRefusal("%3", output, "the keys"); // a UserError when %4 would get the keys too
 * if (refusal) throw refusal;
 * ```
 */
import type { TmuxArg, TmuxExecutor } from "./executor.ts";
import { UserError } from "../errors.ts";

/**
 * The target's window's panes: id, then its synchronize-panes, in-mode and dead flags, the window's zoom, whether
 * it is the active pane (a zoomed window shows only that one) and whether its input is off.
 */
export const typingRead = (paneTarget: string): TmuxArg[] => [
  "list-panes",
  "-t",
  paneTarget,
  "-F",
  "#{pane_id} #{synchronize-panes}#{pane_in_mode}#{pane_dead}#{window_zoomed_flag}#{pane_active}#{pane_input_off}",
];

/**
 * Why typing `what` into `paneId` is refused, from the output of {@linkcode typingRead}: its input is off, or
 * (unless it is a `paste`) tmux would type it into other panes too; undefined when it reaches that pane alone.
 */
export function typingRefusal(
  paneId: string,
  output: Uint8Array | undefined,
  what: string,
  paste = false,
): UserError | undefined {
  const rows = new TextDecoder().decode(output ?? new Uint8Array()).trim().split("\n").map((l) => l.split(" "));
  const own = rows.find(([id]) => id === paneId)?.[1];
  if (!own) return undefined;
  if (own[5] === "1") {
    return new UserError(
      `pane ${paneId} has its input off (tmux's select-pane -d): tmux drops what is typed or pasted into it, so ` +
        `nothing was typed; ask the user to turn it on (tmux select-pane -e -t ${paneId}), or use another pane`,
    );
  }
  if (paste || own[0] !== "1") return undefined;
  // Others with the option on, not in a mode, alive, visible (a zoomed window shows its active pane only) and
  // with their input on.
  const others = rows.filter(([id, f]) =>
    id !== paneId && f.startsWith("100") && (f[3] === "0" || f[4] === "1") && f[5] === "0"
  ).map(([id]) => id);
  if (others.length === 0) return undefined;
  return new UserError(
    `pane ${paneId} has synchronize-panes on: tmux would type ${what} into ${others.join(", ")} too, so nothing ` +
      `was typed; set synchronize-panes off for this pane (set, what: option, scope: pane) and retry, or paste ` +
      `text with paste-text, which reaches this pane only`,
  );
}

/** Throws {@linkcode typingRefusal}'s error for typing `what` into `paneId`, if any (one tmux call). */
export async function refuseUntypable(
  tmux: TmuxExecutor,
  paneId: string,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  const refusal = typingRefusal(paneId, await tmux.run(typingRead(paneId), { signal }), what);
  if (refusal) throw refusal;
}
