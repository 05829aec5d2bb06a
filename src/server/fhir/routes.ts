import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { REQUEST_CAPS, WORK } from "../../model/request-caps";
import { absoluteKey, dataResponse, keptResponse } from "../http/answers";
import { type Exchange, exchanges } from "../http/exchange";
import { FhirError, outcomeResponse } from "../http/operation-outcome";
import { NOT_MODIFIED } from "../http/schemas";
import { capabilityStatement, ownSearchParameter } from "./capability";
import { type FhirIndex, fhirIndexOf } from "./fhir-index";
import { checkAccept, checkFormat, formatInQuery, servableFromKept } from "./negotiate";
import { invalid, notFound } from "./outcome";
import { endpointResource, organizationResource } from "./resources";
import {
  CapabilityStatement,
  FhirApiEndpoint,
  FhirApiOrganization,
  FormatQuery,
  OperationOutcome,
  OtherTypeForm,
  ReadParams,
  SearchParameter,
  SearchsetBundle,
  searchForm,
  searchQuery,
  TypeIdParams,
  TypeParams,
} from "./schemas";
import { criteriaSteps, runSearch, substringSteps } from "./search";
import { checkSearchCost, searchCost } from "./search-cost";
import { pairsOf, parseSearch, type ResourceType, type SearchRequest } from "./search-params";
import { searchBundle } from "./searchset-bundle";
import { Turns } from "./turns";

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
interface AnswerOptions {
  /** The parameters of a POSTed form body. */
  form?: [string, string][];
  /** Whether a GET answer is kept for the version (default true). */
  keep?: boolean;
}

/**
 * `build` makes the body from the request's context; a search names its resource type instead,
 * and its costly parts run first, as `inSteps` says.
 */
function answer(
  exchange: Exchange,
  directory: Directory,
  build: ((context: Context) => string) | ResourceType,
  options: AnswerOptions = {},
): Response | Promise<Response> {
  const snapshot = directory.current;
  const index = fhirIndexOf(snapshot);
  const run = (built: FhirIndex) =>
    typeof build === "string"
      ? inSteps(exchange, snapshot, built, build, options)
      : answerFrom(exchange, snapshot, (base) => build(contextFor(exchange, built, options.form ?? [], base)), options);
  // The first request of a version waits for its index (built in steps; others are answered meanwhile).
  return index instanceof Promise ? index.then(run) : run(index);
}

/** Whether the GET answer to `request` is kept per URL (not under `Prefer: handling=strict`, which may answer the same URL otherwise). */
const keptAnswer = (request: Request, keep: boolean) =>
  (request.method === "GET" || request.method === "HEAD") && keep && !strictOf(request);

/** The absolute base of a request's links, `<origin>/fhir`: the key of its answer without the request target. */
function baseOf(exchange: Exchange): string {
  const key = absoluteKey(exchange);
  return `${key.slice(0, key.length - exchange.target.length)}/fhir`;
}

/** The context of a handler: the request's parameters (URL, then form body) and the base of its links. */
function contextFor(exchange: Exchange, index: FhirIndex, form: [string, string][], base: string): Context {
  const url = exchange.request.url;
  const query = url.indexOf("?");
  const pairs = query === -1 ? [] : pairsOf(url.slice(query + 1));
  pairs.push(...form);
  return { index, base, pairs, strict: strictOf(exchange.request) };
}

/** Costly searches, one step at a time (each criterion's matches, then the answer): see Turns. */
const searchTurns = new Turns();

/**
 * `answerFrom` for a search of `type`, when it is not kept already: first the search is read and
 * the substring indexes its criteria read are built (in steps of their own, once per version),
 * then its cost is counted (search-cost.ts). A search over the work budget is refused at once
 * (400 `too-costly`), before any of its work; a cheap one is answered at once, never queued
 * behind costly ones; any other runs as steps of `searchTurns`: each criterion's matches (cached
 * for the version), then the answer. The answer is built from the search read here. A request
 * the search cannot be read from (a bad parameter) gets its error from `answerFrom`, after the
 * Accept check as any other.
 */
async function inSteps(
  exchange: Exchange,
  snapshot: DatasetSnapshot,
  index: FhirIndex,
  type: ResourceType,
  options: AnswerOptions,
): Promise<Response> {
  const request = exchange.request;
  const kept =
    keptAnswer(request, options.keep ?? true) && servableFromKept(request)
      ? keptResponse(exchange, snapshot, "fhir")
      : undefined;
  if (kept !== undefined) return kept;
  let search: SearchRequest;
  try {
    const context = contextFor(exchange, index, options.form ?? [], baseOf(exchange));
    search = parseSearch(type, context.pairs, context.strict);
  } catch (error) {
    return answerFrom(
      exchange,
      snapshot,
      () => {
        throw error;
      },
      options,
    );
  }
  for (const step of substringSteps(index, search)) await step();
  const cost = searchCost(index, search)!;
  const build = (base: string) => {
    checkSearchCost(cost, type);
    return searchBundle(base, index, search, runSearch(index, search));
  };
  if (cost.total > WORK.budget || cost.total <= WORK.cheap) return answerFrom(exchange, snapshot, build, options);
  for (const step of criteriaSteps(index, search)) await searchTurns.run(step);
  return searchTurns.run(() => answerFrom(exchange, snapshot, build, options));
}

