import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { DATASET_ANSWER_HEADERS } from "../fast-lane/data-response";
import { compress, type Encoding, isSmall, negotiateEncoding } from "../http/compression";
import { datasetEtag, matchesIfNoneMatch } from "../http/conditional";
import { contextOf, headersFor, headerTemplate } from "../http/request-context";
import { pathOf, targetOf } from "../http/request-target";
import type { RequestObserver } from "../observability/plugin";
import { searchBundle } from "./bundle";
import { capabilityStatement, ownSearchParameter } from "./capability";
import { builtFhirIndexOf, type FhirAnswer, type FhirIndex, fhirIndexOf } from "./fhir-index";
import { FhirError, notFound, operationOutcome } from "./outcome";
import { endpointResource, organizationResource } from "./resources";
import {
  FhirResource,
  FormatQuery,
  FormBody,
  OperationOutcome,
  ReadParams,
  SearchsetBundle,
  searchQuery,
  TypeIdParams,
  TypeParams,
} from "./schemas";
import { checkFormat, pairsOf, parseSearch, type ResourceType } from "./search-params";
import { runSearch } from "./service";

const FHIR_CONTENT_TYPE = "application/fhir+json; fhirVersion=4.0";
const DATA = new Headers(DATASET_ANSWER_HEADERS);
DATA.set("content-type", FHIR_CONTENT_TYPE);
const OUTCOME = headerTemplate({ "content-type": FHIR_CONTENT_TYPE });
const ERRORS = { 400: OperationOutcome, 404: OperationOutcome, 406: OperationOutcome, 410: OperationOutcome };
const TAGS = ["FHIR"];

/** What a handler knows about the request: the FHIR index of the served version, and the absolute base `<origin>/fhir`. */
interface Context {
  index: FhirIndex;
  base: string;
  /** The query and form parameters, in order. */
  pairs: [string, string][];
  strict: boolean;
}

/** Whether the client asked for unknown parameters to be rejected (`Prefer: handling=strict`). */
const strictOf = (request: Request) => /\bhandling\s*=\s*strict\b/i.test(request.headers.get("prefer") ?? "");

/** The absolute URL a GET answer is kept under: origin and request line, both in the body's links. */
const keyOf = (request: Request) => {
  const url = request.url;
  const context = contextOf(request);
  const target = context?.target ?? targetOf(url);
  if (context?.origin !== undefined) return `${context.origin}${target}`;
  return url.endsWith(target) ? url : `${new URL(url).origin}${target}`;
};

/** The 200 of a built answer (in `encoding`, which it has), or a 304 when the client has it. */
function respond(request: Request, answer: FhirAnswer, encoding: Encoding | null, get: boolean): Response {
  if (get && matchesIfNoneMatch(request, answer.etag))
    return new Response(null, {
      status: 304,
      headers: headersFor(request, DATASET_ANSWER_HEADERS, { etag: answer.etag }),
    });
  const headers = headersFor(request, DATA, get ? { etag: answer.etag } : undefined);
  if (encoding !== null) headers.set("content-encoding", encoding);
  const body = encoding === null ? answer.plain : answer.encoded[encoding]!;
  return new Response(body, { status: 200, headers });
}

/**
 * The answer to a /fhir request: 200 with the built body (FHIR JSON, an ETag per dataset
 * version, origin and request target, compressed when accepted and large), 304 when the client
 * has it, or the OperationOutcome of a FhirError. GET answers are kept per URL for the version
 * (not under `Prefer: handling=strict`, which may answer the same URL otherwise) and served
 * before routing next time (`cachedFhirAnswers`).
 */
function answer(
  request: Request,
  directory: Directory,
  build: (context: Context) => string,
  options: { form?: [string, string][]; cache?: boolean } = {},
): Response | Promise<Response> {
  const snapshot = directory.current;
  const index = fhirIndexOf(snapshot);
  // The first request of a version waits for its index (built in steps; others are answered meanwhile).
  return index instanceof Promise
    ? index.then((built) => answerFrom(request, snapshot, built, build, options))
    : answerFrom(request, snapshot, index, build, options);
}

