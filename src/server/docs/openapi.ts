import { ChangeRecordSchema } from "../../model/changes";
import {
  CapabilitiesResponse,
  CapabilitiesSchema,
  EndpointRecordSchema,
  EndpointResponse,
  ListResponse,
  SourceRecordSchema,
  SourceResponse,
} from "../../model/endpoints";
import { FreshnessResponse, FreshnessSchema } from "../../model/freshness";
import { StatsResponse, StatsSchema } from "../../model/stats";
import { VendorListResponse, VendorRecordSchema } from "../../model/vendors";
import { AvailabilityResponse, AvailabilitySchema } from "../availability/schemas";
import { ChangesResponse } from "../changes/schemas";
import {
  CsvExportSchema,
  ExportFormatSchema,
  FhirBundleSchema,
  FhirEndpointSchema,
  FhirOrganizationSchema,
  NdjsonExportSchema,
} from "../export/schemas";
import {
  CapabilityStatement,
  FhirApiEndpoint,
  FhirApiOrganization,
  OperationOutcome,
  SearchParameter,
  SearchsetBundle,
} from "../fhir/schemas";
import { HealthResponse } from "../health/schemas";
import { FHIR_MEDIA_TYPE } from "../http/answers";
import type { ErrorCode } from "../http/api-error";
import { DOCUMENTED_AS, ErrorEnvelope, NOT_MODIFIED } from "../http/schemas";

/**
 * The schemas the document names in `components.schemas`: the very objects the routes declare.
 * Wherever one of them occurs in a route's declaration, the document refers to it by name.
 */
const NAMED_SCHEMAS: Record<string, object> = {
  Endpoint: EndpointRecordSchema,
  EndpointList: ListResponse,
  EndpointResponse,
  Capabilities: CapabilitiesSchema,
  CapabilitiesResponse,
  Availability: AvailabilitySchema,
  Change: ChangeRecordSchema,
  ChangeList: ChangesResponse,
  AvailabilityResponse,
  Source: SourceRecordSchema,
  SourceResponse,
  Vendor: VendorRecordSchema,
  VendorList: VendorListResponse,
  Stats: StatsSchema,
  StatsResponse,
  Freshness: FreshnessSchema,
  FreshnessResponse,
  Health: HealthResponse,
  ExportFormat: ExportFormatSchema,
  CsvExport: CsvExportSchema,
  NdjsonExport: NdjsonExportSchema,
  FhirBundle: FhirBundleSchema,
  FhirEndpoint: FhirEndpointSchema,
  FhirOrganization: FhirOrganizationSchema,
  FhirApiEndpoint,
  FhirApiOrganization,
  FhirSearchset: SearchsetBundle,
  CapabilityStatement,
  SearchParameter,
  OperationOutcome,
  Error: ErrorEnvelope,
};

const header = (description: string, schema: object = { type: "string" }) => ({ description, schema });
const integer = { type: "integer", minimum: 0 };

