import { dirname, join } from "node:path";
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";

const UI_ASSETS = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
} as const;

// Swagger UI is started from a file of our own rather than an inline script, so the page
// runs under a content-security policy that allows scripts from this origin only.
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/swagger/json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: true,
    tryItOutEnabled: true,
    validatorUrl: null
  });
});
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>VAT and IBAN validation API</title>
  <link rel="icon" type="image/png" href="/swagger/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/swagger/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/swagger/assets/swagger-ui-bundle.js"></script>
  <script src="/swagger/assets/init.js"></script>
</body>
</html>
`;

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets element styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function swaggerUiDirectory(): string {
  return dirname(require.resolve("swagger-ui-dist/package.json"));
}

/**
 * The OpenAPI document at `/swagger/json` (built by @elysiajs/openapi from the routes'
 * schemas) and the Swagger UI at `/swagger`, with its assets served from the
 * `swagger-ui-dist` package so the page needs no CDN.
 */
export function docs(options: { version: string; description: string }) {
  const assetDirectory = swaggerUiDirectory();
  const assets = Object.fromEntries(
    Object.entries(UI_ASSETS).map(([name, type]) => [
      name,
      { file: Bun.file(join(assetDirectory, name)), type },
    ]),
  );
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "docs" })
    .use(
      openapi({
        path: "/swagger",
        specPath: "/swagger/json",
        provider: null,
        documentation: {
          info: {
            title: "VAT and IBAN validation API",
            version: options.version,
            description: options.description,
          },
          components: {
            securitySchemes: {
              ApiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "your API key" },
            },
          },
        },
      }),
    )
    .get(
      "/swagger",
      () =>
        new Response(PAGE, {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": CONTENT_SECURITY_POLICY,
          },
        }),
      hidden,
    )
    .get(
      "/swagger/assets/init.js",
      () => new Response(INIT_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8" } }),
      hidden,
    )
    .get(
      "/swagger/assets/:name",
      ({ params }) => {
        const asset = assets[params.name];
        if (!asset) return new Response(null, { status: 404 });
        return new Response(asset.file, {
          headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
        });
      },
      hidden,
    );
}
