/**
 * A bare control-mode (`tmux -C`) client over any spawned tmux client
 * process (local or through ssh), for the ssh tests and bench only: one command at a time, the reply block
 * (`%begin … %end|%error`) returned as lines. The server's real control-mode
 * engine lives in lib/tmux/.
 *
 * @example
 * ```ts
 * declare const child: Deno.ChildProcess; // `tmux -C attach-session`, spawned with piped stdin and stdout (local or ssh)
 * const c = await launchControl(child);
 * (await c.command("display-message -p ok")).lines; // ["ok"]
 * await c.close();
 * ```
 */
export interface ControlLine {
  ok: boolean;
  lines: string[];
}

export interface ControlClient {
  pid: number;
  /** tmux's reply to the command on its command line (the attach): `ok: false` when it failed. */
  attach: ControlLine;
  /** Sends one command line, resolves with its reply block. */
  command(line: string): Promise<ControlLine>;
  /** Resolves when the client process exits. */
  exited: Promise<Deno.CommandStatus>;
  /** Closes stdin (tmux detaches and exits) and waits for the exit. */
  close(): Promise<void>;
}

const enc = new TextEncoder();

/** Takes a started `tmux -C` (stdin, stdout, stderr piped) and waits for its first reply block (the attach itself). */
export async function launchControl(child: Deno.ChildProcess): Promise<ControlClient> {
  const writer = child.stdin.getWriter();
  const stderr = new Response(child.stderr).text();
  const waiting: ((r: ControlLine) => void)[] = [];
  let first: (r: ControlLine) => void = () => {};
  const ready = new Promise<ControlLine>((r) => first = r);
  let block: string[] | undefined;
  let seen = 0;

  const pump = (async () => {
    let rest = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      rest += chunk;
      let nl;
      while ((nl = rest.indexOf("\n")) >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (block === undefined) {
          if (line.startsWith("%begin ")) block = [];
          continue; // notifications (%output, %session-changed, …) are not replies
        }
        if (line.startsWith("%end ") || line.startsWith("%error ")) {
          const reply = { ok: line.startsWith("%end "), lines: block };
          block = undefined;
          if (seen++ === 0) first(reply);
          else waiting.shift()?.(reply);
        } else {
          block.push(line);
        }
      }
    }
  })();

  const exited = child.status;
  // On an early exit, read stdout to its end first: the attach's reply may be there.
  const attach = await Promise.race([ready, exited.then(() => pump).then(() => undefined, () => undefined)]);
  if (!attach) {
    await pump.catch(() => {});
    throw new Error(`control client exited before attaching: ${(await stderr).trim()}`);
  }
  return {
    pid: child.pid,
    attach,
    exited,
    command: (line) => {
      const reply = new Promise<ControlLine>((r) => waiting.push(r));
      return writer.write(enc.encode(line + "\n")).then(() => reply);
    },
    close: async () => {
      await writer.close().catch(() => {});
      await exited;
      await pump.catch(() => {});
      await stderr;
    },
  };
}
