/**
 * Fixtures for the exec tools: a private tmux server whose first pane runs a
 * given shell in a clean environment (`env -i`, no rc files unless asked),
 * and the MCP server connected to it.
 */
import { connect, endTmux, type McpFixture, removeSocket, runTmux, uniqueSocketName } from "./helpers.ts";
import { tempDir, tempHome, waitUntil } from "./pane_helpers.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

const BARE: Record<Shell, string> = {
  bash: "bash --norc --noprofile",
  zsh: "zsh -f",
  fish: "fish --no-config",
};

/** Interactive shells as a new user gets them: distribution rc files, default prompt. */
const DEFAULT: Record<Shell, string> = {
  bash: "bash -i",
  zsh: "zsh -i",
  fish: "fish",
};

export interface ShellOptions {
  /** Start the shell with its usual startup files (a fresh user's defaults) instead of none. */
  rc?: boolean;
  /** tmux history-limit for the panes. */
  historyLimit?: number;
  /** Pane height (default 40). */
  height?: number;
  /** Extra command-line arguments and environment of the MCP server. */
  serverArgs?: string[];
  serverEnv?: Record<string, string>;
}

export interface ExecFixture {
  mcp: McpFixture;
  socketName: string;
  /** The shell pane the server started with. */
  pane: string;
  /** Runs tmux on the fixture's socket; returns stdout. */
  tmux(...args: string[]): Promise<string>;
  /** Opens another window running `shell` (waiting for its prompt) or any command line (not waiting). */
  newPane(what: Shell | { command: string }): Promise<string>;
}

async function makeHome(shell: Shell, rc: boolean): Promise<string> {
  const home = await tempHome();
  // Debian's /etc/skel/.bashrc; elsewhere (macOS) its essentials.
  if (rc && shell === "bash") {
    await Deno.copyFile("/etc/skel/.bashrc", `${home}/.bashrc`).catch(() =>
      Deno.writeTextFile(`${home}/.bashrc`, "HISTCONTROL=ignoreboth\nshopt -s histappend\nPS1='\\u@\\h:\\w\\$ '\n")
    );
  }
  // Without a ~/.zshrc, zsh starts its new-user menu; use Debian's recommended one.
  if (rc && shell === "zsh") {
    await Deno.copyFile("/etc/zsh/newuser.zshrc.recommended", `${home}/.zshrc`).catch(() =>
      Deno.writeTextFile(`${home}/.zshrc`, "")
    );
  }
  return home;
}

function shellCommand(shell: Shell, home: string, rc: boolean): string {
  return `env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color LANG=C.UTF-8 HOME=${home} ` +
    (rc ? DEFAULT : BARE)[shell];
}

/** Waits until the pane shows something and stops changing (the prompt is drawn). */
export async function settle(socketName: string, pane: string, timeoutMs = 15_000): Promise<void> {
  let last = "";
  let stableSince = Date.now();
  await waitUntil(`pane ${pane} to settle`, async () => {
    const screen = await runTmux(socketName, ["capture-pane", "-p", "-t", pane]);
    if (screen !== last) {
      last = screen;
      stableSince = Date.now();
      return false;
    }
    return screen.trim() !== "" && Date.now() - stableSince >= 150;
  }, timeoutMs);
}