/** Every response header the API sends that a client may read. */
const HEADERS = {
  "X-Request-Id": header("The request's id (the client's own X-Request-Id when it sent a valid one); in the logs."),
  ETag: header(
    "Validator of this answer; changes only when the dataset changes. Send it in If-None-Match. Weak, except for the export's download files (the unfiltered export): strong, a hash of the file's bytes, for If-Range.",
  ),
  "Last-Modified": header("When the dataset was last refreshed (HTTP date). Send it in If-Modified-Since."),
  "Cache-Control": header("Data answers: `public, max-age=300, stale-while-revalidate=60`; /health: `no-store`."),
  Vary: header("`Accept-Encoding, Authorization, X-API-Key`: the answer depends on the key sent."),
  "RateLimit-Limit": header("Requests allowed in the window.", integer),
  "RateLimit-Remaining": header("Requests left in the window.", integer),
  "RateLimit-Reset": header("Whole seconds until the window ends.", integer),
  "RateLimit-Policy": header("`<limit>;w=<window seconds>`."),
  "Retry-After": header("Seconds to wait before retrying.", integer),
  "Content-Disposition": header(
    '`attachment; filename="endpoint-directory-v<dataset version>.<csv|ndjson|fhir.json|brands.json>"`.',
  ),
  Link: header(
    'RFC 8288 links to the `first`, `prev`, `next` and `last` pages of the same query (`<url>; rel="next"`); no `prev` on the first page, no `next` on the last; `last` at most page 1000.',
  ),
  Allow: header("The methods the path accepts."),
  "Accept-Ranges": header("`bytes`: the unfiltered export is a download file; `Range` asks for part of it."),
  "Content-Range": header(
    "206: `bytes <first>-<last>/<size>`, the part sent of the download file; 416: `bytes */<size>`.",
  ),
  "WWW-Authenticate": header('`Bearer realm="endpoint-directory", error="invalid_token"`.'),
};
type HeaderName = keyof typeof HEADERS;
const refs = (names: readonly HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const RATE_LIMIT: HeaderName[] = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"];
const VALIDATED: HeaderName[] = ["ETag", "Last-Modified", "Cache-Control", "Vary"];

/** The error answers, shared by every operation: name, description, example code and message, own headers. */
const ERRORS: Record<
  number,
  { name: string; description: string; code: ErrorCode; message: string; headers: HeaderName[] }
> = {
  400: {
    name: "BadRequest",
    description: "Invalid parameters: VALIDATION_ERROR naming the first offending parameter. Do not retry.",
    code: "VALIDATION_ERROR",
    message: "page: must be a whole number from 1 to 1000",
    headers: [],
  },
  401: {
    name: "Unauthorized",
    description: "An unknown or revoked API key (INVALID_API_KEY); send a valid key or none.",
    code: "INVALID_API_KEY",
    message: "The API key is unknown or revoked; send a valid key or none",
    headers: ["WWW-Authenticate"],
  },
  404: {
    name: "NotFound",
    description: "No endpoint has this id (ENDPOINT_NOT_FOUND).",
    code: "ENDPOINT_NOT_FOUND",
    message: "No endpoint has this id",
    headers: [],
  },
  405: {
    name: "MethodNotAllowed",
    description: "The path does not accept this method (METHOD_NOT_ALLOWED); Allow lists those it does.",
    code: "METHOD_NOT_ALLOWED",
    message: "POST is not allowed here; use GET",
    headers: ["Allow"],
  },
  410: {
    name: "Gone",
    description:
      "The change feed only: `since` is older than the changes kept (CHANGES_EXPIRED); download the export and start again from the current version.",
    code: "CHANGES_EXPIRED",
    message:
      "since: changes before version 12 are no longer kept; download the export (GET /api/v1/export) and follow the changes from the version GET /api/v1/changes gives",
    headers: [],
  },
  429: {
    name: "TooManyRequests",
    description: "Rate limit reached (TOO_MANY_REQUESTS); wait Retry-After seconds.",
    code: "TOO_MANY_REQUESTS",
    message: "Rate limit of 60 requests per 60 s exceeded; retry after 42 s",
    headers: ["Retry-After"],
  },
  500: {
    name: "InternalError",
    description: "Unexpected server error (INTERNAL_ERROR); retry with backoff.",
    code: "INTERNAL_ERROR",
    message: "Unexpected server error; retry with backoff",
    headers: [],
  },
  416: {
    name: "RangeNotSatisfiable",
    description:
      "The export's download files only: `Range` starts at or past the end of the file (RANGE_NOT_SATISFIABLE); Content-Range gives its size.",
    code: "RANGE_NOT_SATISFIABLE",
    message: "Range: the file has 52344871 bytes",
    headers: ["Content-Range"],
  },
  503: {
    name: "ServiceUnavailable",
    description:
      "The export only: the server already runs its most exports, every client together (EXPORTS_BUSY); wait Retry-After seconds.",
    code: "EXPORTS_BUSY",
    message: "The server is running its most exports at once; retry after 5 s",
    headers: ["Retry-After"],
  },
};

/**
 * The error answers of /fhir: an OperationOutcome (FHIR JSON) with the issue code, and for the
 * answers the HTTP layer gives every route (401, 405, 429, 500) the JSON API's envelope too,
 * whichever the server sends.
 */
const FHIR_ERRORS: Record<
  number,
  { name: string; description: string; issue: string; diagnostics: string; headers: HeaderName[]; json?: true }
> = {
  400: {
    name: "FhirBadRequest",
    description:
      "A bad value (`invalid`), an unsupported modifier, `_include` or `_summary`, or an unknown parameter under `Prefer: handling=strict` (`not-supported`), or a request beyond the caps (`too-costly`). Do not retry.",
    issue: "invalid",
    diagnostics: '_count: must be a whole number, not "many"',
    headers: [],
  },
  401: withEnvelope(401, "FhirUnauthorized", "security"),
  404: {
    name: "FhirNotFound",
    description:
      "No resource of this type has the id (removed entries are not served), or a resource type this server does not serve (`not-found`).",
    issue: "not-found",
    diagnostics: 'No Endpoint has the id "0" (removed endpoints are not served)',
    headers: [],
  },
  405: withEnvelope(405, "FhirMethodNotAllowed", "not-supported"),
  406: {
    name: "FhirNotAcceptable",
    description:
      "Neither `_format` nor `Accept` allows FHIR R4 JSON, the only format served (`not-supported`); `_format` overrides `Accept`.",
    issue: "not-supported",
    diagnostics:
      "Accept: only FHIR R4 JSON is served (application/fhir+json; fhirVersion=4.0, application/json or */*)",
    headers: [],
  },
  410: {
    name: "FhirGone",
    description:
      "A page link made for a dataset version no longer served (`expired`): run the search again from its first page.",
    issue: "expired",
    diagnostics: "This page link was made for dataset version 12; run the search again from its first page",
    headers: [],
  },
  413: {
    name: "FhirPayloadTooLarge",
    description: "A POSTed form body beyond the cap (`too-costly`).",
    issue: "too-costly",
    diagnostics: "The form body is larger than the cap",
    headers: [],
  },
  429: withEnvelope(429, "FhirTooManyRequests", "throttled"),
  500: withEnvelope(500, "FhirInternalError", "exception"),
};
/** An answer the HTTP layer gives every route, as /fhir documents it: the JSON API's, or an OperationOutcome. */
function withEnvelope(status: number, name: string, issue: string) {
  const { description, message, headers } = ERRORS[status]!;
  return { name, description, issue, diagnostics: message, headers, json: true as const };
}

/** Keys whose values are data (examples, constants), never schemas: copied as they are. */
const DATA_KEYS = new Set(["examples", "example", "const", "enum", "default"]);

/**
 * A route's TypeBox schema as JSON Schema 2020-12 (what OpenAPI 3.1 uses): TypeBox's own
 * symbol-keyed bookkeeping dropped, named schemas replaced by a `$ref` (except `self`, the one
 * being defined), data kept as it is.
 */
function toJsonSchema(node: unknown, self?: object): unknown {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item));
  if (node === null || typeof node !== "object") return node;
  const name = NAMED_BY_OBJECT.get(node);
  if (name !== undefined && node !== self) return { $ref: `#/components/schemas/${name}` };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined) continue;
    out[key] = DATA_KEYS.has(key) ? value : toJsonSchema(value);
  }
  return out;
}
const NAMED_BY_OBJECT = new Map<object, string>(Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [schema, name]));

