/**
 * The human hand-off through the client (request-input with an SDK
 * client that answers elicitation/create): a secret by URL mode (the test
 * acts as the browser on the server's one-shot local page), a yes/no by a
 * form, decline, cancel and timeout leaving the session as it was, a client
 * without elicitation (attach instructions) and one with form mode only (no
 * form for a secret). Afterwards the secret is searched for in every tool
 * result, the audit log, the server's stderr and every tmux buffer.
 * Also the parking of calls for the 2026 era (lib/server/ask.ts) and the
 * secret page's own refusals.
 */
import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert, rejects } from "node:assert/strict";
import { textOf } from "./helpers.ts";
import { waitUntil } from "./pane_helpers.ts";
import {
  assertNowhere,
  assertReceived,
  assertSpent,
  BOTH,
  CONFIRM_SCRIPT,
  LINE_EDITOR_SCRIPT,
  ONE_KEY_SCRIPT,
  type Reply,
  SECRET_SCRIPT,
  sha16,
  withHuman,
  withRecordedCommandLines,
} from "./handoff_helpers.ts";
import { modernToolsCall, Parking } from "../lib/server/ask.ts";
import { openSecretPage } from "../lib/terminal/secret_page.ts";
import { pinentryField, screenPrompt } from "../lib/text/prompt_kind.ts";
import type { Answer, Asker } from "../lib/ask.ts";

for (const backend of ["tmux", "pty"]) {
  Deno.test(`${backend} backend: a secret goes from a one-shot local page (URL elicitation) to the program, and nowhere else`, async () => {
    await withHuman(BOTH, async (s) => {
      s.human.secret = `pw-${crypto.randomUUID()}`;
      const id = await s.launch(SECRET_SCRIPT, "Password:");
      // Reading the screen says which call hands the prompt to the user.
      const seen = await s.call("pty-get-screen", { pty_id: id });
      const warned = (seen.structuredContent as { warnings?: { kind: string; message: string }[] }).warnings;
      assertEquals(warned?.map((w) => w.kind), ["input_prompt"]);
      assertMatch(warned![0].message, new RegExp(`password prompt .*call request-input \\{pty_id: "${id}"\\}`));
      assertMatch(textOf(seen), /call request-input/);
      const r = await s.call("request-input", {
        pty_id: id,
        prompt: "Enter the test password",
        timeout_ms: 120_000,
      });
      assert(!r.isError, textOf(r));
      await Promise.all(s.human.browsing);
      const out = r.structuredContent as Record<string, unknown>;
      assertEquals([out.outcome, out.via], ["input_received", "url"]);
      assertEquals(s.human.asked.length, 1);
      assertEquals(s.human.asked[0].mode, "url");
      assertMatch(s.human.asked[0].url as string, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}$/);
      assertMatch(s.human.asked[0].message as string, /Enter the test password/);
      const digest = await sha16(s.human.secret);
      await waitUntil("the program's digest", async () => (await s.screen(id)).includes(`digest ${digest}`), 30_000);
      await assertNowhere(s, s.human.secret);
    }, backend);
  });
}

for (const backend of ["tmux", "pty"]) {
  Deno.test(`${backend} backend: a password prompt whose terminal echoes gets no page: nothing is asked or typed`, async () => {
    await withHuman(BOTH, async (s) => {
      s.human.secret = `pw-${crypto.randomUUID()}`;
      const id = await s.launch(`read -r -p 'Password: ' pw; printf 'got %s\\n' "$pw"; exec sleep 3600\n`, "Password:");
      const r = await s.call("request-input", { pty_id: id, prompt: "Enter it", timeout_ms: 30_000 });
      await Promise.all(s.human.browsing);
      assert(r.isError, textOf(r));
      assertMatch(
        textOf(r),
        new RegExp(`^pty session "${id}" shows a password prompt \\(last line: "Password:"\\) but its terminal echoes`),
      );
      assertEquals(s.human.asked, []);
      assert(!(await s.screen(id)).includes("got"));
      await assertNowhere(s, s.human.secret);
    }, backend);
  });
}

Deno.test("tmux backend: a secret never travels on a tmux command line, even when every command spawns a client", async () => {
  await withRecordedCommandLines(async (s) => {
    const id = await s.launch(SECRET_SCRIPT, "Password:");
    await assertReceived(s, await s.call("request-input", { pty_id: id, prompt: "Enter it", timeout_ms: 120_000 }));
    const digest = await sha16(s.human.secret);
    await waitUntil("the program's digest", async () => (await s.screen(id)).includes(`digest ${digest}`), 30_000);
    await assertNowhere(s, s.human.secret);
  });
});

