import { z } from "zod";
import { defineTool } from "../declared.ts";
import { TmuxError } from "../../tmux/executor.ts";
import { formatLiteral } from "../../tmux/quote.ts";
import { UserError } from "../../errors.ts";
import {
  createdShape,
  envName,
  envValue,
  noted,
  sessionName,
  shellCommand,
  spawnPane,
  startDir,
  storedNameNote,
} from "./common.ts";
import { envRisk } from "../../policy/options.ts";
import { guardSetting } from "./setting_guard.ts";

/** Set in every new session unless the caller's env overrides them: agents cannot answer a pager or an editor. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  GIT_EDITOR: "true",
};

export default defineTool({
  name: "new-session",
  title: "Create a tmux session",
  description:
    "Creates a detached session and returns its session, window and pane ids; use pane_id as target from then on. Pagers and editors are set to cat/true unless env overrides them.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  annotations: { openWorldHint: true },
  input: z.object({
    name: sessionName.optional(),
    cwd: startDir.optional(),
    command: shellCommand.optional(),
    width: z.number().int().min(10).max(1000).optional().describe("default 80"),
    height: z.number().int().min(2).max(1000).optional().describe("default 24"),
    env: z.record(envName, envValue).optional()
      .refine((e) => e === undefined || Object.keys(e).length <= 64, "env has more than 64 variables"),
  }),
  output: z.object(createdShape),
  secrets: ["command", "env"],
  async handler({ name, cwd, command, width, height, env }, ctx) {
    for (const [k, v] of Object.entries(env ?? {})) await guardSetting(ctx, "new-session", envRisk(k, v), v);
    const args = ["new-session", "-d"];
    if (name !== undefined) args.push("-s", formatLiteral(name));
    if (width !== undefined) args.push("-x", String(width));
    if (height !== undefined) args.push("-y", String(height));
    for (const [k, v] of Object.entries({ ...NON_INTERACTIVE_ENV, ...env })) args.push("-e", `${k}=${v}`);
    try {
      const { created, serverPid, note } = await spawnPane(ctx, args, cwd, command);
      // A session this server made is in its scope (--sessions, --scope) whatever its name or tag: on the tmux
      // server that made it (ids start again at $0 on a new one).
      ctx.tmux.scope?.adopt(created.session_id, serverPid);
      const stored = name === undefined ? undefined : storedNameNote(name, created.session_name);
      return noted(created, [stored, note].filter(Boolean).join("; ") || undefined);
    } catch (e) {
      if (e instanceof TmuxError && /^duplicate session/.test(e.message)) {
        // Under scope it may be one out of view, which list does not show (tmux names are server-wide).
        const use = ctx.tmux.scope ? "" : ", or use it (list, what: sessions)";
        throw new UserError(`a session named ${JSON.stringify(name)} already exists: choose another name${use}`);
      }
      throw e;
    }
  },
});
