/**
 * A one-shot web page on 127.0.0.1 where the human types a secret for a
 * terminal: the target of a URL-mode elicitation. The secret goes from the
 * page's POST straight to `deliver` (which types it into the session) and is
 * then dropped; it never passes through the MCP client, so it never reaches
 * the model, a tool result, the audit log or a tmux buffer.
 *
 * The path holds 256 random bits and the page takes one good answer, then
 * closes. Requests with another path, another Host (DNS rebinding) or a
 * foreign Origin get a bare 404/403. Nothing about a request is logged.
 *
 * @example
 * ```ts
 * const page = await openSecretPage({
 *   message: "Enter the sudo password",
 *   deliver: async (secret) => { secret.fill(0); return { ok: true, text: "Sent." }; },
 * });
 * page.url; // "http://127.0.0.1:40231/Hk3…"
 * await page.delivered; // true once a secret was handed to `deliver`
 * await page.close();
 * ```
 */

import { randomToken } from "../text/token.ts";

/** What the page hands the secret to; `text` is shown to the human (never the secret). */
export type Deliver = (secret: Uint8Array) => Promise<{ ok: boolean; text: string }>;

export interface SecretPageOptions {
  /** Shown on the page above the field (HTML-escaped). */
  message: string;
  /** The program's own prompt, shown as such below `message` (HTML-escaped; the terminal's text, untrusted). */
  asks?: string;
  deliver: Deliver;
}

export interface SecretPage {
  url: string;
  /** Resolves true once `deliver` took a secret, false when the page closed without one. */
  delivered: Promise<boolean>;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width"><title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;` +
    `max-width:32em;margin:3em auto;padding:0 1em}input{font:inherit;width:100%;margin:.5em 0}</style></head>` +
    `<body>${body}</body></html>`;
  return new Response(html, { status, headers: HEADERS });
}

/** Opens the page (see the module documentation). */
export function openSecretPage(opts: SecretPageOptions): Promise<SecretPage> {
  const path = `/${randomToken()}`;
  let done = false;
  let busy = false;
  const delivered = Promise.withResolvers<boolean>();
  const ready = Promise.withResolvers<SecretPage>();
  let origin = "";
  const form = (note = "") =>
    page(
      "tmux-mcp: secret for a terminal",
      `<h1>Secret for a terminal</h1><p>${escapeHtml(opts.message)}</p>` +
        (opts.asks ? `<p>The program asks: <code>${escapeHtml(opts.asks)}</code></p>` : "") + note +
        `<form method="post" action="${path}"><input type="password" name="secret" autofocus ` +
        `autocomplete="off" required><input type="submit" value="Send to the terminal">` +
        // Some prompts take an empty answer as a choice (ssh-keygen: "empty for no passphrase"): a button of its
        // own, so that an empty field sent by mistake is still caught.
        `<input type="submit" name="empty" value="Send an empty answer" formnovalidate></form>` +
        `<p><small>It goes straight to the program; the assistant never sees it. This page works once.</small></p>`,
    );

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.headers.get("host") !== origin.slice("http://".length) || url.pathname !== path) {
      return new Response("not found", { status: 404 });
    }
    if (done) return page("tmux-mcp", "<p>This page has been used or has expired.</p>", 410);
    if (req.method === "GET") return form();
    if (req.method !== "POST") return new Response("method not allowed", { status: 405 });
    const from = req.headers.get("origin");
    if (from !== null && from !== "null" && from !== origin) return new Response("forbidden", { status: 403 });
    let value: FormDataEntryValue | null;
    let empty = false;
    try {
      const data = await req.formData();
      value = data.get("secret");
      empty = data.has("empty");
    } catch {
      value = null;
    }
    // Judged once the body is read: a second submit's body may arrive while the first secret is on its way (or
    // after it was sent), and a second secret typed then would land in whatever reads next, a shell perhaps.
    if (done) return page("tmux-mcp", "<p>This page has been used or has expired.</p>", 410);
    if (busy) return page("tmux-mcp", "<p>A secret is being sent already.</p>", 409);
    if (typeof value !== "string") return form("<p><b>Type the secret first.</b></p>");
    if (empty && value !== "") {
      return form("<p><b>The field is not empty: clear it to send an empty answer, or send what it holds.</b></p>");
    }
    if (value === "" && !empty) {
      return form('<p><b>Type the secret first, or press "Send an empty answer" if the program takes one.</b></p>');
    }
    // A line break would end the program's read early and send the rest as a command.
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f\x7f]/.test(value)) {
      return form("<p><b>The secret holds a line break or control character; type it again.</b></p>");
    }
    busy = true;
    const bytes = encoder.encode(value);
    value = null;
    try {
      const r = await opts.deliver(bytes);
      if (!r.ok) return page("tmux-mcp", `<p>${escapeHtml(r.text)}</p>`, 409);
      done = true;
      delivered.resolve(true);
      queueMicrotask(() => void close());
      return page("tmux-mcp", `<p>${escapeHtml(r.text)}</p><p>You can close this page.</p>`);
    } finally {
      bytes.fill(0);
      busy = false;
    }
  }

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Deno.serve prints where it listens on stdout by default: that is the MCP channel.
    onListen(addr) {
      origin = `http://127.0.0.1:${addr.port}`;
      ready.resolve({ url: origin + path, delivered: delivered.promise, close });
    },
    onError: () => new Response("error", { status: 500 }),
  }, handle);

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    done = true;
    delivered.resolve(false);
    return closing ??= server.shutdown().catch(() => {});
  }
  return ready.promise;
}