/** `build` makes the body from the absolute base of the request's links (`baseOf`), after the Accept check. */
function answerFrom(
  exchange: Exchange,
  snapshot: DatasetSnapshot,
  build: (base: string) => string,
  { form = [], keep = true }: AnswerOptions,
): Response {
  const request = exchange.request;
  try {
    checkAccept(
      request,
      formatInQuery(request.url) || form.some(([name, value]) => name === "_format" && value !== ""),
    );
    const base = baseOf(exchange);
    return dataResponse(exchange, snapshot, () => build(base), { family: "fhir", keep: keptAnswer(request, keep) });
  } catch (error) {
    if (!(error instanceof FhirError)) throw error;
    return outcomeResponse(exchange, error.status, error.code, error.message, error.headers);
  }
}

/**
 * The form body of a POST search, read as the URL's query is (`pairsOf`: malformed
 * percent-encoding is a 400 here too) and at most `formBodyBytes` of it: a longer body is a 413
 * `too-costly`, refused from its Content-Length before it is read, or once that many bytes have
 * arrived without one. Its pairs by name, as the body schema describes them.
 */
async function readFormBody({ request }: { request: Request }): Promise<Record<string, string[]>> {
  const cap = REQUEST_CAPS.formBodyBytes;
  const tooLong = () => new FhirError(413, "too-costly", `body: at most ${cap} bytes of search parameters`);
  const length = request.headers.get("content-length");
  if (length !== null && !(Number(length) <= cap)) throw tooLong();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  if (request.body !== null)
    for await (const chunk of request.body) {
      bytes += chunk.byteLength;
      if (bytes > cap) throw tooLong();
      chunks.push(chunk);
    }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw invalid("body: not UTF-8 text");
  }
  const form: Record<string, string[]> = Object.create(null);
  for (const [name, value] of pairsOf(text)) {
    const values = form[name];
    if (values === undefined) form[name] = [value];
    else values.push(value);
  }
  return form;
}

/** Reads and metadata take `_format` only; other parameters are ignored unless strict. */
function checkPlain({ pairs, strict }: Context) {
  for (const [name, value] of pairs) {
    if (name === "_format") {
      if (value !== "") checkFormat(value);
    } else if (strict && value !== "") throw new FhirError(400, "not-supported", `${name}: unknown parameter`);
  }
}

const read = (type: ResourceType, id: string) => (context: Context) => {
  checkPlain(context);
  const { index } = context;
  if (type === "Endpoint") {
    const e = index.findEndpoint(id);
    if (e === -1) throw notFound(`No Endpoint has the id "${id.slice(0, 80)}" (removed endpoints are not served)`);
    return JSON.stringify(endpointResource(index, e));
  }
  const p = index.findOrganization(id);
  if (p === -1) {
    // An id it had before (another spelling of its name, or the 2026-11-27 release's): it moved.
    const moved = index.findOrganizationAlias(id);
    if (moved !== -1)
      throw new FhirError(
        301,
        "informational",
        `Organization "${id}" is now Organization "${index.organizationId(moved)}": an id of another spelling of its name, or of the 2026-11-27 release, which hashed names lowercased`,
        { location: `${context.base}/Organization/${index.organizationId(moved)}` },
      );
    throw notFound(`No Organization has the id "${id.slice(0, 80)}" (removed entries are not served)`);
  }
  return JSON.stringify(organizationResource(index, p));
};

const unsupported = (type: string) => () => {
  throw notFound(
    `Resource type "${type.slice(0, 64)}" is not served here; this server serves Endpoint and Organization (see /fhir/metadata)`,
  );
};

const { alternatives, valueChars, repeats, parameters, words, formBodyBytes } = REQUEST_CAPS;
/** The request caps of a search, as the OpenAPI document states them. */
const CAPS = `Within the request caps: at most ${alternatives} distinct comma-separated values (duplicates are removed first) of at most ${valueChars} characters each, ${words} words in a string-rule value, a parameter given at most ${repeats} times, ${parameters} parameters in all; beyond them 400 too-costly.`;

