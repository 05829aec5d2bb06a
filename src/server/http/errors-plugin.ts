import { Elysia } from "elysia";
import type { Logger } from "../../logger";
import { ApiError, type ErrorCode, ISSUE_TYPES } from "./api-error";
import type { Exchange } from "./exchange";
import { exchanges } from "./exchange";
import { errorResponse } from "./json";
import { FhirError, isFhirPath, outcomeResponse } from "./operation-outcome";
import { pathOf } from "./request-target";
import { validationMessage } from "./validation-message";

const WWW_AUTHENTICATE = 'Bearer realm="endpoint-directory", error="invalid_token"';

/**
 * The response to an error thrown while answering an exchange: the envelope of an ApiError, of a
 * validation error, 404/405 for an unserved path or method, and 500 for anything else (logged;
 * nothing internal ever reaches the client). `code` is Elysia's error code, when Elysia caught it.
 * Under /fhir every one of them is an OperationOutcome instead, with the same status and headers
 * and the issue type of its code (`ISSUE_TYPES`); a FhirError is one anywhere.
 */
export function errorResponseFor(exchange: Exchange, error: unknown, log: Logger, code?: string | number): Response {
  // A FhirError thrown by a body parser reaches here as the cause of Elysia's parse error.
  const fhirError = error instanceof FhirError ? error : (error as { cause?: unknown } | null)?.cause;
  if (fhirError instanceof FhirError)
    return outcomeResponse(exchange, fhirError.status, fhirError.code, fhirError.message);
  const request = exchange.request;
  const fhir = isFhirPath(pathOf(request.url));
  const reply = (status: number, errorCode: ErrorCode, message: string, extra?: Record<string, string>) =>
    fhir
      ? outcomeResponse(exchange, status, ISSUE_TYPES[errorCode], message, extra)
      : errorResponse(exchange, status, errorCode, message, extra);
  if (error instanceof ApiError)
    return reply(
      error.status,
      error.code,
      error.message,
      // A 401 names the scheme that failed (RFC 9110 11.6.1).
      error.status === 401 ? { ...error.headers, "www-authenticate": WWW_AUTHENTICATE } : error.headers,
    );
  if (code === "VALIDATION") return reply(400, "VALIDATION_ERROR", validationMessage(error as never));
  if (code === "NOT_FOUND") {
    // A path some route serves, with a method it does not: 405 naming the route's methods.
    const route = exchange.route;
    if (route && !route.methods.has(request.method)) {
      const use = [...route.methods].filter((method) => method !== "HEAD").join(" or ");
      return reply(405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${use}`, {
        allow: route.allow,
      });
    }
    return fhir
      ? reply(
          404,
          "NOT_FOUND",
          "No such FHIR interaction; this server reads and searches Endpoint and Organization (see /fhir/metadata)",
        )
      : reply(404, "NOT_FOUND", "No such route; see /docs");
  }
  if (code === "PARSE") return reply(400, "VALIDATION_ERROR", "body: no operation accepts a request body");
  log.error("unhandled error", {
    requestId: exchange.id,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return reply(500, "INTERNAL_ERROR", "Unexpected server error; retry with backoff");
}

/** Shapes every error Elysia catches into the envelope (`errorResponseFor`). */
export const errorsPlugin = (log: Logger) =>
  new Elysia({ name: "errors" }).use(exchanges).onError({ as: "global" }, ({ code, error, set, exchange }) => {
    const response = errorResponseFor(exchange, error, log, code);
    set.status = response.status;
    return response;
  });