Deno.test("a secret that comes after its prompt went away is not typed", async () => {
  await withHuman(BOTH, async (s) => {
    s.human.secret = `pw-${crypto.randomUUID()}`;
    const id = await s.launch(SECRET_SCRIPT, "Password:");
    // Meanwhile the program ends (Ctrl-C); the human posts after that.
    s.human.beforePost = async () => {
      await s.call("pty-send-keys", { pty_id: id, keys: "\u0003" });
      await waitUntil("the program's end", async () => {
        const r = await s.call("pty-list-sessions", {});
        const sessions = (r.structuredContent as { sessions: { pty_id: string; status: string }[] }).sessions;
        return sessions.find((x) => x.pty_id === id)?.status === "exited";
      }, 30_000);
    };
    const r = await s.call("request-input", { pty_id: id, prompt: "Enter it", timeout_ms: 120_000 });
    await Promise.all(s.human.browsing);
    const out = r.structuredContent as Record<string, unknown>;
    assertEquals([out.outcome, out.via], ["cancelled", "url"]);
    assertMatch(out.message as string, /^the prompt went away before the answer came: nothing was typed/);
    await assertNowhere(s, s.human.secret);
  });
});

Deno.test("an answer that comes after another prompt replaced its own is not typed into the new one", async () => {
  await withHuman(BOTH, async (s) => {
    // A yes/no answered meanwhile (by the model), and the program asks a second, different one.
    const twice = await s.launch(
      `read -r -p 'Overwrite a.txt? [y/N] ' a; printf 'a=%s\\n' "$a"
read -r -p 'Delete everything? [y/N] ' b; printf 'b=%s\\n' "$b"
exec sleep 3600
`,
      "Overwrite a.txt? [y/N]",
    );
    s.human.thinking = async () => {
      s.human.thinking = undefined;
      await s.call("pty-send-keys", { pty_id: twice, keys: "n\r" });
      await waitUntil(
        "the second question",
        async () => (await s.screen(twice)).includes("Delete everything?"),
        30_000,
      );
    };
    const r = await s.call("request-input", { pty_id: twice, prompt: "Overwrite a.txt?", timeout_ms: 120_000 });
    const out = r.structuredContent as Record<string, unknown>;
    assertEquals([out.outcome, out.via], ["cancelled", "form"]);
    assertMatch(out.message as string, /^the prompt went away before the answer came: nothing was typed/);
    assert(!(await s.screen(twice)).includes("b="), await s.screen(twice));

    // A password prompt answered meanwhile, and the program asks for another secret.
    s.human.secret = `pw-${crypto.randomUUID()}`;
    const two = await s.launch(
      `read -r -s -p 'Password for a: ' a; echo
read -r -s -p 'Password for b: ' b; echo
printf 'b digest %s\\n' "$(printf %s "$b" | sha256sum | cut -c1-16)"
exec sleep 3600
`,
      "Password for a:",
    );
    s.human.beforePost = async () => {
      // Someone answers it by keys (text is refused at a password prompt; key names are typed as asked).
      await s.call("pty-send-keys", { pty_id: two, key_names: ["o", "t", "h", "e", "r", "Enter"] });
      await waitUntil("the second prompt", async () => (await s.screen(two)).includes("Password for b:"), 30_000);
    };
    const r2 = await s.call("request-input", { pty_id: two, prompt: "Enter the password for a", timeout_ms: 120_000 });
    await Promise.all(s.human.browsing);
    const out2 = r2.structuredContent as Record<string, unknown>;
    assertEquals([out2.outcome, out2.via], ["cancelled", "url"]);
    assertMatch(out2.message as string, /^the prompt went away before the answer came: nothing was typed/);
    assert(!(await s.screen(two)).includes("b digest"), await s.screen(two));
    await assertNowhere(s, s.human.secret);
  });
});

