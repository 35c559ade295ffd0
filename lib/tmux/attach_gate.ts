/**
 * Keeps our own commands away from tmux while one of our control-mode
 * clients is still introducing itself to the tmux server.
 *
 * Why: tmux before 3.7 marks a client as a control client as soon as the
 * first message of its handshake arrives, but sets up its control state
 * only with the last one; the handshake spans several reads (it passes file
 * descriptors), and a control notification sent to every control client in
 * between (`%sessions-changed`, `%session-renamed`, `%window-pane-changed`,
 * `%client-detached`, …) dereferences that missing state and crashes the
 * whole tmux server — every session of the user's with it. Fixed upstream in
 * tmux 3.7 ("Do not notify clients if not fully initialized"); Debian 12
 * ships 3.3a. A tmux server then dies within a few attaches while sessions
 * are being renamed (measured here).
 *
 * So, for such a tmux, starting a control client is exclusive: it waits
 * until none of our commands is in flight, and holds new ones back until the
 * client has attached (its handshake is over once tmux answered the
 * attach). Commands are shared: any number run at once, as before. What
 * other programs do meanwhile (a human renaming a window) is not ours to
 * order; starting few clients keeps that chance small (the connection is
 * persistent, the waits share one client per session).
 *
 * @example
 * ```ts
 * const gate = new AttachGate();
 * declare function startClientAndWaitUntilAttached(): Promise<void>;
 * declare function runCommand(): Promise<string>;
 * await gate.exclusive(() => startClientAndWaitUntilAttached());
 * const out = await gate.shared(() => runCommand());
 * ```
 */
import { queueUntil } from "../settle.ts";
/**
 * Whether tmux `major.minor` sets a control client up before notifying it (3.7 and later): no gate needed.
 *
 * @example
 * ```ts
 * handshakeSafe(3, 3); // false
 * ```
 */
export function handshakeSafe(major: number, minor: number): boolean {
  return major > 3 || (major === 3 && minor >= 7);
}

/** How long a starting client may take to be attached before it is given up: the gate is held meanwhile. */
export const ATTACH_TIMEOUT_MS = 10_000;

/** The gate of one tmux server: client starts exclusive, commands shared (see the module doc). */
export class AttachGate {
  #active = 0;
  #starting = false;
  /** Exclusive sections waiting their turn, first come first served. */
  #queue: Array<() => void> = [];
  /** Shared sections held back by an exclusive one. */
  #held: Array<() => void> = [];
  /** Resolves the exclusive section waiting for the shared ones to drain. */
  #drained: (() => void) | undefined;
  /** False once the tmux server is known not to need this (3.7 or later): every section runs at once. */
  enabled = true;

  /**
   * Runs `fn` as one of any number at once, unless a client is attaching. Held back past `deadline`
   * (performance.now()), it gives up with `late()` instead.
   */
  async shared<T>(fn: () => Promise<T>, deadline = Infinity, late?: () => Error): Promise<T> {
    // Checked again after a wait: an exclusive section may have begun between the release and now.
    while (this.enabled && this.#starting) {
      await queueUntil(this.#held, deadline, late ?? (() => new Error("held back past the deadline")));
    }
    this.#active++;
    try {
      return await fn();
    } finally {
      if (--this.#active === 0) this.#drained?.();
    }
  }

  /** Runs `fn` alone: after the shared sections in flight, before those that come later. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.enabled) return await fn();
    if (this.#starting) {
      // Handed over by the section before (below), which leaves #starting set for us.
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    }
    this.#starting = true;
    try {
      if (this.#active > 0) {
        await new Promise<void>((resolve) => this.#drained = resolve);
        this.#drained = undefined;
      }
      return await fn();
    } finally {
      const next = this.#queue.shift();
      if (next) {
        next(); // #starting stays set: shared sections stay held, and no third section slips in between.
      } else {
        this.#starting = false;
        for (const release of this.#held.splice(0)) release();
      }
    }
  }
}
