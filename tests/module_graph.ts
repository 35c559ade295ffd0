/**
 * The project's module graph as `deno info --json` reports it: for every
 * module, what it imports for its code (statically or through a dynamic
 * `import()`) and what it imports for its types only. Read by the tests that
 * check what a starting server loads and which way imports run between
 * folders.
 */
import { assert } from "./assert.ts";
import { ROOT } from "./helpers.ts";

/** One module's imports, by canonical specifier. */
export interface ModuleEdges {
  /** Code imports loaded with the module. */
  static: string[];
  /** Code imports loaded on first use, by `import()`. */
  dynamic: string[];
  /** Imports of types only (`import type`), erased at run time. */
  types: string[];
}

interface GraphModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; type?: { specifier: string }; isDynamic?: boolean }[];
}

/** The graph of one root module (a path relative to the project), keyed by canonical specifier. */
export async function moduleGraph(root: string): Promise<Map<string, ModuleEdges>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: GraphModule[];
    redirects: Record<string, string>;
  };
  const canonical = (s: string) => info.redirects[s] ?? s;
  const edges = new Map<string, ModuleEdges>();
  for (const m of info.modules) {
    const e: ModuleEdges = { static: [], dynamic: [], types: [] };
    for (const d of m.dependencies ?? []) {
      if (d.code) (d.isDynamic ? e.dynamic : e.static).push(canonical(d.code.specifier));
      if (d.type && d.type.specifier !== d.code?.specifier) e.types.push(canonical(d.type.specifier));
    }
    edges.set(canonical(m.specifier), e);
  }
  return edges;
}

/** The `file:` URL of a path relative to the project. */
export const local = (path: string): string => new URL(path, `file://${ROOT}`).href;
