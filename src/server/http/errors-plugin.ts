import { Elysia } from "elysia";
import type { Logger } from "../../logger";
import { ApiError } from "./api-error";
import { errorResponse } from "./json";
import { contextOf } from "./request-context";
import { validationMessage } from "./validation-message";

const WWW_AUTHENTICATE = 'Bearer realm="endpoint-directory", error="invalid_token"';

/**
 * The response to an error thrown while answering `request`: the envelope of an ApiError, of a
 * validation error, 404/405 for an unserved path or method, and 500 for anything else (logged;
 * nothing internal ever reaches the client). `code` is Elysia's error code, when Elysia caught it.
 */
export function errorResponseFor(request: Request, error: unknown, log: Logger, code?: string | number): Response {
  if (error instanceof ApiError)
    return errorResponse(
      request,
      error.status,
      error.code,
      error.message,
      // A 401 names the scheme that failed (RFC 9110 11.6.1).
      error.status === 401 ? { ...error.headers, "www-authenticate": WWW_AUTHENTICATE } : error.headers,
    );
  if (code === "VALIDATION") return errorResponse(request, 400, "VALIDATION_ERROR", validationMessage(error as never));
  if (code === "NOT_FOUND") {
    // A path some route serves, with a method it does not: 405 naming the route's methods.
    const route = contextOf(request)?.route;
    if (route && !route.methods.has(request.method)) {
      const use = [...route.methods].filter((method) => method !== "HEAD").join(" or ");
      return errorResponse(request, 405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${use}`, {
        allow: route.allow,
      });
    }
    return errorResponse(request, 404, "NOT_FOUND", "No such route; see /docs");
  }
  if (code === "PARSE")
    return errorResponse(request, 400, "VALIDATION_ERROR", "body: no operation accepts a request body");
  log.error("unhandled error", {
    requestId: contextOf(request)?.id,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return errorResponse(request, 500, "INTERNAL_ERROR", "Unexpected server error; retry with backoff");
}

/** Shapes every error Elysia catches into the envelope (`errorResponseFor`). */
export const errorsPlugin = (log: Logger) =>
  new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, set, request }) => {
    const response = errorResponseFor(request, error, log, code);
    set.status = response.status;
    return response;
  });
