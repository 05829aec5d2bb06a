import { Elysia } from "elysia";
import { type Exchange, openExchange } from "./exchange";
import type { RouteInfo, RouteTable } from "./route-table";

/** Records one answered exchange: its log line and its metrics (observability/plugin.ts). */
export type ExchangeObserver = (exchange: Exchange, status: number) => void;

type Answer = Response | Promise<Response>;

/** The exchange of each request Elysia handles, from the entry to the first request hook. */
const opened = new WeakMap<Request, Exchange>();

/**
 * Puts each request's exchange on Elysia's context as `exchange`, for every hook, handler and
 * the error handler. Elysia's fetch takes the request alone, so the entry leaves the exchange
 * here, keyed by its request, and this request hook (the app's first) takes it: the one place
 * it is looked up. A feature `.use()`s it to have `exchange` in its handlers' type; it is
 * registered once (it has a name).
 */
export const exchanges = new Elysia({ name: "exchange" })
  .decorate("exchange", undefined as unknown as Exchange)
  .onRequest((context) => {
    context.exchange = opened.get(context.request)!;
  });

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
        return settled;
      });
    observe(exchange, response.status);
    return response;
  };
  // Typed as Elysia's `wrap` takes it: `handle` is the app's fetch, (request) => Response | Promise<Response>.
  const fetch = (handle: (...args: unknown[]) => unknown) => (received: Request) =>
    serve(received, (exchange) => {
      opened.set(exchange.request, exchange);
      return handle(exchange.request) as Answer;
    });
  return { serve, fetch };
}
