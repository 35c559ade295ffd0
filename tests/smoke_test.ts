/**
 * The release smoke client (tests/smoke/smoke_client.ts) against `deno run`
 * with the start task's permissions: the same script the release workflow
 * runs against every compiled binary, so it is exercised on every change.
 */
import { assertEquals, assertMatch } from "./assert.ts";
import { ROOT, runProcess, START_PERMISSIONS } from "./helpers.ts";

function runSmoke(serverArgs: string[]) {
  const client = ["run", "-A", ROOT + "tests/smoke/smoke_client.ts"];
  return runProcess(Deno.execPath(), [...client, "--", Deno.execPath(), "run", ...serverArgs]);
}

Deno.test("smoke client passes against deno run with the start task's permissions", async () => {
  const r = await runSmoke([...START_PERMISSIONS, ROOT + "main.ts"]);
  assertEquals(r.code, 0, r.stdout + r.stderr);
  assertMatch(r.stdout, /search-buffer: regex in the search worker/);
  assertMatch(r.stdout, /show-buffer: a token redacted by the rule preset/);
  assertMatch(r.stdout, /pty-launch \/ pty-get-screen png \/ pty-kill-session: internal backend \(FFI\), resvg/);
  assertMatch(r.stdout, /smoke test passed/);
});

Deno.test("smoke client fails with one line when a check fails (tools missing)", async () => {
  const r = await runSmoke([...START_PERMISSIONS, ROOT + "main.ts", "--toolsets", "buffers"]);
  assertEquals(r.code, 1);
  assertEquals(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assertMatch(r.stderr, /^smoke test FAILED: tools\/list: "capture-pane" is missing/);
});

Deno.test("smoke client fails with one line when the internal backend cannot load libc (no --allow-ffi)", async () => {
  // The start task's set with its FFI paths denied (a bare --deny-ffi does not outrank a path the set allows).
  const ffi = JSON.parse(Deno.readTextFileSync(ROOT + "deno.json")).permissions.server.ffi as string[];
  const r = await runSmoke([...START_PERMISSIONS, `--deny-ffi=${ffi.join(",")}`, ROOT + "main.ts"]);
  assertEquals(r.code, 1);
  assertEquals(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assertMatch(r.stderr, /^smoke test FAILED: .*(FFI|ffi)/);
});
