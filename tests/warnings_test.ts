import { assert, assertEquals, assertMatch } from "./assert.ts";
import { withShell } from "./exec_fixtures.ts";
import { waitUntil } from "./pane_helpers.ts";

interface Warned {
  warnings: { kind: string; message: string }[];
}

Deno.test("capture-pane and snapshot-pane warn about pagers, full-screen programs, copy mode and prompts", async () => {
  await withShell("bash", async (fx) => {
    const kinds = async (tool: string, target: string) =>
      (await fx.mcp.ok<Warned>(tool, { target })).warnings.map((w) => w.kind);
    const whenShowing = async (target: string, tool: string, kind: string) => {
      await waitUntil(`${kind} in ${tool} of ${target}`, async () => (await kinds(tool, target)).includes(kind));
      return (await fx.mcp.ok<Warned>(tool, { target })).warnings.find((w) => w.kind === kind)!.message;
    };

    assertEquals(await kinds("snapshot-pane", fx.pane), []);
    assertEquals(await kinds("capture-pane", fx.pane), []);

    const pager = await fx.newPane({ command: "seq 1 500 | less" });
    assertMatch(await whenShowing(pager, "snapshot-pane", "pager"), /send q/);
    assertMatch(await whenShowing(pager, "capture-pane", "pager"), /send q/);

    const fullScreen = await fx.newPane({ command: "tput smcup; echo drawing; sleep 30" });
    assertMatch(await whenShowing(fullScreen, "snapshot-pane", "alternate_screen"), /full-screen/);

    const prompt = await fx.newPane({ command: "printf 'Password: '; read -r x" });
    assertMatch(await whenShowing(prompt, "capture-pane", "input_prompt"), /call request-input \{target: "%\d+"\}/);
    const question = await fx.newPane({ command: "printf 'Overwrite it? [y/N] '; read -r x" });
    assertMatch(await whenShowing(question, "capture-pane", "input_prompt"), /send-keys .*request-input/);

    await fx.tmux("copy-mode", "-t", fx.pane);
    const copy = await whenShowing(fx.pane, "capture-pane", "copy_mode");
    assertMatch(copy, /copy-mode/);
    assert(/send-keys, paste-text and run-command leave the mode before typing/.test(copy), copy);
    // Scrolled back to the top of the history, the capture is still the live screen: the warning said "the screen
    // shows scrollback, not live output".
    const live = await fx.newPane({ command: "seq 1 300; echo LIVE-END; sleep 100" });
    await waitUntil(
      "the live pane's last line",
      async () => /LIVE-END/.test(await fx.tmux("capture-pane", "-p", "-t", live)),
    );
    await fx.tmux("copy-mode", "-t", live);
    await fx.tmux("send-keys", "-t", live, "-X", "history-top");
    const shot = await fx.mcp.ok<Warned & { text: string }>("capture-pane", { target: live });
    assertMatch(shot.text, /^300\nLIVE-END$/m);
    assertMatch(
      shot.warnings.find((w) => w.kind === "copy_mode")!.message,
      /a watching user sees the mode, not this live text/,
    );
  });
});