/** What the document reads of one of the app's routes. */
export interface DocumentedRoute {
  method: string;
  path: string;
  hooks: {
    detail?: {
      hide?: boolean;
      summary?: string;
      description?: string;
      operationId?: string;
      tags?: string[];
      security?: unknown[];
      responses?: Record<string, Record<string, unknown>>;
      /** The form body of a route that does not read it (`parse: "none"`), as the document shows it. */
      form?: unknown;
    };
    query?: unknown;
    params?: unknown;
    body?: unknown;
    response?: Record<string, unknown>;
  };
}

/**
 * A route's form body (the only bodies the API takes: FHIR's POST `_search`), optional: each
 * property as the document shows it (DOCUMENTED_AS honoured), with its examples.
 */
function requestBody(schema: unknown) {
  const object = schema as ObjectSchema & { description?: string; examples?: unknown[] };
  const properties = Object.fromEntries(
    Object.entries(object.properties ?? {}).map(([name, property]) => [name, shown(property)]),
  );
  return {
    required: false,
    ...(object.description ? { description: object.description } : {}),
    content: {
      "application/x-www-form-urlencoded": {
        schema: { type: "object", properties, additionalProperties: true },
        ...(object.examples?.[0] === undefined ? {} : { example: object.examples[0] }),
      },
    },
  };
}

