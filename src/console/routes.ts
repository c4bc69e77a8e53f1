import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Elysia } from "elysia";
import { contentSecurityPolicy } from "../http/content-security.ts";
import { ApiError } from "../kernel/errors.ts";

/** The console's bundle, built from `console/` by `npm run console:build` and committed. */
export const CONSOLE_BUNDLE = fileURLToPath(new URL("../../console/dist", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
};

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": contentSecurityPolicy({ inlineStyles: false }),
  // The page holds an API key: it tells no other site where it was, and is never framed.
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  // Asked again each time (answered 304 while unchanged), so a new release is seen at once.
  "cache-control": "no-cache",
};

// Every asset's name carries a hash of its content: a changed file is a new name, so a
// browser may keep any one of them for good.
const ASSET_CACHE = "public, max-age=31536000, immutable";

/**
 * The console at `/console`: a page of the service for people, which calls the public API
 * with the key they paste (see `console/`). Served without a key and at no cost to a quota:
 * the page and its assets are files, like the API documentation.
 */
export function consolePages(bundle = CONSOLE_BUNDLE) {
  const pagePath = join(bundle, "index.html");
  if (!existsSync(pagePath)) throw new Error(`${pagePath} is missing: run npm run console:build`);
  const page = readFileSync(pagePath);
  const etag = `"${new Bun.CryptoHasher("sha256").update(page).digest("hex").slice(0, 32)}"`;
  const assets = new Map(
    readdirSync(bundle)
      .filter((name) => CONTENT_TYPES[extname(name)])
      .map((name) => [
        name,
        { file: Bun.file(join(bundle, name)), type: CONTENT_TYPES[extname(name)] ?? "" },
      ]),
  );
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "console" })
    .get(
      "/console",
      ({ request }) => {
        const headers = { ...PAGE_HEADERS, etag };
        if (request.headers.get("if-none-match") === etag)
          return new Response(null, { status: 304, headers });
        return new Response(page, { headers });
      },
      hidden,
    )
    .get(
      "/console/assets/:name",
      ({ params }) => {
        const asset = assets.get(params.name);
        if (!asset) throw new ApiError("not_found", `no console asset named ${params.name}`);
        return new Response(asset.file, {
          headers: {
            "content-type": asset.type,
            "cache-control": ASSET_CACHE,
            "x-content-type-options": "nosniff",
          },
        });
      },
      hidden,
    );
}
