import type { DatasetSnapshot } from "../directory/snapshot";
import { datasetEtag, matchesIfNoneMatch } from "./conditional";
import { jsonResponse } from "./json";

/** A 200 data response with the dataset ETag, or a bodiless 304 when the client already has it. */
export function dataResponse(request: Request, snapshot: DatasetSnapshot, body: () => string): Response {
  const etag = datasetEtag(snapshot.version, request.url);
  const headers = { etag, "cache-control": "public, max-age=300" };
  if (matchesIfNoneMatch(request, etag)) return new Response(null, { status: 304, headers });
  return jsonResponse(200, body(), headers);
}

export const successBody = (data: unknown) => JSON.stringify({ success: true, data });
