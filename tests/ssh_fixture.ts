/**
 * A real OpenSSH server on 127.0.0.1 for the remote-host tests, everything in
 * one temp directory: throw-away host and user keys, `sshd_config`, an ssh
 * config with a `Host` alias, known_hosts, sshd's log, and the remote tmux's
 * socket directory.
 *
 * sshd's sessions get `HOME=<tmp>/home` (no rc files: the image's bash rc runs
 * a slow `pyenv init`, and Debian's bash reads ~/.bashrc even for `ssh host
 * cmd`) and `TMUX_TMPDIR=<tmp>/tmux`, so `tmux -L NAME` over that sshd reaches
 * a socket no other tmux client on the machine uses. {@linkcode SshFixture.tmux}
 * reaches the same server locally (same TMUX_TMPDIR) without an ssh login.
 *
 * @example
 * ```ts
 * const fx = await startSshd();
 * try {
 *   await new Deno.Command("ssh", { args: ["-F", fx.configPath, fx.alias, "true"] }).output();
 *   await fx.loginCount(); // 1
 * } finally {
 *   await fx.cleanup();
 * }
 * ```
 */
import { quietHome, tempDir, waitUntil } from "./pane_helpers.ts";
import { endTmux, uniqueSocketName } from "./helpers.ts";

const SSHD = "/usr/sbin/sshd";
/** The rc files a login shell of sshd reads for `ssh host command`: bash (Debian), sh/dash login, zsh, fish. */
const RC_FILES = [".bashrc", ".profile", ".zshenv", ".config/fish/config.fish"];
const dec = new TextDecoder();

export interface SshFixture {
  /** The `Host` alias in {@linkcode configPath}. */
  alias: string;
  /** The ssh client config (`ssh -F`). */
  configPath: string;
  /** The temp directory holding everything. */
  dir: string;
  port: number;
  user: string;
  /** Private key authorized by the sshd. */
  identity: string;
  knownHosts: string;
  /** tmux socket name (`-L`) of the remote side's server. */
  socketName: string;
  /** Runs tmux on the remote side's socket directly (no ssh login); returns stdout, throws on failure. */
  tmux(...args: string[]): Promise<string>;
  /** Starts a tmux server with session `main` on {@linkcode socketName}. */
  startTmux(): Promise<void>;
  /** Stops sshd: the listener and (unless told otherwise) every connection it serves. */
  stop(opts?: { keepConnections?: boolean }): Promise<void>;
  /** Starts sshd again on the same port. */
  start(): Promise<void>;
  /** The sshd listener and every process below it (the connections it serves), for SIGSTOP/SIGCONT. */
  sshdProcesses(): Promise<number[]>;
  /** "Accepted publickey" lines in sshd's log: completed logins so far. */
  loginCount(): Promise<number>;
  /** Environment for a process that runs tmux the way the remote side does. */
  remoteEnv: Record<string, string>;
  /** Stops sshd and the tmux server, removes the temp directory. */
  cleanup(): Promise<void>;
  /**
   * Gives the remote login rc files (`.bashrc`, `.profile`, `.zshenv`, fish's config.fish in the test user's HOME)
   * that run `body` (POSIX sh syntax, also read by fish for simple commands) before any command of a login.
   */
  setLoginRc(body: string): Promise<void>;
  /** Removes the rc files {@linkcode setLoginRc} made. */
  clearLoginRc(): Promise<void>;
}

/** A login that prints a banner on stdout (lines, tmux-looking lines, an unfinished line) and one on stderr. */
export const NOISY_LOGIN = [
  "echo 'Welcome to the devbox (MOTD)'",
  "echo '%begin 1700000000 1 1'",
  "echo '%end 1700000000 1 1'",
  "printf 'no newline at the end'",
  "echo 'pyenv: warning on stderr' >&2",
  "",
].join("\n");

