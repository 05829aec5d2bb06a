import type { Server } from "bun";
import { Elysia } from "elysia";
import packageJson from "../package.json";
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
import { ApiKeyLookup } from "./keys/store";
import { createLogger, type Logger } from "./logger";
import { Metrics } from "./observability/metrics";
import { observability, requestObserver } from "./observability/plugin";
import { MemoryRateLimitStore } from "./rate-limit/memory-store";
import { rateLimit } from "./rate-limit/plugin";
import type { RateLimitStore } from "./rate-limit/store";
import { statsRoutes } from "./stats/routes";
import { vendorRoutes } from "./vendors/routes";

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
  const listening: { app?: { server: Server<unknown> | null } } = {};
  const app = new Elysia({ normalize: false })
    .decorate("directory", directory)
    .use(headersPlugin())
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
    .use(exportRoutes(directory))
    .use(vendorRoutes(directory))
    .use(statsRoutes(directory));
  listening.app = app;
  return app;
}

export type App = ReturnType<typeof createApp>;
