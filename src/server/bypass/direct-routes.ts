import type { BunRequest, Server } from "bun";
import type { Logger } from "../../logger";
import { errorResponseFor } from "../http/errors-plugin";
import type { Exchange } from "../http/exchange";
import type { RouteInfo, RouteTable } from "../http/route-table";

/** An answer by id: what a route's handler returns for `GET <pattern>` with this `:id`. */
export type AnswerById = (exchange: Exchange, id: string) => Response;

export interface DirectRouteSteps {
  routes: RouteTable;
  /** Where every request enters (src/server/entry.ts): opens its exchange, has it answered, observes the answer. */
  serve: (
    received: Request,
    answer: (exchange: Exchange) => Response,
    route: RouteInfo | null,
  ) => Response | Promise<Response>;
  /** The rate limiter's count for the request (throws its 429 or 401); the server knows its socket. */
  countNow: (exchange: Exchange, server: Server<unknown>) => void;
  log: Logger;
  /** The app, for every request a direct route does not take. */
  app: (request: Request) => Promise<Response>;
}

/**
 * The read routes clients call at random by id (an entry, its capabilities, its availability),
 * handed to Bun's router for the server to call straight: the same steps the app's hooks take
 * (the request's entry, the rate limiter's count, the route's own answer, `errorResponseFor`),
 * in one function instead of Elysia's hook chain, which cost as much again as the answer
 * (bench/README.md, "Where the rest goes"). The response is handed back as soon as it is built:
 * holding it for later loses pipelined requests (Bun drops a pipelined connection whose
 * responses come after the handler returned).
 *
 * A direct route takes only the plain form of its request: GET, an absolute URL, no query
 * string, an id that needs no decoding. Anything else (HEAD, a query to refuse, a relative
 * request line, a percent-encoded id) goes to the app unchanged, before anything is counted, so
 * every answer, error and header stays the app's own. Registered only with a rate-limit store
 * that answers at once (memory): with Redis every request goes through the app.
 */
export function directRoutes(
  steps: DirectRouteSteps,
  answers: Record<string, AnswerById>,
): Record<string, { GET: (request: BunRequest, server: Server<unknown>) => Response | Promise<Response> }> {
  const serve = (pattern: string, answer: AnswerById) => (request: BunRequest, server: Server<unknown>) => {
    const url = request.url;
    const id = request.params.id ?? "";
    if (request.method !== "GET" || url.charCodeAt(0) === 47 || url.includes("?") || id.includes("%"))
      return steps.app(request);
    return steps.serve(
      request,
      (exchange) => {
        try {
          steps.countNow(exchange, server);
          return answer(exchange, id);
        } catch (error) {
          return errorResponseFor(exchange, error, steps.log);
        }
      },
      // Bun's router matched the pattern: the route is known without resolving the path.
      steps.routes.declared(pattern),
    );
  };
  return Object.fromEntries(
    Object.entries(answers).map(([pattern, answer]) => [pattern, { GET: serve(pattern, answer) }]),
  );
}
