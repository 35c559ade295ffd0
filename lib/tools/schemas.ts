/**
 * Input pieces shared by many tools. Every string from a model is hostile
 * until validated: these bound lengths and reject the bytes that would
 * corrupt tmux output parsing or reach a file system unchecked.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const input = z.object({ name: bufferName, path: absolutePath });
 * ```
 */
import { z } from "zod";
import { type TargetKind, targetSchema } from "../tmux/target.ts";
import { RESULT_BUFFER_NAME } from "../buffers/store.ts";

// Tab is allowed (names like "a\tb" are legitimate); newlines and other control characters are not, in a name
// this server makes.
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** Bounds a name as given, and what its echo adds to an answer (tmux itself sets no bound). */
const MAX_EXISTING_NAME = 4096;

/**
 * The name of a buffer a tool reads, deletes, renames or searches: any name tmux holds. Buffers made outside
 * this server (copy mode, the user's own `set-buffer`) may have names a name this server writes may not
 * ({@linkcode writtenBufferName}), and every buffer list-buffers or search-buffer names must be reachable.
 */
export const bufferName = z.string()
  .min(1, "buffer name must not be empty")
  .max(MAX_EXISTING_NAME, `buffer name is longer than ${MAX_EXISTING_NAME} characters`)
  .refine((s) => !s.includes("\0"), "buffer name must not contain NUL (no tmux buffer has one)");

/**
 * A buffer name a tool writes to: not a result buffer ({@linkcode RESULT_BUFFER_NAME}), which its server deletes when
 * it expires or exits, with whatever was written into it. Renaming one away keeps it.
 */
export const writtenBufferName = z.string()
  .min(1, "buffer name must not be empty")
  .max(256, "buffer name is longer than 256 characters")
  .refine((s) => !CONTROL.test(s), "buffer name must not contain newlines or control characters (tab is fine)")
  .refine(
    (s) => !RESULT_BUFFER_NAME.test(s),
    "buffer is a result page its server deletes when it expires (10 minutes) or exits, with anything written to it: " +
      "write to a name of your own (rename-buffer a result to keep it)",
  );

/**
 * A tmux option or hook name as a model gives it: `history-limit`, a unique
 * prefix of one, `@user-option`, each with an optional `[index]`
 * (`status-format[1]`). This bounds its characters only; lib/tmux/option_names.ts
 * reads it as tmux would (prefix, index, old spellings) before the policy judges it.
 */
export const optionName = z.string()
  .min(1, "option name must not be empty")
  .max(128, "option name is longer than 128 characters")
  .regex(
    /^(@[A-Za-z0-9_.-]+|[a-z][a-z0-9-]*)(\[\d{1,4}\])?$/,
    "option name is a tmux option like status-left or mouse, or a user option like @my-flag (optionally with [index])",
  );

/** An absolute file path, passed to the file system as-is. */
export const absolutePath = z.string()
  .min(1, "path must not be empty")
  .max(4096, "path is longer than 4096 characters")
  .refine((s) => s.startsWith("/"), "path must be absolute (start with /)")
  .refine((s) => !s.includes("\0"), "path must not contain NUL")
  .describe("absolute path");

/**
 * An object parameter inside a tool's input, which refuses a key it does not know as the input itself does (the
 * pipeline checks only the top level strictly): a misspelt `match_length` would otherwise be dropped without a word
 * and the call run as if it had not been given. Loose, then checked, so the listing gains no
 * `additionalProperties: false`; the error names the closest valid key as the top level's does.
 */
export function closedObject<S extends z.ZodRawShape>(shape: S) {
  return z.looseObject(shape).superRefine((o, ctx) => {
    const keys = Object.keys(o).filter((k) => !Object.hasOwn(shape, k));
    if (keys.length) ctx.addIssue({ code: "unrecognized_keys", keys, input: o });
  });
}

/** Text content up to 256 MiB (the transport's own limit is usually lower). */
export const content = z.string().max(256 * 1024 * 1024, "content is larger than 256 MiB");

/**
 * How long a waiting tool may wait, in ms. The server instructions say once
 * that a wait is bounded by --max-wait-ms, which the pipeline checks for a
 * tool that declares `waitBound`.
 */
export function waitTimeout(defaultMs: number) {
  return z.number().int().min(0).max(24 * 3600 * 1000).default(defaultMs);
}

/** How many last screen lines a waiting tool returns. */
export const tailLines = z.number().int().min(0).max(500).default(20);

/**
 * A target parameter: the kind it addresses (a wider object means its active
 * pane or window), and what omitting it means when that is not
 * `OMITTED_TARGET` (lib/tools/docs.ts). `exact`: ids or exact names only (kill and
 * respawn tools).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const paneInput = z.object({ target: targetParam("pane").optional() }); // undescribed
 * const sessionInput = z.object({ target: targetParam("session", { omit: "global" }).optional() }); // "session (omit: global)"
 * ```
 */
export function targetParam(kind: TargetKind, opts: { exact?: boolean; omit?: string } = {}): typeof targetSchema {
  if (opts.exact) return targetSchema.describe(`exact ${kind}`);
  if (opts.omit) return targetSchema.describe(`${kind} (omit: ${opts.omit})`);
  // A plain pane target goes undescribed: each such tool's description names the pane, and the server
  // instructions say how a session or window target resolves to its active pane.
  return targetSchema.meta({ description: kind === "pane" ? undefined : kind });
}
