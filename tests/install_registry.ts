/**
 * A throw-away npm registry on 127.0.0.1 serving only the given `npm pack`
 * tarballs: the packument of each package (from the package.json inside
 * its tarball, with the tarball's sha512 integrity) and the tarball. Point
 * npm at it with `npm_config_registry` and `npx -y <package>` runs exactly
 * as it will once the packages are published; every other name is a 404.
 */

/** A running registry: its URL (with the trailing slash npm wants) and how to stop it. */
export interface LocalRegistry {
  url: string;
  close(): Promise<void>;
}

async function packageJsonOf(tgz: string): Promise<Record<string, unknown>> {
  const out = await new Deno.Command("tar", { args: ["-xzOf", tgz, "package/package.json"], stdout: "piped" }).output();
  if (!out.success) throw new Error(`no package/package.json in ${tgz}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const base64 = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b)));
const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");

/** Serves `tarballs` (paths of `npm pack` outputs) until closed. */
export async function startRegistry(tarballs: readonly string[]): Promise<LocalRegistry> {
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  const packuments = new Map<string, Record<string, unknown>>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname).slice(1);
    const file = files.get(path);
    if (file) return new Response(file, { headers: { "content-type": "application/octet-stream" } });
    const doc = packuments.get(path);
    if (doc) return Response.json(doc);
    return Response.json({ error: "Not found" }, { status: 404 });
  });
  const url = `http://127.0.0.1:${server.addr.port}/`;
  for (const tgz of tarballs) {
    const bytes = await Deno.readFile(tgz);
    const pkg = await packageJsonOf(tgz);
    const name = pkg.name as string, version = pkg.version as string;
    const file = `-/${tgz.split("/").pop()}`;
    files.set(file, bytes);
    const dist = {
      tarball: url + file,
      integrity: `sha512-${base64(await crypto.subtle.digest("SHA-512", bytes))}`,
      shasum: hex(await crypto.subtle.digest("SHA-1", bytes)),
    };
    const doc = packuments.get(name) ?? { name, "dist-tags": {}, versions: {} };
    (doc.versions as Record<string, unknown>)[version] = { ...pkg, _id: `${name}@${version}`, dist };
    (doc["dist-tags"] as Record<string, string>).latest = version;
    packuments.set(name, doc);
  }
  return { url, close: () => server.shutdown() };
}