function answerFrom(
  request: Request,
  snapshot: DatasetSnapshot,
  index: FhirIndex,
  build: (context: Context) => string,
  { form = [], cache = true }: { form?: [string, string][]; cache?: boolean },
): Response {
  try {
    const key = keyOf(request);
    const strict = strictOf(request);
    const get = request.method === "GET" || request.method === "HEAD";
    const kept = get && cache && !strict;
    let built = kept ? index.answers.get(key) : undefined;
    let text: string | undefined;
    const body = () => {
      const url = request.url;
      const query = url.indexOf("?");
      const pairs = query === -1 ? [] : pairsOf(url.slice(query + 1));
      pairs.push(...form);
      const origin = key.slice(0, key.length - (contextOf(request)?.target ?? targetOf(url)).length);
      return build({ index, base: `${origin}/fhir`, pairs, strict });
    };
    if (built === undefined) {
      text = body();
      built = {
        etag: datasetEtag(snapshot.version, snapshot.stats.lastUpdated, key),
        plain: new Blob([text]),
        encoded: {},
      };
      if (kept) index.answers.set(key, built);
    }
    const encoding = isSmall(built.plain) ? null : negotiateEncoding(request);
    if (encoding !== null && built.encoded[encoding] === undefined) {
      // A new answer object, not a changed one: the cache weighs an entry when it is stored.
      built = { ...built, encoded: { ...built.encoded, [encoding]: compress(text ?? body(), encoding) } };
      if (kept) index.answers.set(key, built);
    }
    return respond(request, built, encoding, get);
  } catch (error) {
    if (!(error instanceof FhirError)) throw error;
    return new Response(operationOutcome(error.code, error.message), {
      status: error.status,
      headers: headersFor(request, OUTCOME),
    });
  }
}

/**
 * Answers a repeated GET of a /fhir URL from the answer already built for the current dataset
 * version, before routing and the handler (as `cachedResponses` does for the JSON API): counted
 * by the rate limiter (registered after it), logged and measured here, and returned at once (a
 * pipelined request must be answered in order, without waiting).
 */
const cachedFhirAnswers = (directory: Directory, observe: RequestObserver) =>
  new Elysia({ name: "fhir-cached-answers" }).onRequest(({ request }) => {
    if (request.method !== "GET" || !pathOf(request.url).startsWith("/fhir/")) return;
    if (request.headers.get("prefer") !== null) return;
    const index = builtFhirIndexOf(directory.current);
    const answer = index?.answers.get(keyOf(request));
    if (answer === undefined) return;
    const encoding = isSmall(answer.plain) ? null : negotiateEncoding(request);
    if (encoding !== null && answer.encoded[encoding] === undefined) return;
    const response = respond(request, answer, encoding, true);
    observe(request, response.status);
    return response;
  });

/** Reads and metadata take `_format` only; other parameters are ignored unless strict. */
function checkPlain({ pairs, strict }: Context) {
  for (const [name, value] of pairs) {
    if (name === "_format") checkFormat(value);
    else if (strict && value !== "") throw new FhirError(400, "not-supported", `${name}: unknown parameter`);
  }
}

const search = (type: ResourceType) => (context: Context) => {
  const request = parseSearch(type, context.pairs, context.strict);
  return searchBundle(context.base, context.index, request, runSearch(context.index, request));
};

const read = (type: ResourceType, id: string) => (context: Context) => {
  checkPlain(context);
  const { index } = context;
  if (type === "Endpoint") {
    const e = index.findEndpoint(id);
    if (e === -1) throw notFound(`No Endpoint has the id "${id.slice(0, 80)}" (removed endpoints are not served)`);
    return JSON.stringify(endpointResource(index, e));
  }
  const p = index.findOrganization(id);
  if (p === -1) throw notFound(`No Organization has the id "${id.slice(0, 80)}" (removed entries are not served)`);
  return JSON.stringify(organizationResource(index, p));
};

const unsupported = (type: string) => () => {
  throw notFound(
    `Resource type "${type.slice(0, 64)}" is not served here; this server serves Endpoint and Organization (see /fhir/metadata)`,
  );
};

