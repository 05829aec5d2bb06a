import { Elysia } from "elysia";
import { allowHeader } from "./allow";
import { headersFor, headerTemplate, openContext } from "./request-context";
import { pathOf, targetOf } from "./request-target";
import type { RouteTable } from "./route-table";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * The request headers a script on another origin may send: credentials, conditional requests,
 * its request id, FHIR's `Prefer: handling=strict` and `Cache-Control` (a FHIR client's
 * `no-cache`). Any other header makes a browser refuse the request before it is sent.
 */
const PREFLIGHT = headerTemplate({
  "access-control-allow-headers":
    "Authorization, X-API-Key, If-None-Match, If-Modified-Since, X-Request-Id, Prefer, Cache-Control",
  "access-control-max-age": "86400",
});

/**
 * Opens a request's context: its id (accepted or generated) and its route (resolved once, here,
 * for every later step, unless the caller already knows it). Returns the route.
 */
export function openRequest(request: Request, routes: RouteTable, route = routes.resolve(pathOf(request.url))) {
  const incoming = request.headers.get("x-request-id");
  const id = incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  const url = request.url;
  openContext(request, { id, startedAt: performance.now(), target: targetOf(url), route });
  return route;
}

/**
 * Opens each request's context (`openRequest`); answers CORS preflights with the methods of the
 * route asked about.
 */
export const openRequestsAndPreflights = (routes: RouteTable) =>
  new Elysia({ name: "open-requests-and-preflights" }).onRequest(({ request }) => {
    const route = openRequest(request, routes);
    if (request.method === "OPTIONS")
      return new Response(null, {
        status: 204,
        headers: headersFor(request, PREFLIGHT, {
          "access-control-allow-methods": route?.allow ?? allowedAnywhere(routes),
        }),
      });
  });

/** For a path no route serves: every method some route accepts. */
const allowedAnywhere = (routes: RouteTable) => allowHeader(routes.all().flatMap((route) => [...route.methods]));
