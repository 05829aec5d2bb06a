import { Elysia } from "elysia";
import type { Directory } from "../directory/directory";
import type { RequestObserver } from "../observability/plugin";
import { cachedResponse } from "./data-response";

/**
 * Answers a repeated GET of a data URL from the answer already built for the current
 * dataset version, before query parsing, validation and the route handler (which would build
 * the very same response). Registered after the rate limiter, so the request is counted and its
 * RateLimit headers are set. An early answer skips Elysia's after-response hooks, so it is
 * logged and measured here. It is returned at once, like every answer (a pipelined request
 * must be answered in order, without waiting).
 */
export const cachedResponses = (directory: Directory, observe: RequestObserver) =>
  new Elysia({ name: "cached-responses" }).onRequest(({ request }) => {
    if (request.method !== "GET") return;
    const response = cachedResponse(request, directory.current);
    if (response === undefined) return;
    observe(request, response.status);
    return response;
  });