Deno.test("a yes/no prompt is answered by a form and the answer typed", async () => {
  await withHuman(BOTH, async (s) => {
    const id = await s.launch(CONFIRM_SCRIPT, "Overwrite it? [y/N]");
    const seen = (await s.call("pty-get-screen", { pty_id: id })).structuredContent as {
      warnings?: { message: string }[];
    };
    assertMatch(seen.warnings![0].message, /appears to wait for input .*answer with pty-send-keys/);
    const r = await s.call("request-input", { pty_id: id, prompt: "Overwrite the file?", timeout_ms: 60_000 });
    assert(!r.isError, textOf(r));
    const out = r.structuredContent as Record<string, unknown>;
    assertEquals([out.outcome, out.via], ["input_received", "form"]);
    assertEquals(s.human.asked[0].mode, "form");
    assertMatch(s.human.asked[0].message as string, /Overwrite the file\?\nThe program asks: Overwrite it\? \[y\/N\]/);
    assertEquals(s.human.asked[0].requestedSchema, {
      type: "object",
      properties: { yes: { type: "boolean", title: "Yes" } },
      required: ["yes"],
    });
    await waitUntil("the typed answer", async () => (await s.screen(id)).includes("answer=y"), 30_000);
  });
});

Deno.test("a yes/no read key by key gets the key alone: no Enter lands in the next read", async () => {
  await withHuman(BOTH, async (s) => {
    const id = await s.launch(ONE_KEY_SCRIPT, "Overwrite it? [y/N]");
    // What the model is told before: the key alone, as request-input types it.
    const seen = (await s.call("pty-get-screen", { pty_id: id })).structuredContent as {
      warnings?: { message: string }[];
    };
    assertMatch(seen.warnings![0].message, /^pty session s\d+ waits for one key .*e\.g\. y alone: an Enter after it/);
    const r = await s.call("request-input", { pty_id: id, prompt: "Overwrite the file?", timeout_ms: 60_000 });
    assert(!r.isError, textOf(r));
    assertEquals((r.structuredContent as Record<string, unknown>).via, "form");
    await waitUntil("the next prompt", async () => (await s.screen(id)).includes("Next:"), 30_000);
    await s.call("pty-send-keys", { pty_id: id, keys: "ok\n" });
    const screen = await waitUntil("the next line read", async () => {
      const text = await s.screen(id);
      return /next=\[/.test(text) ? { value: text } : undefined;
    }, 30_000);
    assertMatch(screen.value, /answer=y\n/);
    assertMatch(screen.value, /next=\[ok\]/);
  });
});

Deno.test("a yes/no read by a line editor (out of line mode, echo off) gets the key and Enter", async () => {
  await withHuman(BOTH, async (s) => {
    const id = await s.launch(LINE_EDITOR_SCRIPT, "Overwrite it? [y/N]");
    // Node's readline waits for Enter: told as a question answered with y then Enter, not as one read key by key.
    const seen = (await s.call("pty-get-screen", { pty_id: id })).structuredContent as {
      warnings?: { message: string }[];
    };
    assertMatch(seen.warnings![0].message, /appears to wait for input .*y then Enter/);
    const r = await s.call("request-input", { pty_id: id, prompt: "Overwrite the file?", timeout_ms: 60_000 });
    assert(!r.isError, textOf(r));
    // The key alone left the program waiting for its Enter.
    await waitUntil("the answer read", async () => (await s.screen(id)).includes("answer=y"), 30_000);
  });
});

for (const backend of ["tmux", "pty"]) {
  Deno.test(`${backend} backend: a session's shell at its own prompt, worded like a password prompt, is asked nothing`, async () => {
    await withHuman(BOTH, async (s) => {
      s.human.secret = `pw-${crypto.randomUUID()}`;
      // bash's line editor reads the line (raw mode, echo off): a secret typed there would run as a command.
      const id = await s.launch("PS1='Password: ' exec bash --norc --noprofile -i\n", "Password:");
      const r = await s.call("request-input", { pty_id: id, prompt: "Enter it", timeout_ms: 3000 });
      await Promise.all(s.human.browsing);
      assert(r.isError, textOf(r));
      assertMatch(
        textOf(r),
        new RegExp(`^pty session "${id}" is not waiting at a password or yes/no prompt \\(last line: "Password:"\\)`),
      );
      assertEquals(s.human.asked, []);
      await assertNowhere(s, s.human.secret);
    }, backend);
  });
}

Deno.test("decline, cancel and timeout type nothing and say so", async () => {
  await withHuman(BOTH, async (s) => {
    const id = await s.launch(SECRET_SCRIPT, "Password:");
    const cases: [Reply, string, RegExp, number][] = [
      ["decline", "declined", /^the human declined: nothing was typed and the session is as it was/, 60_000],
      ["cancel", "cancelled", /^the human dismissed the request: nothing was typed/, 60_000],
      // Said as given: not rounded up to "2 s".
      ["hang", "timeout", /^nobody answered within 1500 ms: nothing was typed and the session is as it was/, 1_500],
    ];
    // The hang case's call is the third to end: its audit line (one per finished call) says the server gave up.
    s.human.late = () =>
      waitUntil("the server's timeout", async () => {
        const text = await Deno.readTextFile(s.audit).catch(() => "");
        return text.split("\n").filter((l) => l.includes('"tool":"request-input"')).length >= 3;
      }, 120_000);
    for (const [reply, outcome, message, timeout_ms] of cases) {
      s.human.reply = reply;
      const r = await s.call("request-input", { pty_id: id, prompt: "Enter the test password", timeout_ms });
      assert(!r.isError, textOf(r));
      const out = r.structuredContent as Record<string, unknown>;
      assertEquals([reply, out.outcome], [reply, outcome]);
      assertMatch(out.message as string, message);
      assert(!(out.message as string).includes("\n"));
      // As it was: still at the prompt, nothing read.
      const screen = await s.screen(id);
      assertMatch(screen, /Password:/);
      assert(!screen.includes("digest"), screen);
    }
    assertEquals(s.human.asked.length, 3);
  });
});

Deno.test("a client without elicitation gets the attach instructions; form-only gets no form for a secret", async () => {
  await withHuman(undefined, async (s) => {
    const id = await s.launch(SECRET_SCRIPT, "Password:");
    const out = (await s.call("request-input", { pty_id: id, prompt: "Enter it", timeout_ms: 300 }))
      .structuredContent as Record<string, unknown>;
    assertEquals([out.outcome, out.via], ["timeout", "attach"]);
    assertMatch(out.message as string, /^nobody finished within 300 ms;/);
    assertMatch(out.attach_command as string, /attach-session/);
  });
  await withHuman({ elicitation: {} }, async (s) => {
    const id = await s.launch(SECRET_SCRIPT, "Password:");
    const out = (await s.call("request-input", { pty_id: id, prompt: "Enter it", timeout_ms: 300 }))
      .structuredContent as Record<string, unknown>;
    assertEquals([out.outcome, out.via], ["timeout", "attach"]);
    assertEquals(s.human.asked, []);
  });
});

Deno.test("bad input gets one clear line: an unknown session, no prompt waiting", async () => {
  await withHuman(BOTH, async (s) => {
    const unknown = await s.call("request-input", { pty_id: "nope", prompt: "x", timeout_ms: 1000 });
    assert(unknown.isError);
    assertMatch(textOf(unknown), /^no pty session "nope": call pty-list-sessions/);
    const id = await s.launch("echo ready; exec cat\n", "ready");
    const idle = await s.call("request-input", { pty_id: id, prompt: "x", timeout_ms: 1000 });
    assert(idle.isError);
    assertMatch(
      textOf(idle),
      /^pty session "s\d+" is not waiting at a password or yes\/no prompt \(last line: "ready"\): nothing was asked/,
    );
    assert(!textOf(idle).includes("\n"));
    assertEquals(s.human.asked, []);
  });
});

Deno.test("a secret on the program's prompt line reaches neither the client's question nor the error, redacted", async () => {
  const token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
  await withHuman(BOTH, async (s) => {
    // git asks for the password of a URL whose user name is a token.
    s.human.reply = "decline";
    const asking = await s.launch(`read -r -s -p "Password for 'https://${token}@github.com': " pw\n`, "Password for");
    const r = await s.call("request-input", { pty_id: asking, prompt: "Enter the git password" });
    assert(!r.isError, textOf(r));
    assertEquals(s.human.asked.length, 1);
    assert(!JSON.stringify(s.human.asked).includes(token), JSON.stringify(s.human.asked));
    assertMatch(
      JSON.stringify(s.human.asked),
      /The program asks: Password for 'https:.*\[redacted:github:[0-9a-f]+\]@github\.com'/,
    );
    // A token at the start of the last line, the next output glued to it (a file without a final newline).
    const idle = await s.launch(`printf '%s\\n' '${token}done'; exec cat\n`, "[redacted:");
    const e = await s.call("request-input", { pty_id: idle, prompt: "x", timeout_ms: 1000 });
    assert(e.isError);
    assertMatch(textOf(e), /\(last line: "\[redacted:[a-z]+:[0-9a-f]+\]"\): nothing was asked/);
  });
});

// ---- The 2026 era's parking (no client needed) ----

/** A tool call that asks one yes/no per entry of `questions` and returns the answers. */
function asking(questions: number, seen: Answer[]) {
  return async (ask: Asker) => {
    for (let i = 0; i < questions; i++) {
      seen.push(await ask.form({ message: `q${i}`, field: "yes", type: "boolean" }, new AbortController().signal));
    }
    return `answers ${seen.map((a) => a.action === "accept" ? a.value : a.action).join(",")}`;
  };
}

Deno.test("parking: a question ends the round with input_required; the retry resumes the call, once", async () => {
  const parking = new Parking<string>({ ttlMs: 60_000 });
  const seen: Answer[] = [];
  const first = await parking.start("tool", asking(2, seen));
  assert("inputRequired" in first);
  const { requestState, inputRequests } = first.inputRequired;
  assertMatch(requestState, /^[A-Za-z0-9_-]{43}$/);
  assertEquals(inputRequests, {
    q1: {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "q0",
        requestedSchema: { type: "object", properties: { yes: { type: "boolean" } }, required: ["yes"] },
      },
    },
  });
  const second = await parking.resume("tool", requestState, { q1: { action: "accept", content: { yes: true } } });
  assert("inputRequired" in second);
  assert(second.inputRequired.requestState !== requestState);
  assertEquals(Object.keys(second.inputRequired.inputRequests), ["q2"]);
  // One-shot: the first state is spent; a retry under another tool's name is refused.
  await rejects(parking.resume("tool", requestState, {}), /^UserError: Invalid or expired requestState/);
  await rejects(parking.resume("other", second.inputRequired.requestState, {}), /Invalid or expired requestState/);
  // The refused retry did not spend it; a malformed answer (a form accepted without its field) fails the question
  // as the client's, never reads as the human's cancel.
  await rejects(
    parking.resume("tool", second.inputRequired.requestState, { q2: { action: "accept" } }),
    /^UserError: the client answered the form without a boolean "yes": nothing was typed/,
  );
  assertEquals(parking.size, 0);
  // So does a retry without an answer to the question.
  const again = await parking.start("tool", asking(1, []));
  assert("inputRequired" in again);
  await rejects(
    parking.resume("tool", again.inputRequired.requestState, {}),
    /the client's retry carried no answer to the question \(inputResponses has no "q1"\)/,
  );
});

