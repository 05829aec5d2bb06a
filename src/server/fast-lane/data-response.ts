import type { DatasetSnapshot } from "../../directory/snapshot";
import { type Body, compress, type Encoding, isSmall, negotiateEncoding } from "../http/compression";
import { datasetEtag, httpDate, notModified } from "../http/conditional";
import { JSON_CONTENT_TYPE } from "../http/json";
import { contextOf, headersFor, headerTemplate } from "../http/request-context";
import { targetOf } from "../http/request-target";
import { answersOf, type CachedAnswer } from "./response-cache";

/**
 * What every answer with a dataset ETag carries (data responses, exports, their 304s): the
 * dataset changes about daily, so clients and proxies may reuse it for a few minutes, then
 * revalidate; its body may be compressed.
 */
const REVALIDATED = {
  "cache-control": "public, max-age=300, stale-while-revalidate=60",
  // The answer depends on the key sent (a 401 for a bad one, the key's RateLimit figures): a
  // cache must not give one client's answer to a request with another key.
  vary: "Accept-Encoding, Authorization, X-API-Key",
};
export const DATASET_ANSWER_HEADERS = headerTemplate(REVALIDATED);
const DATA = headerTemplate({ ...REVALIDATED, "content-type": JSON_CONTENT_TYPE });

/**
 * The 200 (or bodiless 304) for a body, its ETag, the dataset's refresh time (Last-Modified),
 * the encoding chosen for this client and the answer's own headers.
 */
function respond(
  request: Request,
  snapshot: DatasetSnapshot,
  etag: string,
  body: Blob | Body,
  encoding: Encoding | null,
  own?: Record<string, string>,
): Response {
  const lastModified = httpDate(snapshot.stats.lastUpdated);
  const validators: Record<string, string> = lastModified === null ? { etag } : { etag, "last-modified": lastModified };
  if (notModified(request, etag, snapshot.stats.lastUpdated))
    return new Response(null, { status: 304, headers: headersFor(request, DATASET_ANSWER_HEADERS, validators) });
  const headers = headersFor(request, DATA, validators);
  if (encoding) headers.set("content-encoding", encoding);
  if (own !== undefined) for (const name in own) headers.set(name, own[name]!);
  return new Response(body, { status: 200, headers });
}

/** The encoding to send `plain` in to this client: null when it accepts none or the body is small. */
const encodingFor = (request: Request, plain: Blob | Body) => (isSmall(plain) ? null : negotiateEncoding(request));

/**
 * A 200 data response with the dataset ETag (compressed when the client accepts it), or a
 * bodiless 304 when the client already has this version. `body` builds the JSON and may throw
 * a validation error; it runs only when this URL has no cached answer (`cached: false` builds
 * it every time: for small records read at random), and always before a 304 (so
 * `If-None-Match: *` never turns a bad request into a 304). A cached answer is also served
 * before routing by `cachedResponse`. `body` may set headers of the answer's own in `own` (kept
 * with the cached answer).
 */
export function dataResponse(
  request: Request,
  snapshot: DatasetSnapshot,
  body: (own: Record<string, string>) => Body,
  { cached = true } = {},
): Response {
  if (!cached) {
    const own: Record<string, string> = {};
    const text = body(own);
    const encoding = encodingFor(request, text);
    const encoded = encoding === null ? text : compress(text, encoding);
    return respond(request, snapshot, etagOf(request, snapshot), encoded, encoding, own);
  }
  const answers = answersOf(snapshot);
  const target = requestTarget(request);
  let text: Body | undefined;
  let answer = answers.get(target);
  if (answer === undefined) {
    const own: Record<string, string> = {};
    text = body(own);
    answer = { etag: etagOf(request, snapshot), plain: new Blob([text]), encoded: {} };
    if (Object.keys(own).length > 0) answer.headers = own;
    answers.set(target, answer);
  }
  const encoding = encodingFor(request, answer.plain);
  if (encoding !== null && answer.encoded[encoding] === undefined) {
    // A new answer object, not a changed one: the cache weighs an entry when it is stored.
    answer = { ...answer, encoded: { ...answer.encoded, [encoding]: compress(text ?? body({}), encoding) } };
    answers.set(target, answer);
  }
  return respond(request, snapshot, answer.etag, bodyOf(answer, encoding), encoding, answer.headers);
}

/**
 * The response to a request whose URL already has a cached answer in this dataset version
 * (and, when the client accepts compression, its compressed form); undefined otherwise. Every
 * cached URL has passed validation when it was first built.
 */
export function cachedResponse(request: Request, snapshot: DatasetSnapshot): Response | undefined {
  const answer = answersOf(snapshot).get(requestTarget(request));
  if (answer === undefined) return undefined;
  const encoding = encodingFor(request, answer.plain);
  if (encoding !== null && answer.encoded[encoding] === undefined) return undefined;
  return respond(request, snapshot, answer.etag, bodyOf(answer, encoding), encoding, answer.headers);
}

/** Path and query as the request line has them: the cache key and what the ETag hashes. */
const requestTarget = (request: Request) => contextOf(request)?.target ?? targetOf(request.url);

const bodyOf = (answer: CachedAnswer, encoding: Encoding | null) =>
  encoding === null ? answer.plain : answer.encoded[encoding]!;

const etagOf = (request: Request, snapshot: DatasetSnapshot) =>
  datasetEtag(snapshot.version, snapshot.stats.lastUpdated, requestTarget(request));

export const successBody = (data: unknown) => JSON.stringify({ success: true, data });
