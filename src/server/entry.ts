import { type Exchange, openExchange, toElysia } from "./http/exchange";
import type { RouteInfo, RouteTable } from "./http/route-table";
import type { ExchangeObserver } from "./observability/plugin";

type Answer = Response | Promise<Response>;

/**
 * A HEAD answer with its `Date`: Bun adds one to every other answer but not to HEAD's, and
 * RFC 9110 (6.6.1) has an origin server with a clock send it on every answer.
 */
function dated(request: Request, response: Response): Response {
  if (request.method === "HEAD" && !response.headers.has("date"))
    response.headers.set("date", new Date().toUTCString());
  return response;
}

/**
 * Where every request enters and its answer leaves (docs/architecture.md, "A request's way"):
 * `serve` opens the request's exchange, has it answered, and observes the answer (its log line
 * and metrics) once, whichever way it left: Elysia's hook chain, an answer from a request hook
 * (a preflight, a kept answer, a refusal), or a direct route. The answer is handed back as soon
 * as it is built; observing it costs a log line written into a buffer.
 *
 * `fetch` wraps Elysia's fetch (`app.wrap`): the only point every answer of the app passes, the
 * routes Bun's router calls straight included (Elysia's after-response hooks miss answers given
 * by a request hook). Elysia documents `wrap` as its own, not as a public hook:
 * test/server/observability/every-answer.test.ts fails if an answer ever leaves unobserved.
 */
export function requestEntry(routes: RouteTable, observe: ExchangeObserver) {
  const serve = (received: Request, answer: (exchange: Exchange) => Answer, route?: RouteInfo | null): Answer => {
    const exchange = openExchange(received, routes, route);
    const response = answer(exchange);
    if (response instanceof Promise)
      return response.then((settled) => {
        observe(exchange, settled.status);
        return dated(received, settled);
      });
    observe(exchange, response.status);
    return dated(received, response);
  };
  // Typed as Elysia's `wrap` takes it: `handle` is the app's fetch, (request) => Response | Promise<Response>.
  const fetch = (handle: (...args: unknown[]) => unknown) => (received: Request) =>
    serve(received, (exchange) => handle(toElysia(exchange)) as Answer);
  return { serve, fetch };
}
