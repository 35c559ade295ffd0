/**
 * Cancellation over raw stdio (`notifications/cancelled`), in both protocol eras: what a cancelled request still
 * does on the server. The audit log (`--audit-log`) says when a call's handler ended and what its inner calls did.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { startTmux } from "./helpers.ts";
import { envelope, rawServer } from "./raw_stdio.ts";
import { waitUntil } from "./pane_helpers.ts";

type Json = Record<string, unknown>;

/** The audit lines in `path` once one of them satisfies `done` (the server writes them as calls end). */
function auditUntil(path: string, done: (line: Json) => boolean): Promise<Json[]> {
  return waitUntil(`an audit line in ${path}`, async () => {
    const text = await Deno.readTextFile(path).catch(() => "");
    const lines = text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Json);
    return lines.some(done) ? lines : undefined;
  }, 60_000);
}

for (const era of ["modern", "legacy"] as const) {
  Deno.test(`${era} era: a batch the client cancelled runs none of its calls after the cancellation`, async () => {
    const tmux = await startTmux("cancel");
    const dir = await Deno.makeTempDir();
    const audit = `${dir}/audit.jsonl`;
    const s = rawServer(tmux.socketName, ["--audit-log", audit]);
    try {
      if (era === "legacy") await s.initialize("2025-11-25");
      const meta = era === "modern" ? envelope({ progressToken: "b" }) : { progressToken: "b" };
      const wait = { what: "text", target: "main", patterns: ["NEVER-PRINTED"], timeout_ms: 60_000 };
      const calls = [
        { tool: "wait", arguments: wait },
        { tool: "send-keys", arguments: { target: "main", text: "echo TYPED-AFTER-CANCEL", enter: true } },
        { tool: "wait", arguments: { ...wait, timeout_ms: 30_000 } },
      ];
      await s.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "batch", arguments: { calls, continue_on_error: true }, _meta: meta },
      });
      // The first wait is armed once it reports progress: the client gives up on the batch then.
      const progress = await s.next();
      assertEquals(progress.method, "notifications/progress", JSON.stringify(progress));
      await s.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "the user stopped it", ...(era === "modern" ? { _meta: envelope() } : {}) },
      });
      const lines = await auditUntil(audit, (l) => l.tool === "batch");
      const inner = lines.filter((l) => l.tool !== "batch");
      assertEquals(inner.map((l) => [l.tool, l.outcome]), [["wait", "error"], ["send-keys", "error"], [
        "wait",
        "error",
      ]]);
      assertMatch(String(inner[1].message), /^send-keys not run: cancelled by the client before it began$/);
      // The second wait did not run to its timeout either: the batch ended well before 30 s.
      const batch = lines.find((l) => l.tool === "batch")!;
      assert(Number(batch.duration_ms) < 25_000, JSON.stringify(lines));
      // Its own line says it was cancelled, not ok.
      assertEquals([batch.outcome, batch.message], ["error", "cancelled: 0 of its 3 calls completed"]);
      assert(!(await tmux.tmux("capture-pane", "-p", "-t", "main")).includes("TYPED-AFTER-CANCEL\n"));
      // The cancelled request got no answer: the next line answers the next request.
      await s.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "list", arguments: { what: "sessions" }, ...(era === "modern" ? { _meta: envelope() } : {}) },
      });
      assertEquals((await s.next()).id, 2);
    } finally {
      await s.stop();
      await s.stderr;
      await tmux.kill();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
