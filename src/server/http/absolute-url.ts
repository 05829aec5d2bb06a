import { Elysia } from "elysia";

/**
 * A request whose URL Bun left relative (HTTP/1.0 without Host, an empty or invalid Host) is
 * handled again under an absolute URL, so the router, the hooks and the handlers all read the
 * path from the same place. The new request keeps method, headers and body; `originalOf` gives
 * back the one the server received (for its socket address). Ordinary requests cost one
 * character test.
 */
const originals = new WeakMap<Request, Request>();

export const originalOf = (request: Request): Request => originals.get(request) ?? request;

export const absoluteUrls = (handle: (request: Request) => Promise<Response>) =>
  new Elysia({ name: "absolute-urls" }).onRequest(({ request }) => {
    if (request.url.charCodeAt(0) !== 47) return;
    const absolute = new Request(`http://localhost${request.url}`, request);
    originals.set(absolute, request);
    return handle(absolute);
  });
