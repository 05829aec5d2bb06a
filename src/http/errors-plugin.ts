import { Elysia } from "elysia";
import { ApiError } from "./api-error";
import { errorResponse } from "./json";
import type { Logger } from "../logger";
import { validationMessage } from "./validation-message";

const ROUTES = [/^\/health$/, /^\/api\/v1\/(?:vendors|stats|endpoints)$/, /^\/api\/v1\/endpoints\/[^/]+(?:\/capabilities)?$/, /^\/docs(?:\/json)?$/];
const ALLOW = "GET, HEAD, OPTIONS";

function pathname(request: Request): string {
  try {
    return new URL(request.url).pathname;
  } catch {
    return "";
  }
}

/** Shapes every error into the envelope; nothing internal ever reaches the client. */
export const errorsPlugin = (log: Logger, requestIds: WeakMap<Request, string>) =>
  new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, set, request }) => {
    if (error instanceof ApiError) {
      set.status = error.status;
      return errorResponse(error.status, error.code, error.message, error.headers);
    }
    if (code === "VALIDATION") {
      set.status = 400;
      return errorResponse(400, "VALIDATION_ERROR", validationMessage(error as never));
    }
    if (code === "NOT_FOUND") {
      const path = pathname(request);
      if (request.method !== "GET" && request.method !== "HEAD" && ROUTES.some((route) => route.test(path))) {
        set.status = 405;
        return errorResponse(405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use GET`, { allow: ALLOW });
      }
      set.status = 404;
      return errorResponse(404, "NOT_FOUND", "No such route; see /docs");
    }
    if (code === "PARSE") {
      set.status = 400;
      return errorResponse(400, "VALIDATION_ERROR", "body: no operation accepts a request body");
    }
    set.status = 500;
    log.error("unhandled error", { requestId: requestIds.get(request), error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    return errorResponse(500, "INTERNAL_ERROR", "Unexpected server error; retry with backoff");
  });
