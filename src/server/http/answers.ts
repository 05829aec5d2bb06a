import { Lru } from "../../directory/lru";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { type Body, compress, type Encoding, isSmall, negotiateEncoding } from "./compression";
import { datasetEtag, httpDate, notModified } from "./conditional";
import { type Exchange, headersFor, headerTemplate } from "./exchange";
import { JSON_CONTENT_TYPE } from "./json";

/**
 * The one response path of every data answer: the JSON API's lists, records, vendors, stats and
 * changes, and FHIR's searches and reads. An answer is built once per dataset version and URL,
 * kept (per route family, bounded by count and bytes, dropped with its version), sent compressed
 * when the client accepts it and it is large, and answered 304 when the client already has this
 * version (one conditional rule, conditional.ts). The export's headers come from here too.
 */

/** A route family: its answers' content type and how many of them a version keeps. */
interface Family {
  /** The headers of a 200 of the family (DATA below, with the family's content type). */
  headers: Headers;
  /** The cache key, and what the ETag hashes, of a request. */
  key: (exchange: Exchange) => string;
  entries: number;
  bytes: number;
}

/** One answer as built for a dataset version: enough to answer the same URL again. */
interface KeptAnswer {
  etag: string;
  plain: Blob;
  /** Headers of this answer's own (the list's Link), set by the body's builder. */
  headers?: Record<string, string>;
  /** Compressed forms, added as clients ask for them (by storing a new answer). */
  readonly encoded: Readonly<Partial<Record<Encoding, Blob>>>;
}

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
export const FHIR_MEDIA_TYPE = "application/fhir+json";
export const FHIR_CONTENT_TYPE = `${FHIR_MEDIA_TYPE}; fhirVersion=4.0`;

/**
 * The absolute URL of a request: origin and request line. FHIR bodies carry absolute links, so
 * an answer is kept per origin: the one its links are written under (behind a trusted proxy, the
 * scheme it reports; public-origin.ts).
 */
export function absoluteKey({ request, target, origin }: Exchange): string {
  if (origin !== undefined) return `${origin}${target}`;
  const url = request.url;
  return url.endsWith(target) ? url : `${new URL(url).origin}${target}`;
}

export type FamilyName = "api" | "fhir";

const FAMILIES: Record<FamilyName, Family> = {
  api: {
    headers: headerTemplate({ ...REVALIDATED, "content-type": JSON_CONTENT_TYPE }),
    // Path and query as the request line has them.
    key: (exchange) => exchange.target,
    entries: 1_000,
    bytes: 64 * 1024 * 1024,
  },
  fhir: {
    headers: headerTemplate({ ...REVALIDATED, "content-type": FHIR_CONTENT_TYPE }),
    key: absoluteKey,
    entries: 2_000,
    bytes: 32 * 1024 * 1024,
  },
};

/** The family of a path: `/fhir/…` is FHIR's, the rest the JSON API's. */
export const familyOf = (path: string): FamilyName => (path.startsWith("/fhir/") ? "fhir" : "api");

const weigh = (answer: KeptAnswer) =>
  answer.plain.size + (answer.encoded.gzip?.size ?? 0) + (answer.encoded.br?.size ?? 0) + 256;

/** Answers already built, per dataset version (dropped with it), per family, by key. */
const byVersion = new WeakMap<DatasetSnapshot, Partial<Record<FamilyName, Lru<KeptAnswer>>>>();

function answersOf(snapshot: DatasetSnapshot, name: FamilyName): Lru<KeptAnswer> {
  let families = byVersion.get(snapshot);
  if (families === undefined) {
    families = {};
    byVersion.set(snapshot, families);
  }
  const family = FAMILIES[name];
  families[name] ??= new Lru<KeptAnswer>(family.entries, { maxWeight: family.bytes, weigh });
  return families[name];
}

/**
 * The 200 (or bodiless 304) for a body: for GET and HEAD with its ETag and the dataset's refresh
 * time (Last-Modified), for POST without (a search by form is not a resource a cache revalidates);
 * in the encoding chosen for this client, with the answer's own headers.
 */