interface ObjectSchema {
  properties?: Record<string, { description?: string }>;
  required?: string[];
}

/** A property's schema as the document shows it: its DOCUMENTED_AS schema (with its description) when it has one. */
function shown(property: unknown) {
  const documented = (property as Record<string, unknown>)[DOCUMENTED_AS];
  // The property itself when it has none: a named schema is known by its identity.
  if (documented === undefined) return toJsonSchema(property);
  return toJsonSchema({ ...(documented as object), description: (property as { description?: string }).description });
}

/**
 * A route's parameters. One documented as an array is repeatable (`?_lastUpdated=ge…&_lastUpdated=lt…`):
 * form style, exploded, so that generated clients send an array as the name repeated.
 */
function parameters(schema: unknown, where: "query" | "path") {
  const object = (schema ?? {}) as ObjectSchema;
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const schema = shown(property) as { type?: string };
    return {
      name,
      in: where,
      required: where === "path" || (object.required ?? []).includes(name),
      ...(property.description ? { description: property.description } : {}),
      ...(schema.type === "array" ? { style: "form", explode: true } : {}),
      schema,
    };
  });
}

/**
 * The HEAD twin of a GET operation: the same parameters and statuses, each answer's headers
 * without a body (RFC 9110: HEAD is GET without the content).
 */
function headOperation(get: Record<string, unknown>, shared: Record<string, { content?: object }>) {
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, { $ref?: string; content?: unknown }>).map(([status, response]) => {
      const resolved = response.$ref ? shared[response.$ref.replace("#/components/responses/", "")]! : response;
      const { content: _, ...headersOnly } = resolved;
      return [status, headersOnly];
    }),
  );
  return {
    ...get,
    summary: `${get.summary} (headers only)`,
    description: "The GET's status and headers, without its body.",
    operationId: `${get.operationId}Head`,
    responses,
  };
}

/**
 * An operation's responses: its declared bodies and bodiless answers, each with its headers.
 * Under /fhir bodies are FHIR JSON (`application/fhir+json`) and errors OperationOutcomes; a
 * search by POST (no ETag) still says how its answer may be cached.
 */
function responses(route: DocumentedRoute) {
  const declared = route.hooks.response ?? {};
  const own = route.hooks.detail?.responses ?? {};
  const fhir = route.path.startsWith("/fhir/");
  const limited = "429" in declared;
  const validated = own["304"] === NOT_MODIFIED;
  const cached: HeaderName[] = validated ? VALIDATED : fhir ? ["Cache-Control", "Vary"] : [];
  const out: Record<string, unknown> = {};
  const statuses = [...new Set([...Object.keys(declared), ...Object.keys(own)])].sort();
  for (const status of statuses) {
    const schema = declared[status];
    if (schema === ErrorEnvelope) {
      out[status] = { $ref: `#/components/responses/${ERRORS[Number(status)]!.name}` };
      continue;
    }
    if (schema === OperationOutcome && status in FHIR_ERRORS) {
      out[status] = { $ref: `#/components/responses/${FHIR_ERRORS[Number(status)]!.name}` };
      continue;
    }
    if (own[status] === NOT_MODIFIED) {
      out[status] = { $ref: "#/components/responses/NotModified" };
      continue;
    }
    const extra = own[status] ?? {};
    const example = (schema as { examples?: unknown[] } | undefined)?.examples?.[0];
    const content =
      schema === undefined
        ? toJsonSchema(extra.content)
        : {
            [fhir ? FHIR_MEDIA_TYPE : "application/json"]: {
              schema: toJsonSchema(schema),
              ...(example === undefined ? {} : { example }),
            },
          };
    const described = fhir ? (schema as { description?: string } | undefined)?.description : undefined;
    out[status] = {
      description: (extra.description as string | undefined) ?? described ?? "OK",
      headers: {
        ...refs(["X-Request-Id", ...cached, ...(limited ? RATE_LIMIT : [])]),
        ...(extra.headers as object | undefined),
      },
      ...(content === undefined ? {} : { content }),
    };
  }
  return out;
}