const searchDetail = (type: ResourceType, method: string) => ({
  summary: `Search ${type} (FHIR R4${method === "POST" ? ", form body" : ""})`,
  description: `A searchset Bundle with absolute links and fullUrls. Unknown parameters are ignored (and left out of the self link) unless \`Prefer: handling=strict\`; bad values are 400, an expired page link 410, each with an OperationOutcome. ${CAPS}${method === "POST" ? ` The form body is at most ${formBodyBytes} bytes (more: 413 too-costly) and is read as a query string is (malformed percent-encoding: 400).` : ""} See docs/api.md, FHIR.`,
  operationId: `search${type}${method === "POST" ? "ByPost" : ""}`,
  tags: TAGS,
  ...(method === "GET" ? { responses: CONDITIONAL } : {}),
});

/** Search (GET and POST) and read of one resource type. */
const resourceRoutes = (directory: Directory, type: ResourceType) =>
  new Elysia({ name: `fhir-${type}`, normalize: false })
    .use(exchanges)
    .get(`/${type}`, ({ exchange }) => answer(exchange, directory, type), {
      query: searchQuery(type),
      response: { 200: SearchsetBundle, ...ERRORS },
      detail: searchDetail(type, "GET"),
    })
    .post(
      `/${type}/_search`,
      ({ exchange, body }) =>
        answer(exchange, directory, type, {
          form: Object.entries(body).flatMap(([name, value]) =>
            (value === undefined ? [] : Array.isArray(value) ? value : [value]).map((one): [string, string] => [
              name,
              one,
            ]),
          ),
          keep: false,
        }),
      {
        parse: readFormBody,
        body: searchForm(type),
        response: { 200: SearchsetBundle, ...POST_ERRORS },
        detail: searchDetail(type, "POST"),
      },
    )
    .get(
      `/${type}/:id`,
      ({ exchange, params }) => answer(exchange, directory, read(type, params.id), { keep: false }),
      {
        params: ReadParams,
        query: FormatQuery,
        response:
          type === "Endpoint"
            ? { 200: FhirApiEndpoint, ...READ_ERRORS }
            : { 200: FhirApiOrganization, 301: OperationOutcome, ...READ_ERRORS },
        detail: {
          summary: `Read ${type} (FHIR R4)`,
          description: `Unknown ids, and ids of removed entries, are 404 with an OperationOutcome.${type === "Organization" ? " The id another spelling of an organization's name had as an Organization of its own (names that differ only in letter case are one organization) is 301, `Location` the Organization's id now (docs/api.md, Identifiers)." : ""}`,
          operationId: `read${type}`,
          tags: TAGS,
          responses: CONDITIONAL,
        },
      },
    );

/** The FHIR R4 face of the directory at `/fhir` (docs/api.md, "FHIR"). */
export const fhirRoutes = (directory: Directory, software: { name: string; version: string }) => {
  const app = new Elysia({ name: "fhir", prefix: "/fhir", normalize: false })
    .use(exchanges)
    .use(resourceRoutes(directory, "Endpoint"))
    .use(resourceRoutes(directory, "Organization"))
    .get(
      "/metadata",
      ({ exchange }) =>
        answer(exchange, directory, (context) => {
          checkPlain(context);
          const date = context.index.lastUpdated ?? new Date(0).toISOString();
          return JSON.stringify(capabilityStatement(context.base, software, date));
        }),
      {
        query: FormatQuery,
        response: { 200: CapabilityStatement, ...ERRORS },
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
      ({ exchange, params }) =>
        answer(exchange, directory, (context) => {
          checkPlain(context);
          const parameter = ownSearchParameter(context.base, params.id);
          if (parameter === null) throw notFound(`No SearchParameter of ours has the id "${params.id.slice(0, 80)}"`);
          return JSON.stringify(parameter);
        }),
      {
        params: ReadParams,
        query: FormatQuery,
        response: { 200: SearchParameter, ...READ_ERRORS },
        detail: {
          summary: "Read one of our own SearchParameters",
          operationId: "readSearchParameter",
          tags: TAGS,
          responses: CONDITIONAL,
        },
      },
    )
    .get("/:type", ({ exchange, params }) => answer(exchange, directory, unsupported(params.type)), {
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
    .post("/:type/_search", ({ exchange, params }) => answer(exchange, directory, unsupported(params.type)), {
      params: TypeParams,
      parse: "none",
      response: REFUSALS,
      detail: {
        summary: "Search any other resource type by POST: 404 OperationOutcome",
        description:
          "This server serves Endpoint and Organization only (see /fhir/metadata): a search of any other type by POST is a 404 OperationOutcome (`not-found`), whatever its form body.",
        operationId: "searchOtherTypeByPost",
        tags: TAGS,
        // The body is not read (parse: none); the document still shows what a client sends.
        form: OtherTypeForm,
      },
    })
    .get("/:type/:id", ({ exchange, params }) => answer(exchange, directory, unsupported(params.type)), {
      params: TypeIdParams,
      response: REFUSALS,
      detail: { summary: "Any other resource type: 404 OperationOutcome", operationId: "readOtherType", tags: TAGS },
    });
};
