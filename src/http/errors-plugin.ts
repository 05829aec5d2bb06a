import { Elysia } from "elysia";
import type { Logger } from "../logger";
import { ApiError } from "./api-error";
import { errorResponse } from "./json";
import { contextOf } from "./request-context";
import { validationMessage } from "./validation-message";

/** Shapes every error into the envelope; nothing internal ever reaches the client. */
export const errorsPlugin = (log: Logger) =>
  new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, set, request }) => {
    if (error instanceof ApiError) {
      set.status = error.status;
      return errorResponse(request, error.status, error.code, error.message, error.headers);
    }
    if (code === "VALIDATION") {
      set.status = 400;
      return errorResponse(request, 400, "VALIDATION_ERROR", validationMessage(error as never));
    }
    if (code === "NOT_FOUND") {
      // A path some route serves, with a method it does not: 405 naming the route's methods.
      const route = contextOf(request)?.route;
      if (route && !route.methods.has(request.method)) {
        set.status = 405;
        const use = [...route.methods].filter((method) => method !== "HEAD").join(" or ");
        return errorResponse(request, 405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${use}`, {
          allow: route.allow,
        });
      }
      set.status = 404;
      return errorResponse(request, 404, "NOT_FOUND", "No such route; see /docs");
    }
    if (code === "PARSE") {
      set.status = 400;
      return errorResponse(request, 400, "VALIDATION_ERROR", "body: no operation accepts a request body");
    }
    set.status = 500;
    log.error("unhandled error", {
      requestId: contextOf(request)?.id,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return errorResponse(request, 500, "INTERNAL_ERROR", "Unexpected server error; retry with backoff");
  });