/** The shared responses: the errors and the 304. */
function sharedResponses() {
  const out: Record<string, { description: string; headers: object; content?: object }> = {
    NotModified: {
      description: NOT_MODIFIED.description,
      headers: refs(["X-Request-Id", ...VALIDATED, ...RATE_LIMIT]),
    },
  };
  for (const [status, error] of Object.entries(FHIR_ERRORS)) {
    const outcome = {
      schema: { $ref: "#/components/schemas/OperationOutcome" },
      example: {
        resourceType: "OperationOutcome",
        issue: [{ severity: "error", code: error.issue, diagnostics: error.diagnostics }],
      },
    };
    const envelope = ERRORS[Number(status)];
    out[error.name] = {
      description: error.json
        ? `${error.description} An OperationOutcome (FHIR JSON), or the JSON API's envelope.`
        : `${error.description} An OperationOutcome.`,
      headers: refs(["X-Request-Id", ...RATE_LIMIT, ...error.headers]),
      content: {
        [FHIR_MEDIA_TYPE]: outcome,
        ...(error.json && envelope
          ? {
              "application/json": {
                schema: { $ref: "#/components/schemas/Error" },
                example: { success: false, error: { code: envelope.code, message: envelope.message } },
              },
            }
          : {}),
      },
    };
  }
  for (const error of Object.values(ERRORS))
    out[error.name] = {
      description: error.description,
      headers: refs(["X-Request-Id", ...RATE_LIMIT, ...error.headers]),
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          example: { success: false, error: { code: error.code, message: error.message } },
        },
      },
    };
  return out;
}

export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
  tags: { name: string; description: string }[];
}

/**
 * The OpenAPI 3.1 document of the app's routes (those with a `detail` not hidden). Its server is
 * `/`: relative, so it names whichever host the client fetched the document from (the Host a
 * client sends plays no part in the answer).
 */
export function openApiDocument(routes: readonly DocumentedRoute[], info: DocumentInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  const shared = sharedResponses();
  for (const route of routes) {
    const detail = route.hooks.detail;
    if (detail === undefined || detail.hide || detail.summary === undefined) continue;
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const { responses: _, form, ...rest } = detail;
    const body = route.hooks.body ?? form;
    const operation = {
      ...rest,
      parameters: [...parameters(route.hooks.params, "path"), ...parameters(route.hooks.query, "query")],
      ...(body === undefined ? {} : { requestBody: requestBody(body) }),
      responses: responses(route),
    };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
    if (route.method === "GET") paths[path].head = headOperation(operation, shared);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
    },
    servers: [{ url: "/", description: "The server this document was fetched from." }],
    tags: info.tags,
    // Optional authentication: anonymous, or an API key in either header.
    security: [{}, { ApiKey: [] }, { Bearer: [] }],
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [name, toJsonSchema(schema, schema)]),
      ),
      responses: shared,
      headers: HEADERS,
      securitySchemes: {
        ApiKey: {
          type: "apiKey",
          in: "header",
          name: "X-API-Key",
          description: "Optional: a key raises the rate limit (1,000 a minute). An unknown or revoked key → 401.",
        },
        Bearer: {
          type: "http",
          scheme: "bearer",
          description: "Optional: the same API key sent as `Authorization: Bearer <key>`.",
        },
      },
    },
  };
}
