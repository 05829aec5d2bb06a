import { Elysia } from "elysia";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "Authorization, X-API-Key, If-None-Match, X-Request-Id",
  "access-control-max-age": "86400",
};

/** Headers on every response: request id (accepted or generated), CORS, nosniff; CORS preflights answered here. */
export const headersPlugin = (requestIds: WeakMap<Request, string>) =>
  new Elysia({ name: "headers" }).onRequest(({ request, set }) => {
    const incoming = request.headers.get("x-request-id");
    const requestId = incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    requestIds.set(request, requestId);
    set.headers["x-request-id"] = requestId;
    set.headers["access-control-allow-origin"] = "*";
    set.headers["access-control-expose-headers"] = "ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After";
    set.headers["x-content-type-options"] = "nosniff";
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: PREFLIGHT_HEADERS });
  });
