import { t } from "elysia";
import { ERROR_CODES } from "./api-error";

/**
 * A parameter schema's option naming what the OpenAPI document shows instead of the schema
 * itself: for a value a route reads as text (so that a bad one gets the route's own error, such
 * as FHIR's OperationOutcome) but clients send as another type (FHIR's `_count`, an integer).
 */
export const DOCUMENTED_AS = "x-documented-as";

export const ErrorEnvelope = t.Object(
  {
    success: t.Literal(false),
    error: t.Object({
      code: t.UnionEnum(ERROR_CODES, {
        default: undefined,
        description:
          "Machine-readable: VALIDATION_ERROR 400, INVALID_API_KEY 401, NOT_FOUND 404 (no such route), ENDPOINT_NOT_FOUND 404 (no such id), METHOD_NOT_ALLOWED 405, TOO_MANY_REQUESTS 429, INTERNAL_ERROR 500, EXPORTS_BUSY 503 (the export only), CHANGES_EXPIRED 410 (the change feed only), RANGE_NOT_SATISFIABLE 416 (the export's download files only).",
      }),
      message: t.String({
        description:
          "Human-readable; for validation errors `<parameter>: <reason>` naming the first offending parameter.",
      }),
    }),
  },
  { description: "Every error has this envelope." },
);

/**
 * The error answers every rate-limited operation can give, whatever its parameters: a bad query
 * (400), an unknown API key (401), another method (405), over the quota (429), a fault (500).
 * A by-id route adds 404.
 */
export const API_ERRORS = {
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  405: ErrorEnvelope,
  429: ErrorEnvelope,
  500: ErrorEnvelope,
};

/**
 * The bodiless 304 of an answer with a dataset ETag, for a route's `detail.responses` (a body
 * schema cannot say "no body"); the document describes it once, with its headers.
 */
export const NOT_MODIFIED = {
  description: "Not Modified: the client's copy (If-None-Match or If-Modified-Since) is current.",
};

/** Operations without parameters still reject any query parameter with 400. */
export const NoQuery = t.Object({}, { additionalProperties: false });
