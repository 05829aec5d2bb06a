import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import { type FamilyName, familyOf, keptResponse } from "../http/answers";
import { exchanges } from "../http/exchange";
import { pathOf } from "../http/request-target";

/**
 * Answers a repeated GET of a data URL (the JSON API's or FHIR's) from the answer already built
 * for the current dataset version, before query parsing, validation and the route handler
 * (which would build the very same response). Registered after the rate limiter, so the request
 * is counted and its RateLimit headers are set. It is returned at once, like every answer (a
 * pipelined request must be answered in order, without waiting), and observed by the request's
 * entry as every answer is. `servable` says, per family, whether a request may have its URL's
 * kept answer at all (FHIR: not under `Prefer`, which may answer the same URL otherwise, nor
 * with an `Accept` that its route answers 406); a request it refuses goes on to its route.
 */
export const keptAnswers = (
  directory: Directory,
  servable: Partial<Record<FamilyName, (request: Request) => boolean>> = {},
) =>
  new Elysia({ name: "kept-answers" }).use(exchanges).onRequest(({ exchange }) => {
    const request = exchange.request;
    if (request.method !== "GET") return;
    const family = familyOf(pathOf(request.url));
    if (servable[family]?.(request) === false) return;
    return keptResponse(exchange, directory.current, family);
  });
