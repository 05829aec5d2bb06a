import type { DatasetSnapshot } from "../directory/snapshot";
import { BodyCache, negotiateEncoding, type Body } from "./compression";
import { datasetEtag, matchesIfNoneMatch } from "./conditional";
import { JSON_CONTENT_TYPE } from "./json";
import { headersFor } from "./request-context";

/** Bodies already sent, per dataset version: dropped with the version. */
const bodiesByVersion = new WeakMap<DatasetSnapshot, BodyCache>();
const CACHED_BODIES = 1_000;
const CACHED_BYTES = 64 * 1024 * 1024;

function bodiesOf(snapshot: DatasetSnapshot) {
  let bodies = bodiesByVersion.get(snapshot);
  if (bodies === undefined) bodiesByVersion.set(snapshot, (bodies = new BodyCache(CACHED_BODIES, CACHED_BYTES)));
  return bodies;
}

/** The dataset changes about daily: let clients and proxies reuse answers for a few minutes, then revalidate. */
const CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=60";

/**
 * A 200 data response with the dataset ETag (compressed when the client accepts it), or a
 * bodiless 304 when the client already has this version. `body` builds the JSON and may throw
 * a validation error; it runs only when this URL's body is not cached (`cached: false` builds
 * it every time: for small records read at random), and always before a 304 (so
 * `If-None-Match: *` never turns a bad request into a 304).
 */
export function dataResponse(request: Request, snapshot: DatasetSnapshot, body: () => Body, { cached = true } = {}): Response {
  const bodies = bodiesOf(snapshot);
  const plain = cached ? bodies.plain(request.url, body) : body();
  const etag = datasetEtag(snapshot.version, snapshot.stats.lastUpdated, request.url);
  const headers = headersFor(request, { etag, "cache-control": CACHE_CONTROL, vary: "Accept-Encoding" });
  if (matchesIfNoneMatch(request, etag)) return new Response(null, { status: 304, headers });
  const { body: sent, encoding } = bodies.encoded(request.url, plain, negotiateEncoding(request), body);
  headers["content-type"] = JSON_CONTENT_TYPE;
  if (encoding) headers["content-encoding"] = encoding;
  return new Response(sent, { status: 200, headers });
}

export const successBody = (data: unknown) => JSON.stringify({ success: true, data });
