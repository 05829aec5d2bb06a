import { type DocumentDecoration, Elysia } from "elysia";

/**
 * Route options, declared with the `routeOptions` macro (use it in the plugin, then pass the
 * option on the route or on a guard around routes made by another plugin):
 *
 *   new Elysia().use(routeOptions).get("/health", handler, { rateLimit: false })
 *   new Elysia().use(routeOptions).guard({ rateLimit: false }, (app) => app.use(somePlugin))
 *
 * `rateLimit: false`: not counted by the rate limiter, no RateLimit headers (liveness, docs,
 * metrics, static assets). Every other route, and every path no route serves, is counted. The
 * macro records the option in the route's OpenAPI `detail` as `x-rate-limited: false` (Elysia
 * keeps `detail` on every route; unknown hook keys are dropped once the app has global hooks),
 * so the OpenAPI document says it too; the route table reads it back (`RouteInfo.rateLimited`,
 * `RouteInfo.entrySegment`).
 */
export const RATE_LIMITED = "x-rate-limited";

/**
 * `rateLimit: "per-entry"`: the route is one part of an entry (its `:id`), and the parts of one
 * entry a client asks for in a window are counted as the one request a person's look at that
 * entry is (src/server/rate-limit/plugin.ts, docs/api.md "Rate limits and API keys").
 */
export const PER_ENTRY = "per-entry";

export const routeOptions = new Elysia().macro({
  rateLimit: (counted: boolean | typeof PER_ENTRY) => ({ detail: { [RATE_LIMITED]: counted } as DocumentDecoration }),
});
