/**
 * Helpers for tests that drive programs in tmux panes: polling for an
 * observable state (with a deadline) instead of sleeping a guessed time,
 * panes running a given command, and temporary directories that are removed
 * when the test module ends.
 */
import type { TmuxFixture } from "./helpers.ts";

/**
 * The one polling helper of the tests: polls `probe` every 20 ms until it
 * returns a truthy value; throws after `timeoutMs` with `what`. Use it (or an
 * event) wherever a test would otherwise sleep a guessed time.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T>,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : String(last)})`);
}

/**
 * Waits until the visible screen (plus history) of `target` matches
 * `pattern` (a regex, or a test of the text); returns the text.
 */
export function waitForPane(
  tmux: Pick<TmuxFixture, "tmux">,
  target: string,
  pattern: RegExp | ((text: string) => boolean),
  timeoutMs?: number,
): Promise<string> {
  const what = pattern instanceof RegExp ? `${pattern}` : "the expected text";
  return waitUntil(`pane ${target} to show ${what}`, async () => {
    const text = await tmux.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", target);
    return (pattern instanceof RegExp ? pattern.test(text) : pattern(text)) ? text : "";
  }, timeoutMs);
}

/** One tmux format evaluated for a target, trimmed. */
export async function tmuxFormat(tmux: Pick<TmuxFixture, "tmux">, target: string, format: string): Promise<string> {
  return (await tmux.tmux("display-message", "-p", "-t", target, format)).trim();
}

/** A new background window running `command` (a string: via the shell; an argv: as is); returns its pane id. */
export async function newPane(tmux: Pick<TmuxFixture, "tmux">, command: string | string[]): Promise<string> {
  return (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", ...[command].flat())).trim();
}

/**
 * A new background window of `main` printing `seq 1 300000` (then sleeping); resolves once it printed `lines` lines.
 * Watched by a control client, its `%output` outgrows a pipe (4 000 lines are about 96 KB; a pipe holds 64 KiB): the
 * way the SIGKILL tests make tmux owe a client output.
 */
export async function floodPane(tmux: Pick<TmuxFixture, "tmux">, lines: number): Promise<string> {
  const pane = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "seq 1 300000; sleep 600"))
    .trim();
  const printed = async () =>
    Math.max(0, ...(await tmux.tmux("capture-pane", "-p", "-t", pane)).split("\n").map(Number));
  await waitUntil(`pane ${pane} to print ${lines} lines`, async () => await printed() >= lines, 60_000);
  return pane;
}

const tempDirs: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const dir of tempDirs) {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // already gone
    }
  }
});

/** A fresh directory under the system temp dir, removed when the test module ends. */
export async function tempDir(prefix = "tmcp-"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  tempDirs.push(dir);
  return dir;
}

/** Whether this process may mount a file system (root): a small tmpfs is a full disk on demand. */
export async function canMount(): Promise<boolean> {
  if (Deno.uid() !== 0) return false;
  const p = await new Deno.Command("mount", { args: ["--version"], stdout: "null", stderr: "null" }).output()
    .catch(() => null);
  return p?.success === true;
}

/** A new folder that is a 64 KiB file system of its own (only where {@linkcode canMount}): {@linkcode unmount} it. */
export async function smallDisk(): Promise<string> {
  const dir = await tempDir();
  const p = await new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir] }).output();
  if (!p.success) throw new Error(`mount: ${new TextDecoder().decode(p.stderr)}`);
  return dir;
}

export async function unmount(dir: string): Promise<void> {
  await new Deno.Command("umount", { args: [dir] }).output();
}

/**
 * Makes `home` a quiet HOME for test shells: fish, on its first interactive start in a HOME without
 * generated completions, runs a Python job over every man page in the background (seconds of CPU per pane).
 */
export async function quietHome(home: string): Promise<string> {
  await Deno.mkdir(`${home}/.local/share/fish/generated_completions`, { recursive: true });
  return home;
}

/** A new temporary HOME for test shells (see {@linkcode quietHome}), removed with the other temp dirs. */
export async function tempHome(): Promise<string> {
  return await quietHome(await tempDir("tmcp-home-"));
}

/**
 * A program racing the file policy's check and open: it keeps replacing `root/real` (a directory) with a symlink to
 * `outside` and back until `stop()`, which waits for it to finish its round (real is the directory again).
 */
export async function swapDirectoryForSymlink(root: string, outside: string): Promise<{ stop(): Promise<void> }> {
  const flag = `${await tempDir("tmcp-swap-flag-")}/stop`;
  const swapper = new Deno.Command("sh", {
    args: [
      "-c",
      `cd '${root}' && while [ ! -e '${flag}' ]; do mv real real.d; ln -s '${outside}' real; rm real; ` +
      `mv real.d real; done`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    async stop() {
      await Deno.writeTextFile(flag, "");
      await swapper.status;
    },
  };
}

/** The files in `dir` other than `keep` that hold data: what a swapped-in symlink let through. */
export async function filesWithData(dir: string, keep: readonly string[] = []): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!keep.includes(e.name) && (await Deno.stat(`${dir}/${e.name}`)).size > 0) out.push(e.name);
  }
  return out;
}