Deno.test("parking: a retry that never comes answers the question with timeout", async () => {
  const parking = new Parking<string>({ ttlMs: 50 });
  const seen: Answer[] = [];
  const first = await parking.start("tool", asking(1, seen));
  assert("inputRequired" in first);
  await waitUntil("the expiry", () => Promise.resolve(seen.length === 1 ? seen : undefined));
  assertEquals(seen, [{ action: "timeout" }]);
  await rejects(parking.resume("tool", first.inputRequired.requestState, {}), /Invalid or expired requestState/);
  assertEquals(parking.size, 0);
});

Deno.test("parking: a call that asks nothing finishes in its first round; a failure is its own", async () => {
  const parking = new Parking<string>({ ttlMs: 60_000 });
  assertEquals(await parking.start("tool", () => Promise.resolve("plain")), { done: "plain" });
  await rejects(parking.start("tool", () => Promise.reject(new Error("boom"))), /boom/);
});

// ---- The secret page's refusals ----

Deno.test("an empty answer where the program takes one (ssh-keygen's 'empty for no passphrase') is typed", async () => {
  await withHuman(BOTH, async (s) => {
    s.human.secret = ""; // the human presses the page's "Send an empty answer"
    const id = await s.launch(
      SECRET_SCRIPT.replace("'Password: '", "'Enter passphrase (empty for no passphrase): '"),
      "no passphrase):",
    );
    const r = await s.call("request-input", { pty_id: id, prompt: "Choose the key's passphrase", timeout_ms: 120_000 });
    assert(!r.isError, textOf(r));
    await Promise.all(s.human.browsing);
    assertEquals((r.structuredContent as { outcome: string }).outcome, "input_received");
    const digest = await sha16("");
    await waitUntil("the program's digest", async () => (await s.screen(id)).includes(`digest ${digest}`), 30_000);
  }, "pty");
});

