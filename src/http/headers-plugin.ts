import { Elysia } from "elysia";
import { openContext } from "./request-context";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "Authorization, X-API-Key, If-None-Match, X-Request-Id",
  "access-control-max-age": "86400",
};
const EXPOSED =
  "ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After";

/** Opens each request's context: request id (accepted or generated), CORS, nosniff; answers CORS preflights. */
export const headersPlugin = () =>
  new Elysia({ name: "headers" }).onRequest(({ request }) => {
    const incoming = request.headers.get("x-request-id");
    const id = incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    const headers = {
      "x-request-id": id,
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSED,
      "x-content-type-options": "nosniff",
    };
    openContext(request, { id, startedAt: performance.now(), headers });
    if (request.method === "OPTIONS")
      return new Response(null, { status: 204, headers: { ...headers, ...PREFLIGHT_HEADERS } });
  });
