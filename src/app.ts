import type { Server } from "bun";
import { Elysia } from "elysia";
import packageJson from "../package.json";
import { availabilityAnswer, availabilityRoutes } from "./availability/routes";
import type { Config } from "./config";
import type { Db } from "./db/client";
import { Directory } from "./directory/directory";
import { docsPlugin } from "./docs/plugin";
import { endpointAnswers, endpointRoutes } from "./endpoints/routes";
import { InFlightExports } from "./export/in-flight";
import { exportRoutes } from "./export/routes";
import { fhirRoutes } from "./fhir/routes";
import { healthRoutes } from "./health/routes";
import { cachedResponses } from "./http/cached-responses-plugin";
import { directRoutes } from "./http/direct-routes";
import { errorsPlugin } from "./http/errors-plugin";
import { headersPlugin } from "./http/headers-plugin";
import { RouteTable, requestLine } from "./http/routes";
import { ApiKeyLookup } from "./keys/store";
import { createLogger, type Logger } from "./logger";
import { Metrics } from "./observability/metrics";
import { observability, requestObserver } from "./observability/plugin";
import { MemoryRateLimitStore } from "./rate-limit/memory-store";
import { rateLimiter } from "./rate-limit/plugin";
import type { RateLimitStore } from "./rate-limit/store";
import { statsRoutes } from "./stats/routes";
import { vendorRoutes } from "./vendors/routes";
import { webPage } from "./web/plugin";

export interface AppDeps {
  db: Db;
  config: Config;
  clock?: () => Date;
  log?: Logger;
  rateLimitStore?: RateLimitStore;
}

/** The whole API as one Elysia app; `src/index.ts` serves it, tests call `app.handle`. */
export function createApp(deps: AppDeps) {
  const clock = deps.clock ?? (() => new Date());
  const log = deps.log ?? createLogger(deps.config.logLevel);
  const directory = new Directory(deps.db.path, deps.db.sqlite, {
    indexDir: deps.config.indexDir ?? undefined,
    buildInProcessBelow: deps.config.indexInProcessBelow,
  });
  const metrics = new Metrics();
  const observe = requestObserver({ log, metrics });
  const listening: {
    app?: {
      server: Server<unknown> | null;
      handle(request: Request): Promise<Response>;
      routes: { method: string; path: string; hooks: unknown }[];
    };
  } = {};
  const routes = new RouteTable(() => listening.app?.routes ?? []);
  const limiter = rateLimiter({
    config: deps.config,
    server: () => listening.app?.server ?? null,
    store: deps.rateLimitStore ?? new MemoryRateLimitStore(),
    keys: new ApiKeyLookup(deps.db.sqlite),
    clock,
    onRejected: () => metrics.rateLimitRejected(),
  });
  const entries = endpointAnswers(directory);
  const availability = availabilityAnswer(directory);
  const direct =
    limiter.countNow === null
      ? {}
      : directRoutes(
          { routes, countNow: limiter.countNow, observe, log, app: (request) => listening.app!.handle(request) },
          {
            "/api/v1/endpoints/:id": entries.entry,
            "/api/v1/endpoints/:id/capabilities": entries.capabilities,
            "/api/v1/endpoints/:id/availability": availability,
          },
        );
  // standardHostname: false makes Elysia read the path from the first "/" after "http://",
  // whatever the Host's length; requestLine makes every URL absolute first (src/http/routes.ts).
  // `serve.routes`: Bun's router calls the direct routes itself when the app listens.
  const app = new Elysia({ normalize: false, handler: { standardHostname: false }, serve: { routes: direct } })
    .decorate("directory", directory)
    .use(requestLine((request) => listening.app!.handle(request)))
    .use(headersPlugin(routes))
    .use(observability({ metrics, directory, clock }, observe))
    .use(errorsPlugin(log))
    .use(docsPlugin(packageJson.version, () => (listening.app?.routes ?? []) as never))
    .use(limiter.plugin)
    .use(cachedResponses(directory, observe))
    .use(healthRoutes(clock))
    .use(endpointRoutes(directory, entries))
    .use(availabilityRoutes(directory, availability))
    .use(exportRoutes(directory, new InFlightExports(2, undefined, deps.config.exportMaxRunning)))
    .use(vendorRoutes(directory))
    .use(statsRoutes(directory))
    .use(fhirRoutes(directory, { name: "Endpoint Directory", version: packageJson.version }, observe))
    .use(webPage());
  // The direct routes answer requests of registered routes: a pattern that is not one would
  // serve requests the app does not.
  for (const pattern of Object.keys(direct))
    if (!app.routes.some((route) => route.method === "GET" && route.path === pattern))
      throw new Error(`direct route ${pattern} is not a GET route of the app`);
  listening.app = app;
  return app;
}
