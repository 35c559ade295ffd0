/**
 * The server's own overhead per tool call, without tmux and without stdio:
 * gate, strict input validation, handler, output validation, audit.
 */
import { z } from "zod";
import { createPipeline } from "../../lib/server/pipeline.ts";
import { READ_ONLY, type Services } from "../../lib/tools/tool.ts";
import { defineTool } from "../../lib/tools/declared.ts";
import { defaultConfig } from "../../lib/config.ts";
import type { CallExtra } from "../../lib/server/pipeline.ts";

const echo = defineTool({
  name: "echo",
  title: "Echo",
  description: "bench only",
  toolset: "buffers",
  tier: "readonly",
  annotations: READ_ONLY,
  input: z.object({ name: z.string().max(256), n: z.number().int().default(1) }),
  output: z.object({ name: z.string(), n: z.number().int() }),
  handler: (args) => Promise.resolve({ structured: args }),
});

const services = { config: defaultConfig(), atExit: () => {} } as unknown as Services;
const extra: CallExtra = { signal: new AbortController().signal, sendNotification: () => Promise.resolve() };
const quiet = createPipeline({ tools: [echo], services });
const audited = createPipeline({ tools: [echo], services, audit: () => {} });

Deno.bench("pipeline call, no audit", async () => {
  await quiet.call("echo", { name: "abc", n: 2 }, extra);
});

Deno.bench("pipeline call, audit hook", async () => {
  await audited.call("echo", { name: "abc", n: 2 }, extra);
});

Deno.bench("pipeline call, invalid arguments", async () => {
  await quiet.call("echo", { name: 5 }, extra);
});