async function run(cmd: string, args: string[], env?: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(cmd, { args, env, clearEnv: env !== undefined, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")}: ${dec.decode(out.stderr).trim()}`);
  return dec.decode(out.stdout);
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function canConnect(port: number): Promise<boolean> {
  try {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    c.close();
    return true;
  } catch {
    return false;
  }
}

/** What may differ between two fixtures that run at once (tests/fleet_test.ts): the alias, the tmux socket name. */
export interface SshdOptions {
  /** The `Host` alias (default `tmcp-remote`). */
  alias?: string;
  /** The remote tmux's `-L` name (default: a unique one). */
  socketName?: string;
}

/** Starts sshd on a free port of 127.0.0.1 as the current user. */
export async function startSshd(opts: SshdOptions = {}): Promise<SshFixture> {
  const dir = await tempDir("tmcp-ssh-");
  const user = Deno.env.get("USER") ?? (await run("id", ["-un"])).trim();
  const home = `${dir}/home`;
  const tmuxDir = `${dir}/tmux`;
  await Deno.mkdir(home, { mode: 0o700 });
  await quietHome(home);
  await Deno.mkdir(tmuxDir, { mode: 0o700 });
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "tmcp-host", "-f", `${dir}/host_key`]);
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "tmcp-user", "-f", `${dir}/id`]);
  await Deno.copyFile(`${dir}/id.pub`, `${dir}/authorized_keys`);
  // Privilege separation wants this directory when sshd starts as root.
  if (Deno.uid() === 0) await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  const port = freePort();
  const hostKey = (await Deno.readTextFile(`${dir}/host_key.pub`)).trim();
  const knownHosts = `${dir}/known_hosts`;
  await Deno.writeTextFile(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`);
  await Deno.writeTextFile(
    `${dir}/sshd_config`,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${dir}/host_key`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      `PidFile ${dir}/sshd.pid`,
      "UsePAM no",
      "StrictModes no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PermitRootLogin prohibit-password",
      "LogLevel VERBOSE",
      "MaxStartups 100",
      `SetEnv HOME=${home} TMUX_TMPDIR=${tmuxDir}`,
      "",
    ].join("\n"),
  );
  const alias = opts.alias ?? "tmcp-remote";
  const configPath = `${dir}/ssh_config`;
  await Deno.writeTextFile(
    configPath,
    [
      // The alias and the bare address (for ssh://user@127.0.0.1:port) share the settings.
      `Host ${alias} 127.0.0.1`,
      "  HostName 127.0.0.1",
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${dir}/id`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile ${knownHosts}`,
      "  StrictHostKeyChecking yes",
      "",
    ].join("\n"),
  );
  const log = `${dir}/sshd.log`;
  const socketName = opts.socketName ?? uniqueSocketName("ssh");
  const remoteEnv = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, TMUX_TMPDIR: tmuxDir };
  let child: Deno.ChildProcess | undefined;

  const start = async () => {
    if (child) return;
    // -D: stay in the foreground as our child; -e off, -E: log to the file so logins can be counted.
    child = new Deno.Command(SSHD, {
      args: ["-D", "-f", `${dir}/sshd_config`, "-E", log],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const status = child.status;
    let exited = false;
    status.then(() => exited = true);
    await waitUntil(`sshd listening on 127.0.0.1:${port}`, async () => {
      if (exited) {
        const tail = await Deno.readTextFile(log).catch(() => "");
        throw new Error(`sshd exited at start: ${tail.trim().split("\n").at(-1)}`);
      }
      return (await canConnect(port)) || undefined;
    }, 15_000);
  };

  const stop = async (opts: { keepConnections?: boolean } = {}) => {
    const c = child;
    if (!c) return;
    child = undefined;
    // Each connection is served by a child of the listener (in its own session, so not in our process group).
    const kids = opts.keepConnections ? [] : (await run("pgrep", ["-P", String(c.pid)]).catch(() => ""))
      .split("\n").filter((s) => s.trim()).map(Number);
    c.kill("SIGTERM");
    await c.stderr.cancel();
    await c.status;
    for (const pid of kids) {
      try {
        Deno.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    await waitUntil("sshd connections closed", async () => {
      for (const pid of kids) if (await run("kill", ["-0", String(pid)]).then(() => true, () => false)) return;
      return true;
    }, 15_000);
  };

  const tmux = (...args: string[]) => run("tmux", ["-u", "-L", socketName, ...args], remoteEnv);

  await start();
  return {
    alias,
    configPath,
    dir,
    port,
    user,
    identity: `${dir}/id`,
    knownHosts,
    socketName,
    remoteEnv,
    tmux,
    startTmux: async () => {
      await tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40");
    },
    stop,
    start,
    sshdProcesses: async () => {
      const all: number[] = child ? [child.pid] : [];
      for (let i = 0; i < all.length; i++) {
        const kids = await run("pgrep", ["-P", String(all[i])]).catch(() => "");
        all.push(...kids.split("\n").filter((l) => l.trim()).map(Number));
      }
      return all;
    },
    loginCount: async () => {
      const text = await Deno.readTextFile(log).catch(() => "");
      return text.split("\n").filter((l) => l.includes("Accepted publickey")).length;
    },
    setLoginRc: async (body) => {
      await Deno.mkdir(`${home}/.config/fish`, { recursive: true });
      for (const f of RC_FILES) await Deno.writeTextFile(`${home}/${f}`, body);
    },
    clearLoginRc: async () => {
      for (const f of RC_FILES) await Deno.remove(`${home}/${f}`).catch(() => {});
    },
    cleanup: async () => {
      await endTmux(tmux);
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * A new window on the remote tmux running `argv` (a shell without rc files) in a clean environment with `home`;
 * resolves with its pane id once `shell` is the pane's command.
 */
export async function cleanShellPane(fx: SshFixture, shell: string, argv: string, home: string): Promise<string> {
  const pane = (await fx.tmux(
    "new-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    `env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color LANG=C.UTF-8 HOME=${home} ${argv}`,
  )).trim();
  await waitUntil(`${shell} to be the pane's command`, async () => {
    const cmd = (await fx.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")).trim();
    return cmd === shell || undefined;
  }, 20_000);
  return pane;
}
