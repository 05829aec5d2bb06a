import type { DatasetSnapshot } from "../directory/snapshot";
import { type Body, compress, type Encoding, isSmall, negotiateEncoding } from "./compression";
import { datasetEtag, matchesIfNoneMatch } from "./conditional";
import { JSON_CONTENT_TYPE } from "./json";
import { contextOf, headersFor, headerTemplate } from "./request-context";
import { answersOf, type CachedAnswer } from "./response-cache";
import { targetOf } from "./routes";

/**
 * What every answer with a dataset ETag carries (data responses, exports, their 304s): the
 * dataset changes about daily, so clients and proxies may reuse it for a few minutes, then
 * revalidate; its body may be compressed.
 */
const REVALIDATED = {
  "cache-control": "public, max-age=300, stale-while-revalidate=60",
  vary: "Accept-Encoding",
};
export const DATASET_ANSWER = headerTemplate(REVALIDATED);
const DATA = headerTemplate({ ...REVALIDATED, "content-type": JSON_CONTENT_TYPE });

/** The 200 (or bodiless 304) for a body, its ETag and the encoding chosen for this client. */
function respond(request: Request, etag: string, body: Blob | Body, encoding: Encoding | null): Response {
  if (matchesIfNoneMatch(request, etag))
    return new Response(null, { status: 304, headers: headersFor(request, DATASET_ANSWER, { etag }) });
  const headers = headersFor(request, DATA, { etag });
  if (encoding) headers.set("content-encoding", encoding);
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
 * before routing by `cachedResponse`.
 */
export function dataResponse(
  request: Request,
  snapshot: DatasetSnapshot,
  body: () => Body,
  { cached = true } = {},
): Response {
  if (!cached) {
    const text = body();
    const encoding = encodingFor(request, text);
    return respond(request, etagOf(request, snapshot), encoding === null ? text : compress(text, encoding), encoding);
  }
  const answers = answersOf(snapshot);
  const target = requestTarget(request);
  let text: Body | undefined;
  let answer = answers.get(target);
  if (answer === undefined) {
    text = body();
    answer = { etag: etagOf(request, snapshot), plain: new Blob([text]), encoded: {} };
    answers.set(target, answer);
  }
  const encoding = encodingFor(request, answer.plain);
  if (encoding !== null && answer.encoded[encoding] === undefined) {
    // A new answer object, not a changed one: the cache weighs an entry when it is stored.
    answer = { ...answer, encoded: { ...answer.encoded, [encoding]: compress(text ?? body(), encoding) } };
    answers.set(target, answer);
  }
  return respond(request, answer.etag, bodyOf(answer, encoding), encoding);
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
  return respond(request, answer.etag, bodyOf(answer, encoding), encoding);
}

/** Path and query as the request line has them: the cache key and what the ETag hashes. */
const requestTarget = (request: Request) => contextOf(request)?.target ?? targetOf(request.url);

const bodyOf = (answer: CachedAnswer, encoding: Encoding | null) =>
  encoding === null ? answer.plain : answer.encoded[encoding]!;

const etagOf = (request: Request, snapshot: DatasetSnapshot) =>
  datasetEtag(snapshot.version, snapshot.stats.lastUpdated, requestTarget(request));

export const successBody = (data: unknown) => JSON.stringify({ success: true, data });
