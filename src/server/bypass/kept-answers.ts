import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import { familyOf, keptResponse } from "../http/answers";
import { pathOf } from "../http/request-target";
import type { RequestObserver } from "../observability/plugin";

/**
 * Answers a repeated GET of a data URL (the JSON API's or FHIR's) from the answer already built
 * for the current dataset version, before query parsing, validation and the route handler
 * (which would build the very same response). Registered after the rate limiter, so the request
 * is counted and its RateLimit headers are set. An early answer skips Elysia's after-response
 * hooks, so it is logged and measured here. It is returned at once, like every answer (a
 * pipelined request must be answered in order, without waiting). A FHIR request with `Prefer`
 * goes on to its route: `handling=strict` may answer the same URL otherwise.
 */
export const keptAnswers = (directory: Directory, observe: RequestObserver) =>
  new Elysia({ name: "kept-answers" }).onRequest(({ request }) => {
    if (request.method !== "GET") return;
    const family = familyOf(pathOf(request.url));
    if (family === "fhir" && request.headers.get("prefer") !== null) return;
    const response = keptResponse(request, directory.current, family);
    if (response === undefined) return;
    observe(request, response.status);
    return response;
  });
