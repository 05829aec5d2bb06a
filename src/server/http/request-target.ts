/**
 * The path of a request, taken from `request.url` exactly where Elysia's router takes it: the
 * app runs with `handler.standardHostname: false`, so Elysia reads the path from the first `/`
 * after `http://` (whatever the Host's length); a relative URL is made absolute first
 * (`openExchange`, exchange.ts). `targetOf` (path and query) keys cached answers and ETags:
 * never the Host.
 */
/** Where the path starts in a request URL, as Elysia's router reads it (standardHostname: false). */
const pathStart = (url: string) => (url.charCodeAt(0) === 47 ? 0 : url.indexOf("/", 7));

/** The path of a request URL (without the query), as the router routes it. */
export function pathOf(url: string): string {
  const start = pathStart(url);
  if (start === -1) return "/";
  const query = url.indexOf("?", start + 1);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}

/** Path and query of a request URL: what the client asked for, without the Host. */
export function targetOf(url: string): string {
  const start = pathStart(url);
  return start === -1 ? "/" : url.slice(start);
}
