import { dirname, join } from "node:path";
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { errorResponse } from "../http/json";
import { headersFor } from "../http/request-context";
import { notRateLimited, routeOptions } from "../http/routes";

const ASSET_DIR = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));
const ASSETS: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

const DESCRIPTION = `Where every US EHR vendor's FHIR server lives, what each supports (resources, FHIR version, SMART on FHIR) and whether it answers.

To look an endpoint up without writing code, use the [search page](/).

Every response is JSON in one envelope: \`{ success: true, data, meta }\` or \`{ success: false, error: { code, message } }\`.

**Rate limits**: a fixed window per client (60 requests a minute anonymously, 1,000 with an API key sent as \`X-API-Key\` or \`Authorization: Bearer\`; an unknown or revoked key → 401 INVALID_API_KEY, counted against the client's anonymous quota). Every limited response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` (whole seconds until the window ends) and \`RateLimit-Policy\`; a 429 adds \`Retry-After\` in seconds. \`/health\` and this page are not limited.

**Caching**: data responses carry an \`ETag\` that changes only when the dataset changes; send it back in \`If-None-Match\` for a 304.

**Errors**: 400 VALIDATION_ERROR (message \`<parameter>: <reason>\`), 404 ENDPOINT_NOT_FOUND (unknown id) or NOT_FOUND (unknown route), 405 METHOD_NOT_ALLOWED, 429 TOO_MANY_REQUESTS, 500 INTERNAL_ERROR. Do not retry 400; wait Retry-After after 429; retry 500 with backoff.`;

const TITLE = "Endpoint Directory API";

/** Swagger UI's start-up, served as a file so that the page runs no inline script. */
const START_SCRIPT = `window.onload = () => {
  window.ui = SwaggerUIBundle({ dom_id: "#swagger-ui", url: "/docs/json", validatorUrl: null });
};
`;

const attribute = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** The docs page: Swagger UI, its stylesheet and scripts from /docs/assets, nothing inline. */
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
 * The OpenAPI document at /docs/json and Swagger UI at /docs, its assets served locally (no CDN);
 * none of them rate limited.
 */
export const docsPlugin = (version: string) =>
  new Elysia({ name: "docs" })
    .use(routeOptions)
    .get(
      "/docs",
      ({ request }) =>
        new Response(PAGE, {
          headers: headersFor(request, undefined, {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": DOCS_POLICY,
            "x-frame-options": "DENY",
          }),
        }),
      { detail: { hide: true }, rateLimit: false },
    )
    .get(
      "/docs/assets/:file",
      ({ params, request }) => {
        // Own keys only: `constructor`, `__proto__`… are on every object and are not assets.
        const asset = params.file;
        if (asset === "start.js")
          return new Response(START_SCRIPT, {
            headers: headersFor(request, undefined, {
              "content-type": "text/javascript; charset=utf-8",
              "cache-control": "public, max-age=86400",
            }),
          });
        const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
        if (!type) return errorResponse(request, 404, "NOT_FOUND", "No such route; see /docs");
        return new Response(Bun.file(join(ASSET_DIR, asset)), {
          headers: headersFor(request, undefined, { "content-type": type, "cache-control": "public, max-age=86400" }),
        });
      },
      { detail: { hide: true }, rateLimit: false },
    )
    // The OpenAPI plugin builds its own responses: give them the common headers through `set`
    // (a hook local to the docs routes, so the API's routes do not pay for it).
    .onBeforeHandle(({ request, set }) => {
      for (const [name, value] of headersFor(request)) set.headers[name] = value;
    })
    .use(
      notRateLimited(
        openapi({
          path: "/docs",
          // The page is our own (above): the document only, at /docs/json.
          provider: null,
          documentation: {
            info: { title: TITLE, version, description: DESCRIPTION },
            tags: [
              { name: "Endpoints", description: "FHIR server endpoints published by EHR vendors." },
              { name: "Vendors", description: "EHR vendors and their published lists." },
              { name: "Statistics", description: "Dataset statistics." },
              { name: "Health", description: "Liveness." },
            ],
          },
        }),
      ),
    );
