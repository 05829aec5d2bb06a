import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { absoluteKey, dataResponse, FHIR_CONTENT_TYPE } from "../http/answers";
import { contextOf, headersFor, headerTemplate } from "../http/request-context";
import { targetOf } from "../http/request-target";
import { NOT_MODIFIED } from "../http/schemas";
import { searchBundle } from "./bundle";
import { capabilityStatement, ownSearchParameter } from "./capability";
import { type FhirIndex, fhirIndexOf } from "./fhir-index";
import { checkAccept, checkFormat, formatInQuery } from "./negotiate";
import { FhirError, notFound, operationOutcome } from "./outcome";
import { endpointResource, organizationResource } from "./resources";
import {
  FhirResource,
  FormatQuery,
  OperationOutcome,
  ReadParams,
  SearchsetBundle,
  searchForm,
  searchQuery,
  TypeIdParams,
  TypeParams,
} from "./schemas";
import { pairsOf, parseSearch, type ResourceType } from "./search-params";
import { runSearch } from "./service";

const OUTCOME = headerTemplate({ "content-type": FHIR_CONTENT_TYPE });
/**
 * What every /fhir operation may answer besides its 200: a bad request, an unknown API key,
 * another method, no acceptable format, an expired page link, the rate limit, a fault (the
 * OpenAPI document describes each, src/server/docs/openapi.ts). Reads add 404; POSTs 413.
 */
const ERRORS = {
  400: OperationOutcome,
  401: OperationOutcome,
  405: OperationOutcome,
  406: OperationOutcome,
  410: OperationOutcome,
  429: OperationOutcome,
  500: OperationOutcome,
};
const READ_ERRORS = { ...ERRORS, 404: OperationOutcome };
const POST_ERRORS = { ...ERRORS, 413: OperationOutcome };
/** A GET answers 304 to a matching If-None-Match. */
const CONDITIONAL = { 304: NOT_MODIFIED };
/**
 * The catch-alls for types not served never succeed: every answer is an OperationOutcome (the
 * document's `default`, since OpenAPI wants a success or a default).
 */
const REFUSALS = { ...READ_ERRORS, default: OperationOutcome };
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

/**
 * The answer to a /fhir request, through the one response path (http/answers.ts, family
 * "fhir"): 200 with the built body (FHIR JSON, an ETag and Last-Modified per dataset version,
 * origin and request target, compressed when accepted and large), 304 when the client has it,
 * or the OperationOutcome of a FhirError. GET answers are kept per URL for the version (not
 * under `Prefer: handling=strict`, which may answer the same URL otherwise) and served before
 * routing next time (bypass/kept-answers.ts).
 */
function answer(
  request: Request,
  directory: Directory,
  build: (context: Context) => string,
  options: { form?: [string, string][]; keep?: boolean } = {},
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
  { form = [], keep = true }: { form?: [string, string][]; keep?: boolean },
): Response {
  const strict = strictOf(request);
  const get = request.method === "GET" || request.method === "HEAD";
  const body = () => {
    const url = request.url;
    const query = url.indexOf("?");
    const pairs = query === -1 ? [] : pairsOf(url.slice(query + 1));
    pairs.push(...form);
    const key = absoluteKey(request);
    const origin = key.slice(0, key.length - (contextOf(request)?.target ?? targetOf(url)).length);
    return build({ index, base: `${origin}/fhir`, pairs, strict });
  };
  try {
    checkAccept(
      request,
      formatInQuery(request.url) || form.some(([name, value]) => name === "_format" && value !== ""),
    );
    return dataResponse(request, snapshot, body, { family: "fhir", keep: get && keep && !strict });
  } catch (error) {
    if (!(error instanceof FhirError)) throw error;
    return new Response(operationOutcome(error.code, error.message), {
      status: error.status,
      headers: headersFor(request, OUTCOME),
    });
  }
}

/** Reads and metadata take `_format` only; other parameters are ignored unless strict. */
function checkPlain({ pairs, strict }: Context) {
  for (const [name, value] of pairs) {
    if (name === "_format") {
      if (value !== "") checkFormat(value);
    } else if (strict && value !== "") throw new FhirError(400, "not-supported", `${name}: unknown parameter`);
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
  operationId: `search${type}${method === "POST" ? "ByPost" : ""}`,
  tags: TAGS,
  ...(method === "GET" ? { responses: CONDITIONAL } : {}),
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
            (value === undefined ? [] : Array.isArray(value) ? value : [value]).map((one): [string, string] => [
              name,
              one,
            ]),
          ),
          keep: false,
        }),
      {
        parse: "urlencoded",
        body: searchForm(type),
        response: { 200: SearchsetBundle, ...POST_ERRORS },
        detail: searchDetail(type, "POST"),
      },
    )
    .get(`/${type}/:id`, ({ request, params }) => answer(request, directory, read(type, params.id), { keep: false }), {
      params: ReadParams,
      query: FormatQuery,
      response: { 200: FhirResource, ...READ_ERRORS },
      detail: {
        summary: `Read ${type} (FHIR R4)`,
        description: "Unknown ids, and ids of removed entries, are 404 with an OperationOutcome.",
        operationId: `read${type}`,
        tags: TAGS,
        responses: CONDITIONAL,
      },
    });

/** The FHIR R4 face of the directory at `/fhir` (docs/api.md, "FHIR"). */
export const fhirRoutes = (directory: Directory, software: { name: string; version: string }) => {
  const app = new Elysia({ name: "fhir", prefix: "/fhir", normalize: false })
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
          operationId: "fhirCapabilities",
          tags: TAGS,
          responses: CONDITIONAL,
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
        response: { 200: FhirResource, ...READ_ERRORS },
        detail: {
          summary: "Read one of our own SearchParameters",
          operationId: "readSearchParameter",
          tags: TAGS,
          responses: CONDITIONAL,
        },
      },
    )
    .get("/:type", ({ request, params }) => answer(request, directory, unsupported(params.type)), {
      params: TypeParams,
      response: REFUSALS,
      detail: {
        summary: "Any other resource type: 404 OperationOutcome",
        description:
          "This server serves Endpoint and Organization only (see /fhir/metadata): a search of any other type, by GET or by `POST /fhir/{type}/_search`, is a 404 OperationOutcome (`not-found`).",
        operationId: "searchOtherType",
        tags: TAGS,
      },
    })
    .post("/:type/_search", ({ request, params }) => answer(request, directory, unsupported(params.type)), {
      params: TypeParams,
      parse: "none",
      response: REFUSALS,
      // Left out of the document: beside /fhir/Endpoint/{id} its path would be ambiguous (OpenAPI
      // tools cannot tell them apart); GET /fhir/{type} says it is answered the same.
      detail: { hide: true },
    })
    .get("/:type/:id", ({ request, params }) => answer(request, directory, unsupported(params.type)), {
      params: TypeIdParams,
      response: REFUSALS,
      detail: { summary: "Any other resource type: 404 OperationOutcome", operationId: "readOtherType", tags: TAGS },
    });
};
