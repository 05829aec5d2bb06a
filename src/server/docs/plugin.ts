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

// No double quotes: the docs page copies this text unescaped into a <meta content="…"> attribute.
const DESCRIPTION = `Where every US EHR vendor's FHIR server lives, what each supports (resources, FHIR version, SMART on FHIR) and whether it answers.

To look an endpoint up without writing code, use the [search page](/).

Every response is JSON in one envelope: \`{ success: true, data, meta }\` or \`{ success: false, error: { code, message } }\`.

**Rate limits**: a fixed window per client (60 requests a minute anonymously, 1,000 with an API key sent as \`X-API-Key\` or \`Authorization: Bearer\`; an unknown or revoked key → 401 INVALID_API_KEY, counted against the client's anonymous quota). Every limited response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` (whole seconds until the window ends) and \`RateLimit-Policy\`; a 429 adds \`Retry-After\` in seconds. \`/health\` and this page are not limited.

**Caching**: data responses carry an \`ETag\` that changes only when the dataset changes; send it back in \`If-None-Match\` for a 304.

**Errors**: 400 VALIDATION_ERROR (message \`<parameter>: <reason>\`), 404 ENDPOINT_NOT_FOUND (unknown id) or NOT_FOUND (unknown route), 405 METHOD_NOT_ALLOWED, 429 TOO_MANY_REQUESTS, 500 INTERNAL_ERROR. Do not retry 400; wait Retry-After after 429; retry 500 with backoff.`;

/**
 * The OpenAPI document at /docs/json and Swagger UI at /docs, its assets served locally (no CDN);
 * none of them rate limited.
 */
export const docsPlugin = (version: string) =>
  new Elysia({ name: "docs" })
    .use(routeOptions)
    .get(
      "/docs/assets/:file",
      ({ params, request }) => {
        // Own keys only: `constructor`, `__proto__`… are on every object and are not assets.
        const type = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
        if (!type) return errorResponse(request, 404, "NOT_FOUND", "No such route; see /docs");
        return new Response(Bun.file(join(ASSET_DIR, params.file)), {
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
          provider: "swagger-ui",
          swagger: {
            cdn: "/docs/assets/swagger-ui-bundle.js",
            theme: "/docs/assets/swagger-ui.css",
            validatorUrl: null,
            autoDarkMode: false,
          } as never,
          documentation: {
            info: { title: "Endpoint Directory API", version, description: DESCRIPTION },
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
