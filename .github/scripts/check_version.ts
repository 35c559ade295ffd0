/**
 * Release gate: deno.json and lib/version.ts agree, and the tag (when one is
 * given) is `v<version>`. Prints `version=<version>` for $GITHUB_OUTPUT.
 *
 * @example
 * ```sh
 * deno run --allow-read .github/scripts/check_version.ts v0.2.0   # version=0.2.0, or one line and exit 1
 * deno run --allow-read .github/scripts/check_version.ts          # no tag: only the two files are compared
 * ```
 */
import { checkTag, projectVersion, ReleaseError, runScript } from "./release.ts";

if (import.meta.main) {
  await runScript("check_version", () => {
    if (Deno.args.length > 1) throw new ReleaseError("usage: check_version.ts [TAG]");
    const version = projectVersion(new URL("../../", import.meta.url));
    if (Deno.args[0] !== undefined) checkTag(Deno.args[0], version);
    console.log(`version=${version}`);
  });
}
