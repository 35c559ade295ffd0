/**
 * Errors whose message is meant for the model: one line that says what was
 * wrong and what to do. The tool pipeline shows their message as-is; any
 * other exception is reported as an internal error.
 *
 * @example
 * ```ts
 * throw new UserError(`no buffer named "x": call list-buffers to see the buffers`);
 * ```
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

/**
 * A call the server declines on purpose (a safety rule, not a mistake in
 * the arguments); audited with outcome "refused".
 *
 * @example
 * ```ts
 * throw new RefusedError("refusing to kill pane %3: tmux-mcp itself runs in it; kill another pane");
 * ```
 */
export class RefusedError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "RefusedError";
  }
}

/**
 * A fault of the environment, not of the call and not a bug of ours: tmux stopped or gone, a connection to it
 * dropped, the machine too slow for a bound. Its message is one line that says what happened and what to do next;
 * the pipeline shows it as-is (audited as an error), where an unexpected exception is an "internal error".
 *
 * @example
 * ```ts
 * throw new EnvironmentError("the tmux server exited while the wait ran: check with list (what: server), then retry");
 * ```
 */
export class EnvironmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvironmentError";
  }
}

/**
 * The reason a call's signal carries when the server stops (a signal ended it, lib/server/core.ts): the call's error
 * and its audit line say so, instead of "cancelled by the client".
 *
 * @example
 * ```ts
 * new ServerStopping("SIGTERM").message; // "the server is shutting down (SIGTERM)"
 * ```
 */
export class ServerStopping extends Error {
  constructor(why: string) {
    super(`the server is shutting down (${why})`);
    this.name = "ServerStopping";
  }
}

/**
 * The error of a search the client cancelled (lib/search: in the worker and in its pool). Here, not with the
 * search: the pool, created at start, then loads without the search code.
 *
 * @example
 * ```ts
 * const signal = AbortSignal.timeout(1000); // the call's
 * if (signal.aborted) throw searchCancelled();
 * ```
 */
export function searchCancelled(): UserError {
  return new UserError("search cancelled by the client");
}

/**
 * Text a client sent (a method, a prompt's name, a URI), as an error message shows it: quoted as JSON, so a line
 * break in it stays on the one line, and cut after `max` characters, so a long one does not fill the answer.
 *
 * @example
 * ```ts
 * const uri = "tmux://sessions/a\nb"; // as a client sent it
 * throw new UserError(`resource not found: ${quotedForError(uri)}`); // its line break written \n
 * ```
 */
export function quotedForError(text: string, max = 100): string {
  return JSON.stringify(text.length > max ? text.slice(0, max) + "…" : text);
}
