import type { DatasetSnapshot } from "../directory/snapshot";
import { encodedBody, negotiateEncoding } from "./compression";
import { datasetEtag, matchesIfNoneMatch } from "./conditional";
import { JSON_CONTENT_TYPE } from "./json";
import { headersFor } from "./request-context";

/** The dataset changes about daily: let clients and proxies reuse answers for a few minutes, then revalidate. */
const CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=60";

/**
 * A 200 data response with the dataset ETag (compressed when the client accepts it), or a
 * bodiless 304 when the client already has this version.
 */
export function dataResponse(request: Request, snapshot: DatasetSnapshot, body: () => string): Response {
  const etag = datasetEtag(snapshot.version, snapshot.stats.lastUpdated, request.url);
  const headers = headersFor(request, { etag, "cache-control": CACHE_CONTROL, vary: "Accept-Encoding" });
  if (matchesIfNoneMatch(request, etag)) return new Response(null, { status: 304, headers });
  const { bytes, encoding } = encodedBody(snapshot.bodies, request.url, negotiateEncoding(request), body);
  headers["content-type"] = JSON_CONTENT_TYPE;
  if (encoding) headers["content-encoding"] = encoding;
  return new Response(bytes, { status: 200, headers });
}

export const successBody = (data: unknown) => JSON.stringify({ success: true, data });
