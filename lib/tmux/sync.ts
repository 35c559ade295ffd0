/**
 * synchronize-panes: tmux types the keys sent into a pane whose option is on into every other visible pane of its
 * window that has it on and is neither in a mode nor dead (tmux 3.3a's window_pane_key; a paste goes to the one
 * pane). Tools that type into a pane read this with the target and refuse, since the keys (a command line, C-c)
 * would reach panes the call never named.
 *
 * @example
 * ```ts
 * declare const output: Uint8Array; // of syncRead("%3"), run after resolving the target
 * const others = syncedPanes("%3", output); // ["%4"] when %4 would get the keys too
 * if (others.length) throw syncRefusal("%3", others, "the keys");
 * ```
 */
import type { TmuxArg, TmuxExecutor } from "./executor.ts";
import { UserError } from "../errors.ts";

/**
 * The target's window's panes: id, then its synchronize-panes, in-mode and dead flags, the window's zoom and
 * whether it is the active pane (a zoomed window shows only that one).
 */
export const syncRead = (paneTarget: string): TmuxArg[] => [
  "list-panes",
  "-t",
  paneTarget,
  "-F",
  "#{pane_id} #{synchronize-panes}#{pane_in_mode}#{pane_dead}#{window_zoomed_flag}#{pane_active}",
];

/** The other panes that keys typed into `paneId` reach too, from the output of {@linkcode syncRead}. */
export function syncedPanes(paneId: string, output: Uint8Array | undefined): string[] {
  const rows = new TextDecoder().decode(output ?? new Uint8Array()).trim().split("\n").map((l) => l.split(" "));
  if (!rows.find(([id]) => id === paneId)?.[1].startsWith("1")) return [];
  // Others with the option on, not in a mode, alive, and visible: a zoomed window shows its active pane only.
  return rows.filter(([id, f]) => id !== paneId && f.startsWith("100") && (f[3] === "0" || f[4] === "1"))
    .map(([id]) => id);
}

/** The refusal for typing `what` into `paneId` while tmux would type it into `others` too. */
export function syncRefusal(paneId: string, others: string[], what: string): UserError {
  return new UserError(
    `pane ${paneId} has synchronize-panes on: tmux would type ${what} into ${others.join(", ")} too, so nothing ` +
      `was typed; set synchronize-panes off for this pane (set, what: option, scope: pane) and retry, or paste ` +
      `text with paste-text, which reaches this pane only`,
  );
}

/** Throws {@linkcode syncRefusal} when keys typed into `paneId` would reach other panes (one tmux call). */
export async function refuseSynced(
  tmux: TmuxExecutor,
  paneId: string,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  const others = syncedPanes(paneId, await tmux.run(syncRead(paneId), { signal }));
  if (others.length > 0) throw syncRefusal(paneId, others, what);
}
