import type { BunRequest } from "bun";
import { Elysia } from "elysia";
import { pathOf, targetOf } from "./request-target";
import type { RouteInfo, RouteTable } from "./route-table";

/** The RateLimit header values of a counted request (docs/api.md, "Rate limits and API keys"). */
interface RateLimitHeaders {
  limit: string;
  remaining: string;
  reset: string;
  policy: string;
}

/**
 * One request and what the app learns about it while answering it: its id, when it started,
 * which route it is for, who the client is, its RateLimit headers. Opened once where the request
 * enters (src/server/entry.ts), handed to every hook and handler on Elysia's context
 * (`exchange`) and to each response builder as an argument. Response builders take the headers
 * from it (`headersFor`) when they construct the Response: merging Elysia's `set.headers` into
 * each response costs more than the route itself.
 */
export interface Exchange {
  /** The request as the app handles it: always with an absolute URL. */
  readonly request: Request;
  /** The request as the server received it: what Bun knows the socket of (`requestIP`, `timeout`). */
  readonly received: Request;
  readonly id: string;
  readonly startedAt: number;
  /** The request line's path and query (no Host): keys cached answers and ETags. */
  readonly target: string;
  /** The registered route serving the request's path (any method), null when none does. */
  readonly route: RouteInfo | null;
  /** Set by the rate limiter when it counted the request. */
  rateLimit?: RateLimitHeaders;
  /** A short non-reversible client tag for logs, set by the rate limiter. */
  client?: string;
  /** Set when absolute URLs go under another origin than the request URL's: the scheme a trusted proxy reported (public-origin.ts). */
  origin?: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The exchange of a request the server received: its id (the client's `X-Request-Id` when it is
 * a plain token, else a new one), its route (resolved here once, unless the caller knows it).
 * A request Bun left with a relative URL (HTTP/1.0 without Host, an empty or invalid Host) is
 * handled under `http://localhost<path>`, so the router, the hooks and the handlers all read
 * the path from the same place; it keeps method, headers and body. An ordinary request costs
 * one character test.
 */
export function openExchange(received: Request, routes: RouteTable, route?: RouteInfo | null): Exchange {
  const request = received.url.charCodeAt(0) === 47 ? absolute(received) : received;
  const incoming = request.headers.get("x-request-id");
  const url = request.url;
  return {
    request,
    received,
    id: incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID(),
    startedAt: performance.now(),
    target: targetOf(url),
    route: route === undefined ? routes.resolve(pathOf(url)) : route,
  };
}

function absolute(received: Request): Request {
  const request = new Request(`http://localhost${received.url}`, received);
  // A route Bun's router matched reads its path parameters from the request it is given.
  const params = (received as Partial<BunRequest>).params;
  if (params !== undefined) Object.assign(request, { params });
  return request;
}

/** Each exchange Elysia handles, from the entry (`toElysia`) to the first request hook (`exchanges`). */
const opened = new WeakMap<Request, Exchange>();

/**
 * The request to hand to Elysia's fetch for an exchange. Elysia's fetch takes the request alone,
 * so the exchange is left here, keyed by its request, for the `exchanges` hook to take.
 */
export function toElysia(exchange: Exchange): Request {
  opened.set(exchange.request, exchange);
  return exchange.request;
}

/**
 * Puts each request's exchange on Elysia's context as `exchange`, for every hook, handler and
 * the error handler: the app's first request hook, and the one place the exchange left by
 * `toElysia` is looked up. A feature `.use()`s it to have `exchange` in its handlers' type; it
 * is registered once (it has a name).
 */
export const exchanges = new Elysia({ name: "exchange" })
  .decorate("exchange", undefined as unknown as Exchange)
  .onRequest((context) => {
    context.exchange = opened.get(context.request)!;
  });

const EXPOSED =
  "ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After, Content-Disposition, Allow, Link";

/** What every response carries, whatever the request: CORS for any origin, and nosniff. */
const EVERY_RESPONSE = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED,
  "x-content-type-options": "nosniff",
};

/**
 * The fixed headers of one kind of response (every response's own, plus `fixed`), built once:
 * `headersFor` copies a template, which costs a fraction of building the same headers from an
 * object on every request.
 */
export const headerTemplate = (fixed: Record<string, string> = {}): Headers =>
  new Headers({ ...EVERY_RESPONSE, ...fixed });

const BARE = headerTemplate();

/**
 * The headers of the response to an exchange: a copy of `template`, the request id and
 * RateLimit headers, then `extra`. Each call returns a new object the caller may change.
 */
export function headersFor(exchange: Exchange, template: Headers = BARE, extra?: Record<string, string>): Headers {
  const headers = new Headers(template);
  headers.set("x-request-id", exchange.id);
  const rateLimit = exchange.rateLimit;
  if (rateLimit !== undefined) {
    headers.set("ratelimit-limit", rateLimit.limit);
    headers.set("ratelimit-remaining", rateLimit.remaining);
    headers.set("ratelimit-reset", rateLimit.reset);
    headers.set("ratelimit-policy", rateLimit.policy);
  }
  if (extra !== undefined) for (const name in extra) headers.set(name, extra[name]!);
  return headers;
}