Deno.test("the secret page: one shot, its own host and path only, no line breaks", async () => {
  const got: string[] = [];
  const page = await openSecretPage({
    message: "<b>sudo</b>",
    asks: "<img src=x> Password:",
    deliver: (b) => {
      got.push(new TextDecoder().decode(b));
      return Promise.resolve({ ok: true, text: "Sent to the terminal." });
    },
  });
  const url = new URL(page.url);
  const post = (body: string, headers: Record<string, string> = {}, to = page.url) =>
    fetch(to, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body,
    });
  const form = await (await fetch(page.url)).text();
  assertMatch(form, /&#60;b&#62;sudo&#60;\/b&#62;/); // escaped
  assertMatch(form, /The program asks: <code>&#60;img src=x&#62; Password:<\/code>/); // the terminal's text, escaped
  assertEquals((await fetch(`${url.origin}/wrong`).then(async (r) => [r.status, await r.text()]))[0], 404);
  const localhost = await fetch(page.url.replace("127.0.0.1", "localhost")).catch(() => undefined);
  if (localhost) assertEquals([localhost.status, await localhost.text()][0], 404); // Host must be 127.0.0.1:port
  assertEquals(
    (await post("secret=x", { origin: "http://evil.example" }).then(async (r) => [r.status, await r.text()]))[0],
    403,
  );
  assertMatch(await (await post("secret=a%0Ab")).text(), /line break/);
  assertMatch(await (await post("secret=")).text(), /Type the secret first/);
  assertMatch(await (await post("secret=typed&empty=1")).text(), /The field is not empty/);
  assertEquals(got, []);
  assertMatch(await (await post("secret=hunter2")).text(), /Sent to the terminal/);
  assertEquals(got, ["hunter2"]);
  assertEquals(await page.delivered, true);
  await page.close();
  await assertSpent(page.url);
});

Deno.test("modernToolsCall: input_required, then the retry's answer reaches the call; no elicitation, no asking", async () => {
  const parking = new Parking<string>({ ttlMs: 60_000 });
  const seen: Answer[] = [];
  const first = await modernToolsCall(parking, { name: "t" }, { form: {} }, (ask) => asking(1, seen)(ask!));
  assert(typeof first === "object" && first.resultType === "input_required");
  assertEquals(Object.keys(first.inputRequests), ["q1"]);
  const retry = { name: "t", requestState: first.requestState, inputResponses: { q1: { action: "decline" } } };
  assertEquals(
    await modernToolsCall(parking, retry, { form: {} }, () => Promise.reject(new Error("not run"))),
    "answers decline",
  );
  await rejects(modernToolsCall(parking, retry, { form: {} }, () => Promise.resolve("x")), /Invalid or expired/);
  assertEquals(
    await modernToolsCall(parking, { name: "t" }, undefined, (ask) => Promise.resolve(`ask ${ask}`)),
    "ask undefined",
  );
});

Deno.test("pinentryField: pinentry-curses' box in ASCII and Unicode borders; text that only looks like it is none", () => {
  // As tmux captures it without a UTF-8 locale (ncurses' ACS letters), then as drawn with Unicode lines.
  const ascii = [
    "  lqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqk",
    "  x Please enter the passphrase to unlock the OpenPGP secret key: x",
    "  x                                                               x",
    "  x Passphrase: ***____________________________________________ x",
    "  x                                                               x",
    "  x         <OK>                                   <Cancel>       x",
    "  mqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqj",
  ];
  const unicode = ascii.map((l) => l.replace(/x( |$)/g, "\u2502$1").replace(/( )x$/, "$1\u2502"));
  const pin = ascii.map((l) => l.replace("Passphrase: ***", "PIN: _________"));
  assertEquals([pinentryField(ascii), pinentryField(unicode), pinentryField(pin)], [
    "Passphrase:",
    "Passphrase:",
    "PIN:",
  ]);
  assertEquals(screenPrompt(ascii, { alternate: true }), { kind: "secret", line: "Passphrase:", pinentry: true });
  // No buttons, no field, no box, the normal screen, an editor or a pager showing it: none.
  for (
    const [lines, facts] of [
      [ascii.filter((l) => !l.includes("<OK>")), {}],
      [ascii.filter((l) => !l.includes("Passphrase:")), {}],
      [["Passphrase: ________", "<OK>   <Cancel>"], {}],
      [ascii, { alternate: false }],
      [ascii, { command: "vim", alternate: true }],
      [ascii, { command: "less", alternate: true }],
    ] as const
  ) {
    assertEquals(pinentryField(lines, facts), undefined, JSON.stringify([lines, facts]));
  }
});

for (const backend of ["tmux", "pty"]) {
  Deno.test(`${backend} backend: pty-send-keys typing text into a password prompt is refused and says to call request-input`, async () => {
    await withHuman(undefined, async (s) => {
      const id = await s.launch("read -r -s -p 'Your word> ' pw; echo\necho got=${#pw}\nexec sleep 3600\n", "word>");
      const typed = await s.call("pty-send-keys", { pty_id: id, keys: "abc" });
      assert(typed.isError, textOf(typed));
      assertMatch(
        textOf(typed),
        new RegExp(`pty session ${id} reads input without echo .*not typed.*call request-input \\{pty_id: "${id}"\\}`),
      );
      // Enter answers it (empty, the refused text was not typed): nothing more to say.
      const answered = await s.call("pty-send-keys", { pty_id: id, key_names: ["Enter"] });
      assertEquals(answered.content.length, 1);
      await waitUntil("the answer to be read", async () => (await s.screen(id)).includes("got=0"), 30_000);
    }, backend);
  });
}

for (const backend of ["tmux", "pty"]) {
  Deno.test(`${backend} backend: pty-send-keys at a password prompt whose terminal echoes does not point at request-input`, async () => {
    await withHuman(undefined, async (s) => {
      // A name read, then a "password" read with echo on (no program reads a secret there): request-input refuses it.
      const id = await s.launch("read -r -p 'Name: ' n\nread -r -p 'Password: ' pw\nexec sleep 3600\n", "Name:");
      const echoed = new RegExp(
        `^pty session ${id} shows a password prompt \\("Password:"\\) but its terminal echoes what is typed.*` +
          "not through request-input either; look again with pty-get-screen",
      );
      // Without Enter (the prompt already up), and with Enter (the line brings it up).
      const submitted = await s.call("pty-send-keys", { pty_id: id, keys: "bob\n" });
      assert(!submitted.isError, textOf(submitted));
      await waitUntil("the password prompt", async () => /Password: ?$/.test((await s.screen(id)).trimEnd()), 30_000);
      // Keys that leave the line as it was (a letter, then erasing it), until the look after them sees the prompt.
      const said = submitted.content.slice(1).map((c) => (c as { text: string }).text);
      for (let attempt = 0; said.length === 0 && attempt < 4; attempt++) {
        const r = await s.call("pty-send-keys", { pty_id: id, keys: "a", key_names: ["BSpace"] });
        said.push(...r.content.slice(1).map((c) => (c as { text: string }).text));
      }
      assert(said.length > 0, "no warning at the password prompt");
      for (const text of said) assertMatch(text, echoed);
      const screen = await s.call("pty-get-screen", { pty_id: id });
      const shown = (screen.structuredContent as { warnings?: { message: string }[] }).warnings ?? [];
      assertEquals(shown.length, 1, JSON.stringify(shown));
      assertMatch(shown[0].message, echoed);
    }, backend);
  });
}

for (const backend of ["tmux", "pty"]) {
  Deno.test(`${backend} backend: pty-send-keys points at request-input when its line brings up a password or yes/no prompt, and only then`, async () => {
    await withHuman(undefined, async (s) => {
      const id = await s.launch("exec bash --norc --noprofile -i\n", "bash-");
      /** The text lines after the result's own, and how long the call took. */
      const send = async (keys: string) => {
        const started = performance.now();
        const r = await s.call("pty-send-keys", { pty_id: id, keys });
        assert(!r.isError, textOf(r));
        return { said: r.content.slice(1).map((c) => (c as { text: string }).text), ms: performance.now() - started };
      };
      const atPrompt = () =>
        waitUntil("the shell's prompt", async () => /bash-[\d.]+[#$]$/.test((await s.screen(id)).trimEnd()), 30_000);
      /**
       * The warnings for `line`, typed at the shell's prompt. The watch after Enter is bounded: a loaded machine
       * may take longer to bring the prompt up, and then the call took the whole bound and is tried again.
       */
      const prompted = async (line: string) => {
        for (let attempt = 1;; attempt++) {
          const { said, ms } = await send(line);
          if (said.length > 0 || attempt === 4) return said;
          assert(ms >= 150, `no warning, yet the call ended after ${ms.toFixed(0)} ms, before its bound`);
          await send("\u0003");
          await atPrompt();
        }
      };
      // A prompt of the program's own words, which only the terminal's no-echo line mode gives away.
      const [hidden] = await prompted(`read -r -s -p 'Your word> ' pw; echo; echo "got=\${#pw}"\n`);
      assertMatch(
        hidden ?? "",
        new RegExp(`^pty session ${id} reads input without echo .*call request-input \\{pty_id: "${id}"\\}`),
      );
      // Text there would be its answer: refused. Enter alone answers (empty); back at the prompt: nothing to say.
      const typed = await s.call("pty-send-keys", { pty_id: id, keys: "abc\n" });
      assertMatch(textOf(typed), /reads input without echo .*so the text was not typed/);
      assertEquals((await send("\n")).said, []);
      await waitUntil("the answer to be read", async () => (await s.screen(id)).includes("got=0"), 30_000);
      await atPrompt();
      assertEquals((await send("echo hi\n")).said, []);
      assertEquals((await send("true\n")).said, []);
      // A command that runs on without reading costs the bound, not its run.
      const sleeping = await send("sleep 30\n");
      assertEquals(sleeping.said, []);
      assert(sleeping.ms < 15_000, `pty-send-keys took ${sleeping.ms.toFixed(0)} ms beside sleep 30`);
      assert(!/bash-[\d.]+[#$]$/.test((await s.screen(id)).trimEnd()), "sleep 30 still runs");
      await send("\u0003");
      await atPrompt();
      // A yes/no in words, read with echo; its answer is no prompt.
      const [yesNo] = await prompted("read -r -p 'Overwrite it? [y/N] ' yn; echo answer=$yn\n");
      assertMatch(yesNo ?? "", new RegExp(`^pty session ${id} appears to wait for input .*answer with pty-send-keys`));
      assertEquals((await send("y\n")).said, []);
      await waitUntil("the answer", async () => (await s.screen(id)).includes("answer=y"), 30_000);
    }, backend);
  });
}

Deno.test("2026 era: a human who answers after the call budget is no stuck call: the parked time is between requests", async () => {
  await withHuman(
    BOTH,
    async (s) => {
      if (s.mcp.era !== "modern") return; // in the 2025 era the question is asked inside the call, within its budget
      const id = await s.launch(CONFIRM_SCRIPT, "Overwrite it? [y/N]");
      // The human reads for longer than the budget (2 s) plus its cut (1 s): the question waits between requests.
      s.human.thinking = () => new Promise((r) => setTimeout(r, 4_000));
      const r = await s.call("request-input", { pty_id: id, prompt: "Overwrite the file?", timeout_ms: 60_000 });
      assert(!r.isError, textOf(r));
      assertEquals((r.structuredContent as { outcome: string }).outcome, "input_received");
      await waitUntil("the typed answer", async () => (await s.screen(id)).includes("answer=y"), 30_000);
    },
    "tmux",
    ["--call-budget-ms", "2000"],
  );
});

Deno.test("the secret page: a second submit whose body was still arriving while the first was sent types nothing", async () => {
  const got: string[] = [];
  const release = Promise.withResolvers<void>();
  const page = await openSecretPage({
    message: "sudo",
    async deliver(b) {
      got.push(new TextDecoder().decode(b));
      await release.promise; // the first secret is on its way to the terminal
      return { ok: true, text: "Sent to the terminal." };
    },
  });
  const headers = { "content-type": "application/x-www-form-urlencoded" };
  // A form sent twice (a double click, a second tab): the first request's body is still arriving.
  const slow = new TransformStream<Uint8Array, Uint8Array>();
  const writer = slow.writable.getWriter();
  const first = fetch(page.url, { method: "POST", headers, body: slow.readable });
  void writer.write(new TextEncoder().encode("secret=hunter"));
  const second = fetch(page.url, { method: "POST", headers, body: "secret=other-pw" });
  await waitUntil("the second submit's secret on its way", () => Promise.resolve(got.length === 1), 30_000);
  void writer.write(new TextEncoder().encode("2"));
  void writer.close();
  // The first request is answered at once, or (before the fix) its secret went on its way too.
  let answered = false;
  first.then(() => answered = true, () => answered = true);
  await waitUntil("the first answered, or its secret on its way", () => Promise.resolve(answered || got.length > 1));
  assertEquals(got, ["other-pw"], "one secret typed, once");
  release.resolve();
  const firstAnswer = await first;
  const firstText = await firstAnswer.text();
  const secondText = await (await second).text();
  assertEquals(firstAnswer.status, 409, firstText);
  assertMatch(firstText, /being sent already/);
  assertMatch(secondText, /Sent to the terminal/);
  await page.close();
});
