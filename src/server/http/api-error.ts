/** Every `error.code` the API sends: the Error schema's enum (src/server/http/schemas.ts) and the thrower's type. */
export const ERROR_CODES = [
  "VALIDATION_ERROR",
  "INVALID_API_KEY",
  "NOT_FOUND",
  "ENDPOINT_NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "TOO_MANY_REQUESTS",
  "INTERNAL_ERROR",
  "EXPORTS_BUSY",
  "CHANGES_EXPIRED",
  "RANGE_NOT_SATISFIABLE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The FHIR R4 IssueType each code is under /fhir, where an error is an OperationOutcome with
 * the same status (and headers) as the envelope would have.
 */
export const ISSUE_TYPES: Record<ErrorCode, string> = {
  VALIDATION_ERROR: "invalid",
  INVALID_API_KEY: "login",
  NOT_FOUND: "not-found",
  ENDPOINT_NOT_FOUND: "not-found",
  METHOD_NOT_ALLOWED: "not-supported",
  TOO_MANY_REQUESTS: "throttled",
  INTERNAL_ERROR: "exception",
  EXPORTS_BUSY: "transient",
  CHANGES_EXPIRED: "expired",
  RANGE_NOT_SATISFIABLE: "invalid",
};

/** An error the API answers with its own envelope, status and code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const validationError = (message: string) => new ApiError(400, "VALIDATION_ERROR", message);
