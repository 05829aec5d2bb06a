import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import { atTurnEnd } from "../http/turn-end";
import type { RequestObserver } from "../observability/plugin";
import { cachedResponse } from "./data-response";

/**
 * Answers a repeated GET of a data URL from the answer already built for the current
 * dataset version, before query parsing, validation and the route handler (which would build
 * the very same response). Registered after the rate limiter, so the request is counted and its
 * RateLimit headers are set. An early answer skips Elysia's after-response hooks, so it is
 * logged and measured here. Like the direct routes' answers, it goes back at the end of the
 * event loop's turn, with the others of the turn (`atTurnEnd`).
 */
export const cachedResponses = (directory: Directory, observe: RequestObserver) =>
  new Elysia({ name: "cached-responses" }).onRequest(({ request }) => {
    if (request.method !== "GET") return;
    const response = cachedResponse(request, directory.current);
    if (response === undefined) return;
    observe(request, response.status);
    return atTurnEnd(response);
  });
