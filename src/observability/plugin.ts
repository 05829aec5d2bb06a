import { Elysia } from "elysia";
import type { Directory } from "../directory/directory";
import { knownRoute, pathOf } from "../http/known-routes";
import type { Logger } from "../logger";
import type { ClientIdentity } from "../rate-limit/client-identity";
import type { Metrics } from "./metrics";

export interface ObservabilityOptions {
  log: Logger;
  metrics: Metrics;
  directory: Directory;
  clock: () => Date;
  requestIds: WeakMap<Request, string>;
  identities: WeakMap<Request, ClientIdentity>;
}

/** One JSON log line and one metrics observation per request; GET /metrics in Prometheus text. */
export const observability = ({ log, metrics, directory, clock, requestIds, identities }: ObservabilityOptions) => {
  const started = new WeakMap<Request, number>();
  return new Elysia({ name: "observability" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const begin = started.get(request);
      const seconds = begin === undefined ? 0 : (performance.now() - begin) / 1000;
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      const path = pathOf(request.url);
      const routeLabel = route || knownRoute(path) || "unmatched";
      metrics.observe(routeLabel, request.method, status, seconds);
      log.info("request", {
        requestId: requestIds.get(request),
        method: request.method,
        path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
        route: routeLabel,
        status,
        durationMs: Math.round(seconds * 100_000) / 100,
        client: identities.get(request)?.tag,
      });
    })
    .get(
      "/metrics",
      () => {
        const { stats, version } = directory.current;
        return new Response(metrics.render({ entries: stats.totalEndpoints, version, lastRefreshAt: stats.lastUpdated }, clock()), {
          headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
        });
      },
      { detail: { hide: true } },
    );
};
