import { dirname, join } from "node:path";
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { exchanges, headersFor } from "../http/exchange";
import { errorResponse, jsonResponse } from "../http/json";
import { routeOptions } from "../http/route-options";
import { type DocumentedRoute, openApiDocument } from "./openapi";

const ASSET_DIR = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));
const ASSETS: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

const DESCRIPTION = `Where every US EHR vendor's FHIR server lives, what each supports (resources, FHIR version, SMART on FHIR) and whether it answers.

To look an endpoint up without writing code, use the [search page](/).

Every response is JSON in one envelope: \`{ success: true, data, meta }\` or \`{ success: false, error: { code, message } }\`, except under \`/fhir\` (FHIR R4: resources and Bundles, errors as OperationOutcomes, \`application/fhir+json\`) and the SMART brands bundle (\`/api/v1/brands\`).

**Rate limits**: a fixed window per client (60 requests a minute anonymously, 1,000 with an API key sent as \`X-API-Key\` or \`Authorization: Bearer\`; an unknown or revoked key → 401 INVALID_API_KEY, counted against the client's anonymous quota). Every limited response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` (whole seconds until the window ends) and \`RateLimit-Policy\`; a 429 adds \`Retry-After\` in seconds. \`/health\` and this page are not limited.

**Caching**: data responses carry an \`ETag\` that changes only when the dataset changes and a \`Last-Modified\` (the dataset's last refresh); send either back (\`If-None-Match\`, \`If-Modified-Since\`) for a 304. They vary with the API key sent (\`Vary: Accept-Encoding, Authorization, X-API-Key\`).

**Paging**: the list's \`Link\` header (RFC 8288) names its \`first\`, \`prev\`, \`next\` and \`last\` pages, \`last\` at most page 1000; to get every entry, use the export.

**Errors**: 400 VALIDATION_ERROR (message \`<parameter>: <reason>\`), 401 INVALID_API_KEY (with \`WWW-Authenticate\`), 404 ENDPOINT_NOT_FOUND (unknown id) or NOT_FOUND (unknown route), 405 METHOD_NOT_ALLOWED, 429 TOO_MANY_REQUESTS, 500 INTERNAL_ERROR, 503 EXPORTS_BUSY (the export, server-wide cap; with Retry-After), 410 CHANGES_EXPIRED (the change feed, \`since\` older than the changes kept). Do not retry 400; wait Retry-After after 429 or 503; retry 500 with backoff.`;

const TITLE = "Endpoint Directory API";

const INFO = {
  title: TITLE,
  description: DESCRIPTION,
  tags: [
    { name: "Endpoints", description: "FHIR server endpoints published by EHR vendors." },
    { name: "Vendors", description: "EHR vendors and their published lists." },
    { name: "Statistics", description: "Dataset statistics." },
    { name: "Changes", description: "What changed since a dataset version: for clients that keep a copy." },
    { name: "Health", description: "Liveness." },
    {
      name: "FHIR",
      description:
        "The same data as FHIR R4 (read-only, JSON): Endpoint and Organization, and the SMART brands bundle.",
    },
  ],
};

/**
 * Swagger UI's start-up, served as a file so that the page runs no inline script. It reads the
 * document at an absolute URL, so /docs/ works as /docs does.
 */
const START_SCRIPT = `window.onload = () => {
  window.ui = SwaggerUIBundle({ dom_id: "#swagger-ui", url: "/docs/json", validatorUrl: null });
};
`;

const attribute = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** The docs page: Swagger UI, its stylesheet and scripts from /docs/assets (the installed swagger-ui-dist), nothing inline. */
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${TITLE}</title>
    <meta name="description" content="${attribute(DESCRIPTION)}" />
    <meta name="og:description" content="${attribute(DESCRIPTION)}" />
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
</head>
<body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/start.js"></script>
</body>
</html>
`;

/**
 * The docs page's Content-Security-Policy: scripts and the stylesheet from this server only
 * (the page has no inline script); Swagger UI's inline styles and data: images (its icons); it
 * fetches the OpenAPI document and "Try it out" calls from this origin only; and no other site
 * may frame it (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for older browsers).
 */
const DOCS_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The OpenAPI document at /docs/json, built from the app's own routes (their schemas, the same
 * objects the routes validate with), and Swagger UI at /docs, its assets served locally (no
 * CDN); none of them rate limited.
 */
export const docsPlugin = (version: string, routes: () => readonly DocumentedRoute[]) => {
  const documentation: NonNullable<Parameters<typeof openapi>[0]>["documentation"] & object = {};
  let described = false;
  return (
    new Elysia({ name: "docs" })
      .use(routeOptions)
      .use(exchanges)
      .get(
        "/docs",
        ({ exchange }) =>
          new Response(PAGE, {
            headers: headersFor(exchange, undefined, {
              "content-type": "text/html; charset=utf-8",
              "content-security-policy": DOCS_POLICY,
              "x-frame-options": "DENY",
            }),
          }),
        { detail: { hide: true }, rateLimit: false },
      )
      .get(
        "/docs/assets/:file",
        ({ params, exchange }) => {
          // Own keys only: `constructor`, `__proto__`… are on every object and are not assets.
          const asset = params.file;
          if (asset === "start.js")
            return new Response(START_SCRIPT, {
              headers: headersFor(exchange, undefined, {
                "content-type": "text/javascript; charset=utf-8",
                "cache-control": "public, max-age=86400",
              }),
            });
          const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
          if (!type) return errorResponse(exchange, 404, "NOT_FOUND", "No such route; see /docs");
          return new Response(Bun.file(join(ASSET_DIR, asset)), {
            headers: headersFor(exchange, undefined, {
              "content-type": type,
              "cache-control": "public, max-age=86400",
            }),
          });
        },
        { detail: { hide: true }, rateLimit: false },
      )
      // The OpenAPI plugin serves the document at /docs/json: every path of it comes from
      // `openApiDocument` (the routes' own schemas, the same objects the routes validate with),
      // handed over as the plugin's `documentation` when the first client asks (every route is
      // registered by then); the plugin's own conversion of the routes is excluded.
      .onBeforeHandle(({ exchange, set }) => {
        if (!described) Object.assign(documentation, openApiDocument(routes(), { ...INFO, version }));
        described = true;
        for (const [name, value] of headersFor(exchange)) set.headers[name] = value;
      })
      // The plugin answers with the document as an object: sent as our other JSON answers are.
      .onAfterHandle(({ exchange, response }) =>
        response instanceof Response ? undefined : jsonResponse(exchange, 200, JSON.stringify(response)),
      )
      .guard({ rateLimit: false }, (app) =>
        app.use(
          openapi({
            path: "/docs",
            specPath: "/docs/json",
            provider: null,
            openapiVersion: "3.1.0",
            exclude: { paths: [/^/] },
            documentation,
          }),
        ),
      )
  );
};
