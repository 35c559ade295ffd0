import { z } from "zod";
import { optionName, targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { UserError } from "../../errors.ts";
import { changeAnswer, changedShape, unsetFlag, valueOrUnset } from "./common.ts";
import { COMMAND_SEPARATOR, TmuxError } from "../../tmux/executor.ts";
import { refuseLinkedWindowSession, resolve } from "../declared.ts";
import { formatRefusal } from "../../policy/formats.ts";
import { optionRisk } from "../../policy/options.ts";
import { readOptionName, scopeMismatch } from "../../tmux/option_names.ts";
import { guardScope, guardSetting } from "./setting_guard.ts";

const optionValue = z.string()
  .max(65_536, "value is longer than 65536 characters")
  .refine((s) => !s.includes("\0"), "value must not contain NUL")
  .describe("as in tmux.conf");

export default defineTool({
  name: "set-option",
  title: "Set a tmux option",
  description: "Sets or unsets a tmux option or hook at server, session, window or pane scope (global: the default). " +
    "A unique prefix of a name is read as tmux reads it (the result names the option set). " +
    "Options and hooks that run commands need --safety destructive.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  annotations: { idempotentHint: true },
  input: z.object({
    target: targetParam("pane").optional(),
    scope: z.enum(["server", "session", "window", "pane"]),
    global: z.boolean().default(false).describe("set the global default"),
    name: optionName.describe("e.g. mouse, @my-option"),
    value: optionValue.optional(),
    unset: unsetFlag,
  }),
  output: z.object({
    scope: z.string(),
    global: z.boolean(),
    name: z.string().describe("the option as tmux names it (a prefix given is spelled out)"),
    unset: z.boolean(),
    session_id: z.string().optional().describe("absent if global"),
    window_id: z.string().optional().describe("present for a window or pane option (not global)"),
    pane_id: z.string().optional().describe("present for a pane option"),
    ...changedShape,
  }),
  secrets: ["value"],
  async handler({ target, scope, global, name, value, unset }, ctx) {
    valueOrUnset(name, value, unset);
    if (value !== undefined) {
      // tmux evaluates format options (status-right, pane-border-format, …) again and again: bound them as formats.
      // Under a session scope, as show's formats: automatic-rename-format's expansion is read back as a window name.
      const refused = formatRefusal(value, {
        allowShell: true,
        allowReexpand: true,
        scoped: ctx.tmux.scope !== undefined,
      });
      if (refused) throw new UserError(`set-option refused: the value, read as a tmux format: ${refused}`);
    }
    // The policy judges the option tmux would change, and tmux is given that exact name.
    const option = await readOptionName(ctx.tmux, name, { signal: ctx.signal });
    guardScope(ctx, option, scope, global);
    if (value !== undefined) await guardSetting(ctx, "set-option", optionRisk(option, value), value);
    // tmux picks the table from the name and would quietly set another scope than the one asked for.
    const mismatch = scopeMismatch(option, scope);
    if (mismatch) throw new UserError(`set-option: ${mismatch}`);
    const tail = valueOrUnset(option.name, value, unset);
    if (global && (scope === "server" || scope === "pane")) {
      throw new UserError(`global applies to session and window options only (${scope} scope has no global level)`);
    }
    if (target !== undefined && (global || scope === "server")) {
      throw new UserError(`target is not used with ${global ? "global: true" : "server scope"}: leave it out`);
    }
    const args = ["set-option"];
    let ids: { session_id?: string; window_id?: string; pane_id?: string } = {};
    if (scope === "server") args.push("-s");
    else if (global) args.push(scope === "window" ? "-gw" : "-g");
    else {
      const t = await resolve(ctx, target);
      if (scope === "session" && target !== undefined) await refuseLinkedWindowSession(ctx, target, t.window_id);
      if (scope === "session") ids = { session_id: t.session_id };
      if (scope === "window") ids = { session_id: t.session_id, window_id: t.window_id };
      if (scope === "pane") ids = { session_id: t.session_id, window_id: t.window_id, pane_id: t.pane_id };
      const flag = { session: [], window: ["-w"], pane: ["-p"] }[scope];
      args.push(...flag, "-t", ids.pane_id ?? ids.window_id ?? ids.session_id!);
    }
    // The option as tmux shows it before and after, at the same level (tmux's own quoting both times). "-g" and
    // "-w" apart keep the show on the control connection (engine.ts CONTROL_SAFE); set-option prints nothing.
    const show = ["show-options", "-q", ...args.slice(1).flatMap((a) => a === "-gw" ? ["-g", "-w"] : [a])];
    const before = await ctx.tmux.text([...show, "--", option.name, COMMAND_SEPARATOR, ...args, ...tail], {
      signal: ctx.signal,
    }).catch((e) => {
      // tmux's own words ("bad value: maybe") say neither which option nor what it takes.
      if (!(e instanceof TmuxError && /^(bad|unknown) value|^value is (invalid|too small|too large)/.test(e.message))) {
        throw e;
      }
      throw new UserError(
        `tmux refused the value for ${option.name} (${e.message}): a flag takes on or off, a number digits, a ` +
          `choice one of its words; show (what: "options", scope: "${scope}", name: "${option.name}") gives ` +
          `its current value`,
      );
    });
    const changed = before !== await ctx.tmux.text([...show, "--", option.name], { signal: ctx.signal });
    return changeAnswer(
      { scope, global, name: option.name, unset, ...ids, changed },
      // Unset at the global or server level means back to tmux's default.
      unset ? (global || scope === "server" ? "at its default" : "unset at that level") : "set to that value",
    );
  },
});
