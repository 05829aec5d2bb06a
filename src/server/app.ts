import { Elysia } from "elysia";
import packageJson from "../../package.json";
import type { Config } from "../config";
import { ApiKeyLookup } from "../db/api-key-lookup";
import type { Db } from "../db/client";
import { type FreshnessReader, freshnessReader } from "../db/freshness";
import type { Directory } from "../directory/directory";
import { createLogger, type Logger } from "../logger";
import { availabilityAnswer, availabilityRoutes } from "./availability/routes";
import { directRoutes } from "./bypass/direct-routes";
import { keptAnswers } from "./bypass/kept-answers";
import { changesRoutes } from "./changes/routes";
import { docsPlugin } from "./docs/plugin";
import { endpointAnswers, endpointRoutes } from "./endpoints/routes";
import { requestEntry } from "./entry";
import { ExportFiles } from "./export/files";
import { InFlightExports } from "./export/in-flight";
import { exportRoutes } from "./export/routes";
import { servableFromKept } from "./fhir/negotiate";
import { fhirRoutes } from "./fhir/routes";
import { freshnessRoutes } from "./freshness/routes";
import { healthRoutes } from "./health/routes";
import { errorsPlugin } from "./http/errors-plugin";
import { exchanges } from "./http/exchange";
import { preflights } from "./http/preflight";
import { publicOrigins } from "./http/public-origin";
import { RouteTable } from "./http/route-table";
import { Metrics } from "./observability/metrics";
import { metricsRoute, requestObserver } from "./observability/plugin";
import { MemoryRateLimitStore } from "./rate-limit/memory-store";
import { rateLimiter } from "./rate-limit/plugin";
import type { RateLimitStore } from "./rate-limit/store";
import { reportRoutes } from "./reports/routes";
import { statsRoutes } from "./stats/routes";
import { vendorRoutes } from "./vendors/routes";
import { webPage } from "./web/plugin";

export interface AppDeps {
  /** The dataset the app serves; the caller builds it (openDirectory) and closes it. */
  directory: Directory;
  db: Db;
  config: Config;
  clock?: () => Date;
  log?: Logger;
  rateLimitStore?: RateLimitStore;
  /** How fresh the directory is (default: read from `db` with `config.refresh`, this process starting now). */
  freshness?: FreshnessReader;
}

/** The whole API as one Elysia app; `src/index.ts` serves it, tests call `app.handle`. */
export function createApp(deps: AppDeps) {
  const clock = deps.clock ?? (() => new Date());
  const log = deps.log ?? createLogger(deps.config.logLevel);
  const { directory } = deps;
  const metrics = new Metrics();
  const freshness = deps.freshness ?? freshnessReader(deps.db.sqlite, deps.config.refresh, Date.now());
  // The app itself, once built: the route table, the docs and the direct routes call back into it.
  const self: {
    app?: {
      handle(request: Request): Promise<Response>;
      routes: { method: string; path: string; hooks: unknown }[];
    };
  } = {};
  const routes = new RouteTable(() => self.app?.routes ?? []);
  const entry = requestEntry(routes, requestObserver({ log, metrics }));
  const limiter = rateLimiter({
    config: deps.config,
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
          { routes, serve: entry.serve, countNow: limiter.countNow, log, app: (request) => self.app!.handle(request) },
          {
            "/api/v1/endpoints/:id": entries.entry,
            "/api/v1/endpoints/:id/capabilities": entries.capabilities,
            "/api/v1/endpoints/:id/availability": availability,
          },
        );
  // standardHostname: false makes Elysia read the path from the first "/" after "http://",
  // whatever the Host's length; the entry makes every URL absolute first (src/server/http/exchange.ts).
  // `serve.routes`: Bun's router calls the direct routes itself when the app listens.
  // `wrap`: every request enters, and every answer leaves, through the entry (src/server/entry.ts).
  const app = new Elysia({ normalize: false, handler: { standardHostname: false }, serve: { routes: direct } })
    .wrap(entry.fetch)
    .use(exchanges)
    .use(preflights(routes))
    .use(publicOrigins(deps.config.trustProxy))
    .use(errorsPlugin(log))
    .use(metricsRoute({ metrics, directory, clock, freshness }))
    .use(docsPlugin(packageJson.version, () => (self.app?.routes ?? []) as never))
    .use(limiter.plugin)
    .use(keptAnswers(directory, { fhir: servableFromKept }))
    .use(healthRoutes(clock))
    .use(endpointRoutes(directory, entries))
    .use(availabilityRoutes(directory, availability))
    .use(
      exportRoutes(directory, {
        inFlight: new InFlightExports(2, undefined, deps.config.exportMaxRunning),
        files: new ExportFiles(deps.config.exportDir ?? `${deps.db.path}.exports`, deps.config.publicOrigin),
        trustProxy: deps.config.trustProxy,
        idleTimeoutSeconds: deps.config.idleTimeoutSeconds,
        onFileError: (error) =>
          log.error("export download file not written; streaming the export", { error: String(error) }),
        charge: limiter.charge,
      }),
    )
    .use(vendorRoutes(directory))
    .use(reportRoutes(directory))
    .use(statsRoutes(directory))
    .use(freshnessRoutes(freshness, clock))
    .use(changesRoutes(directory))
    .use(fhirRoutes(directory, { name: "Endpoint Directory", version: packageJson.version }))
    .use(webPage());
  // The direct routes answer requests of registered routes: a pattern that is not one would
  // serve requests the app does not.
  for (const pattern of Object.keys(direct))
    if (!app.routes.some((route) => route.method === "GET" && route.path === pattern))
      throw new Error(`direct route ${pattern} is not a GET route of the app`);
  self.app = app;
  return app;
}
