/**
 * `list {what: "panes"}` over 500 panes against one spawned `tmux list-panes -a`
 * (p50 of each, same tmux server), and whether the answer came inline:
 *
 *   deno run -A tests/bench/list_500.ts [--n 30] [--panes 500]
 */
import { parseArgs } from "node:util";
import { connect, startTmux } from "../helpers.ts";

const { values } = parseArgs({
  options: { n: { type: "string", default: "30" }, panes: { type: "string", default: "500" } },
});
const n = Number(values.n), panes = Number(values.panes);
const tmux = await startTmux("list500");
try {
  // Sessions of 10 one-pane windows running sleep (no window runs out of room; no shell starts).
  const script: string[] = [];
  for (let i = 1; i < panes; i++) {
    script.push(
      i % 10 === 0
        ? `new-session -d -s s${i / 10} -x 80 -y 24 'exec sleep 3600'`
        : `new-window -d -t ${i < 10 ? "main" : `s${Math.floor(i / 10)}`} 'exec sleep 3600'`,
    );
  }
  const file = await Deno.makeTempFile();
  await Deno.writeTextFile(file, script.join("\n") + "\n");
  await tmux.tmux("source-file", file);
  await Deno.remove(file);
  const count = (await tmux.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n").length;
  const mcp = await connect({ socketName: tmux.socketName });
  try {
    const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const spawned: number[] = [], listed: number[] = [];
    let inline = true, bytes = 0;
    for (let i = 0; i < n + 3; i++) {
      let t = performance.now();
      await new Deno.Command("tmux", { args: ["-L", tmux.socketName, "list-panes", "-a"], stdout: "piped" }).output();
      if (i >= 3) spawned.push(performance.now() - t);
      t = performance.now();
      const r = await mcp.call("list", { what: "panes" });
      if (i >= 3) listed.push(performance.now() - t);
      if (r.isError) throw new Error(`list failed: ${JSON.stringify(r.content)}`);
      const s = r.structuredContent as Record<string, unknown>;
      inline = inline && s.type !== "buffered_response";
      bytes = JSON.stringify(r.content).length;
    }
    console.log(
      `${count} panes, n=${n}: list {what:"panes"} p50 ${
        p50(listed).toFixed(1)
      } ms (inline: ${inline}, ${bytes} bytes), ` +
        `spawned tmux list-panes -a p50 ${p50(spawned).toFixed(1)} ms, ratio ${
          (p50(listed) / p50(spawned)).toFixed(2)
        }`,
    );
  } finally {
    await mcp.close();
  }
} finally {
  await tmux.kill();
}
