/**
 * Builds the console's bundle into `console/dist` with Bun's bundler: the page, its script and
 * stylesheet (minified, named by a hash of their content) and the sample CSV. The bundle is
 * committed, so the service needs no build step to serve it; `npm run console:build` after a
 * change to `console/`, and a test fails when the committed bundle differs from a fresh build.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CONSOLE = fileURLToPath(new URL(".", import.meta.url));
export const BUNDLE_DIRECTORY = join(CONSOLE, "dist");

/** Writes the bundle into `outdir`, emptied first. */
export async function buildConsole(outdir: string): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(CONSOLE, "index.html")],
    outdir,
    target: "browser",
    minify: true,
    publicPath: "/console/assets/",
    naming: { entry: "[name].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    // A known value at build time: the bundle has no branch for development.
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, "the console did not build");
}

if (import.meta.main) {
  await buildConsole(BUNDLE_DIRECTORY);
  console.log(`built ${BUNDLE_DIRECTORY}`);
}