/** A tmux server whose first pane runs `shell`, plus a connected MCP server; all torn down afterwards. */
export async function withShell(
  shell: Shell,
  fn: (fx: ExecFixture) => Promise<void>,
  opts: ShellOptions = {},
): Promise<void> {
  const socketName = uniqueSocketName("exec");
  const conf = `${await tempDir("tmcp-conf-")}/tmux.conf`;
  await Deno.writeTextFile(conf, opts.historyLimit ? `set -g history-limit ${opts.historyLimit}\n` : "");
  const rc = opts.rc ?? false;
  const home = await makeHome(shell, rc);
  await runTmux(socketName, [
    ...["-f", conf, "new-session", "-d", "-s", "main", "-x", "120", "-y", String(opts.height ?? 40)],
    shellCommand(shell, home, rc),
  ]);
  const pane = (await runTmux(socketName, ["display-message", "-p", "-t", "main", "#{pane_id}"])).trim();
  let mcp: McpFixture | undefined;
  try {
    await settle(socketName, pane);
    mcp = await connect({ socketName, args: opts.serverArgs, env: opts.serverEnv });
    const tmux = (...args: string[]) => runTmux(socketName, args);
    await fn({
      mcp,
      socketName,
      pane,
      tmux,
      async newPane(what) {
        if (typeof what !== "string") {
          return (await tmux("new-window", "-d", "-P", "-F", "#{pane_id}", what.command)).trim();
        }
        const h = await makeHome(what, false);
        const id = (await tmux("new-window", "-d", "-P", "-F", "#{pane_id}", shellCommand(what, h, false))).trim();
        await settle(socketName, id);
        return id;
      },
    });
  } finally {
    await mcp?.close();
    await endTmux((...args) => runTmux(socketName, args));
    removeSocket(socketName);
  }
}

/**
 * Waits until the server follows output in `session`: its read-only control client that takes output (the
 * command connection's has `no-output`) is attached there. Output printed before then is not seen as it comes.
 */
export async function watchedIn(fx: ExecFixture, session: string): Promise<void> {
  await waitUntil(
    `the server to watch output in session ${session}`,
    async () =>
      (await fx.tmux("list-clients", "-F", "#{session_name} #{client_flags}")).split("\n").some((l) =>
        l.startsWith(`${session} `) && l.includes("control-mode") && !l.includes("no-output")
      ),
  );
}

/**
 * Calls a tool and cancels the request (an AbortSignal on the client, which
 * sends notifications/cancelled) as soon as the tool reports that its wait is
 * armed (its first progress notification, or the first whose message matches
 * `armed`); resolves once the client call has rejected, and fails if it did not.
 */
export async function callAndCancel(
  fx: ExecFixture,
  name: string,
  args: Record<string, unknown>,
  armed = /./,
): Promise<void> {
  const ac = new AbortController();
  const call = fx.mcp.client.callTool({ name, arguments: args }, undefined, {
    signal: ac.signal,
    timeout: 120_000,
    onprogress: (p) => {
      if (armed.test(p.message ?? "")) ac.abort();
    },
  });
  let rejected = false;
  await call.catch(() => rejected = true);
  if (!rejected) throw new Error(`the cancelled ${name} call did not reject on the client`);
}

/** Calls a tool with a progress token; returns its structured result and the notifications received. */
export async function callWithProgress<T>(
  fx: ExecFixture,
  name: string,
  args: Record<string, unknown>,
): Promise<{ result: T; progress: { progress: number; total?: number; message?: string }[] }> {
  const progress: { progress: number; total?: number; message?: string }[] = [];
  const r = await fx.mcp.client.callTool({ name, arguments: args }, undefined, {
    onprogress: (p) => void progress.push(p),
    timeout: 120_000,
  });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return { result: r.structuredContent as T, progress };
}

/**
 * Starts a waiting tool call and resolves `armed` at its first progress
 * notification, which the exec tools send as soon as their wait is armed
 * (output printed after that is seen): the event to type on, not a sleep.
 */
export function startWait<T>(
  fx: ExecFixture,
  name: string,
  args: Record<string, unknown>,
): { armed: Promise<void>; done: Promise<T> } {
  const armed = Promise.withResolvers<void>();
  const call = fx.mcp.client.callTool({ name, arguments: args }, undefined, {
    onprogress: () => armed.resolve(),
    timeout: 120_000,
  });
  const done = call.then((r) => {
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
    return r.structuredContent as T;
  });
  // A call that ends before it is armed (an error) ends the wait for arming too.
  void done.then(() => armed.resolve(), (e) => armed.reject(e));
  return { armed: armed.promise, done };
}
