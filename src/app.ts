import type { Server } from "bun";
import { Elysia } from "elysia";
import packageJson from "../package.json";
import { availabilityRoutes } from "./availability/routes";
import type { Config } from "./config";
import type { Db } from "./db/client";
import { Directory } from "./directory/directory";
import { docsPlugin } from "./docs/plugin";
import { endpointRoutes } from "./endpoints/routes";
import { exportRoutes } from "./export/routes";
import { healthRoutes } from "./health/routes";
import { cachedResponses } from "./http/cached-responses-plugin";
import { errorsPlugin } from "./http/errors-plugin";
import { headersPlugin } from "./http/headers-plugin";
import { RouteTable, requestLine } from "./http/routes";
import { ApiKeyLookup } from "./keys/store";
import { createLogger, type Logger } from "./logger";
import { Metrics } from "./observability/metrics";
import { observability, requestObserver } from "./observability/plugin";
import { MemoryRateLimitStore } from "./rate-limit/memory-store";
import { rateLimit } from "./rate-limit/plugin";
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
  // standardHostname: false makes Elysia read the path from the first "/" after "http://",
  // whatever the Host's length; requestLine makes every URL absolute first (src/http/routes.ts).
  const app = new Elysia({ normalize: false, handler: { standardHostname: false } })
    .decorate("directory", directory)
    .use(requestLine((request) => listening.app!.handle(request)))
    .use(headersPlugin(routes))
    .use(observability({ metrics, directory, clock }, observe))
    .use(errorsPlugin(log))
    .use(docsPlugin(packageJson.version))
    .use(
      rateLimit({
        config: deps.config,
        server: () => listening.app?.server ?? null,
        store: deps.rateLimitStore ?? new MemoryRateLimitStore(),
        keys: new ApiKeyLookup(deps.db.sqlite),
        clock,
        onRejected: () => metrics.rateLimitRejected(),
      }),
    )
    .use(cachedResponses(directory, observe))
    .use(healthRoutes(clock))
    .use(endpointRoutes(directory))
    .use(availabilityRoutes(directory))
    .use(exportRoutes(directory))
    .use(vendorRoutes(directory))
    .use(statsRoutes(directory))
    .use(webPage());
  listening.app = app;
  return app;
}
