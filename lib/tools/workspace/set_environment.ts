import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { RefusedError, UserError } from "../../errors.ts";
import { OUT_OF_SCOPE_GLOBAL } from "./setting_guard.ts";
import { changeAnswer, changedShape, envName, envValue, unsetFlag, valueOrUnset } from "./common.ts";
import { TmuxError } from "../../tmux/executor.ts";
import { refuseLinkedWindowSession, resolve } from "../declared.ts";
import { envRisk } from "../../policy/options.ts";
import { guardSetting } from "./setting_guard.ts";

export default defineTool({
  name: "set-environment",
  title: "Set a session environment variable",
  description:
    "Sets or unsets an environment variable of a session (or global) for processes started afterwards. Variables that run code at start need --safety destructive.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  annotations: { idempotentHint: true },
  input: z.object({
    target: targetParam("session").optional(),
    global: z.boolean().default(false).describe("the global environment"),
    name: envName.describe("variable name"),
    value: envValue.optional(),
    unset: unsetFlag,
  }),
  output: z.object({
    name: z.string(),
    global: z.boolean(),
    unset: z.boolean(),
    session_id: z.string().optional().describe("present unless global: the session whose environment changed"),
    ...changedShape,
  }),
  secrets: ["name", "value"],
  async handler({ target, global, name, value, unset }, ctx) {
    const tail = valueOrUnset(name, value, unset);
    if (!unset) await guardSetting(ctx, "set-environment", envRisk(name, value ?? ""), value ?? "");
    if (global && target !== undefined) throw new UserError("target is not used with global: true: leave it out");
    if (global && ctx.tmux.scope) throw new RefusedError(OUT_OF_SCOPE_GLOBAL);
    let scope: string[] = ["-g"];
    let ids = {};
    if (!global) {
      const t = await resolve(ctx, target);
      if (target !== undefined) await refuseLinkedWindowSession(ctx, target, t.window_id);
      scope = ["-t", t.session_id];
      ids = { session_id: t.session_id };
    }
    // tmux fails to show a variable it does not have (and then would not run what follows): read it alone.
    const before = await ctx.tmux.text(["show-environment", ...scope, "--", name], { signal: ctx.signal })
      .then((out) => out.replace(/\n$/, ""), (e) => {
        if (e instanceof TmuxError && e.kind === "failed") return undefined;
        throw e;
      });
    await ctx.tmux.run(["set-environment", ...scope, ...tail], { signal: ctx.signal });
    const changed = unset ? before !== undefined : before !== `${name}=${value}`;
    return changeAnswer({ name, global, unset, ...ids, changed }, unset ? "unset" : "set to that value");
  },
});