const searchDetail = (type: ResourceType, method: string) => ({
  summary: `Search ${type} (FHIR R4${method === "POST" ? ", form body" : ""})`,
  description:
    "A searchset Bundle with absolute links and fullUrls. Unknown parameters are ignored (and left out of the self link) unless `Prefer: handling=strict`; bad values are 400, an expired page link 410, each with an OperationOutcome. See docs/api.md, FHIR.",
  tags: TAGS,
});

/** Search (GET and POST) and read of one resource type. */
const resourceRoutes = (directory: Directory, type: ResourceType) =>
  new Elysia({ name: `fhir-${type}`, normalize: false })
    .get(`/${type}`, ({ request }) => answer(request, directory, search(type)), {
      query: searchQuery(type),
      response: { 200: SearchsetBundle, ...ERRORS },
      detail: searchDetail(type, "GET"),
    })
    .post(
      `/${type}/_search`,
      ({ request, body }) =>
        answer(request, directory, search(type), {
          form: Object.entries(body).flatMap(([name, value]) =>
            (Array.isArray(value) ? value : [value]).map((one): [string, string] => [name, one]),
          ),
          cache: false,
        }),
      {
        parse: "urlencoded",
        body: FormBody,
        response: { 200: SearchsetBundle, ...ERRORS },
        detail: searchDetail(type, "POST"),
      },
    )
    .get(`/${type}/:id`, ({ request, params }) => answer(request, directory, read(type, params.id), { cache: false }), {
      params: ReadParams,
      query: FormatQuery,
      response: { 200: FhirResource, ...ERRORS },
      detail: {
        summary: `Read ${type} (FHIR R4)`,
        description: "Unknown ids, and ids of removed entries, are 404 with an OperationOutcome.",
        tags: TAGS,
      },
    });

/** The FHIR R4 face of the directory at `/fhir` (docs/api.md, "FHIR"). */
export const fhirRoutes = (
  directory: Directory,
  software: { name: string; version: string },
  observe: RequestObserver,
) => {
  const app = new Elysia({ name: "fhir", prefix: "/fhir", normalize: false })
    .use(cachedFhirAnswers(directory, observe))
    .use(resourceRoutes(directory, "Endpoint"))
    .use(resourceRoutes(directory, "Organization"))
    .get(
      "/metadata",
      ({ request }) =>
        answer(request, directory, (context) => {
          checkPlain(context);
          const date = context.index.lastUpdated ?? new Date(0).toISOString();
          return JSON.stringify(capabilityStatement(context.base, software, date));
        }),
      {
        query: FormatQuery,
        response: { 200: FhirResource, ...ERRORS },
        detail: {
          summary: "FHIR CapabilityStatement",
          description: "What /fhir serves: kind instance, FHIR 4.0.1, JSON.",
          tags: TAGS,
        },
      },
    );
  return app
    .get(
      "/SearchParameter/:id",
      ({ request, params }) =>
        answer(request, directory, (context) => {
          checkPlain(context);
          const parameter = ownSearchParameter(context.base, params.id);
          if (parameter === null) throw notFound(`No SearchParameter of ours has the id "${params.id.slice(0, 80)}"`);
          return JSON.stringify(parameter);
        }),
      {
        params: ReadParams,
        query: FormatQuery,
        response: { 200: FhirResource, ...ERRORS },
        detail: { summary: "Read one of our own SearchParameters", tags: TAGS },
      },
    )
    .get("/:type", ({ request, params }) => answer(request, directory, unsupported(params.type)), {
      params: TypeParams,
      response: { 404: OperationOutcome },
      detail: { summary: "Any other resource type: 404 OperationOutcome", tags: TAGS },
    })
    .post("/:type/_search", ({ request, params }) => answer(request, directory, unsupported(params.type)), {
      params: TypeParams,
      parse: "none",
      response: { 404: OperationOutcome },
      detail: { summary: "Any other resource type: 404 OperationOutcome", tags: TAGS },
    })
    .get("/:type/:id", ({ request, params }) => answer(request, directory, unsupported(params.type)), {
      params: TypeIdParams,
      response: { 404: OperationOutcome },
      detail: { summary: "Any other resource type: 404 OperationOutcome", tags: TAGS },
    });
};
