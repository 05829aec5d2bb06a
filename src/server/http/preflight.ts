import { Elysia } from "elysia";
import { allowHeader } from "./allow";
import { exchanges, headersFor, headerTemplate } from "./exchange";
import type { RouteTable } from "./route-table";

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

/** Answers CORS preflights with the methods of the route asked about. */
export const preflights = (routes: RouteTable) =>
  new Elysia({ name: "preflights" }).use(exchanges).onRequest(({ exchange }) => {
    if (exchange.request.method === "OPTIONS")
      return new Response(null, {
        status: 204,
        headers: headersFor(exchange, PREFLIGHT, {
          "access-control-allow-methods": exchange.route?.allow ?? allowedAnywhere(routes),
        }),
      });
  });

/** For a path no route serves: every method some route accepts. */
const allowedAnywhere = (routes: RouteTable) => allowHeader(routes.all().flatMap((route) => [...route.methods]));