function respond(
  exchange: Exchange,
  snapshot: DatasetSnapshot,
  family: Family,
  etag: string,
  body: Blob | Body,
  encoding: Encoding | null,
  own?: Record<string, string>,
): Response {
  const request = exchange.request;
  let validators: Record<string, string> | undefined;
  if (request.method === "GET" || request.method === "HEAD") {
    const lastModified = httpDate(snapshot.stats.lastUpdated);
    validators = lastModified === null ? { etag } : { etag, "last-modified": lastModified };
    if (notModified(request, etag, snapshot.stats.lastUpdated))
      return new Response(null, { status: 304, headers: headersFor(exchange, DATASET_ANSWER_HEADERS, validators) });
  }
  const headers = headersFor(exchange, family.headers, validators);
  if (encoding) headers.set("content-encoding", encoding);
  if (own !== undefined) for (const name in own) headers.set(name, own[name]!);
  return new Response(body, { status: 200, headers });
}

/** The encoding to send `plain` in to this client: null when it accepts none or the body is small. */
const encodingFor = (request: Request, plain: Blob | Body) => (isSmall(plain) ? null : negotiateEncoding(request));

export interface AnswerOptions {
  /** The route family (content type, cache); the JSON API's by default. */
  family?: FamilyName;
  /**
   * Keep the answer for the next request of the same URL in this version (the default); false
   * builds it every time (small records read at random; POST searches).
   */
  keep?: boolean;
}

/**
 * A 200 data response with the dataset ETag (compressed when the client accepts it), or a
 * bodiless 304 when the client already has this version. `body` builds the body and may throw
 * (a validation error, FHIR's FhirError); it runs only when this URL has no kept answer, and
 * always before a 304 (so `If-None-Match: *` never turns a bad request into a 304). A kept
 * answer is also served before routing (`keptResponse`). `body` may set headers of the
 * answer's own in `own` (kept with the answer).
 */
export function dataResponse(
  exchange: Exchange,
  snapshot: DatasetSnapshot,
  body: (own: Record<string, string>) => Body,
  { family: name = "api", keep = true }: AnswerOptions = {},
): Response {
  const family = FAMILIES[name];
  const key = family.key(exchange);
  const request = exchange.request;
  const etagOf = () => datasetEtag(snapshot.version, snapshot.stats.lastUpdated, key);
  if (!keep) {
    const own: Record<string, string> = {};
    const text = body(own);
    const encoding = encodingFor(request, text);
    const encoded = encoding === null ? text : compress(text, encoding);
    return respond(exchange, snapshot, family, etagOf(), encoded, encoding, own);
  }
  const answers = answersOf(snapshot, name);
  let text: Body | undefined;
  let answer = answers.get(key);
  if (answer === undefined) {
    const own: Record<string, string> = {};
    text = body(own);
    answer = { etag: etagOf(), plain: new Blob([text]), encoded: {} };
    if (Object.keys(own).length > 0) answer.headers = own;
    answers.set(key, answer);
  }
  const encoding = encodingFor(request, answer.plain);
  if (encoding !== null && answer.encoded[encoding] === undefined) {
    // A new answer object, not a changed one: the cache weighs an entry when it is stored.
    answer = { ...answer, encoded: { ...answer.encoded, [encoding]: compress(text ?? body({}), encoding) } };
    answers.set(key, answer);
  }
  return respond(exchange, snapshot, family, answer.etag, bodyOf(answer, encoding), encoding, answer.headers);
}

/**
 * The response to a GET whose URL already has a kept answer in this dataset version (and, when
 * the client accepts compression, its compressed form); undefined otherwise. Every kept URL has
 * passed validation when it was first built.
 */
export function keptResponse(exchange: Exchange, snapshot: DatasetSnapshot, name: FamilyName): Response | undefined {
  const family = FAMILIES[name];
  const answer = answersOf(snapshot, name).get(family.key(exchange));
  if (answer === undefined) return undefined;
  const encoding = encodingFor(exchange.request, answer.plain);
  if (encoding !== null && answer.encoded[encoding] === undefined) return undefined;
  return respond(exchange, snapshot, family, answer.etag, bodyOf(answer, encoding), encoding, answer.headers);
}

const bodyOf = (answer: KeptAnswer, encoding: Encoding | null) =>
  encoding === null ? answer.plain : answer.encoded[encoding]!;

export const successBody = (data: unknown) => JSON.stringify({ success: true, data });
