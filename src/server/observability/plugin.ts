import { Elysia } from "elysia";
import type { FreshnessReader } from "../../db/freshness";
import type { Directory } from "../../directory/directory";
import type { Logger } from "../../logger";
import { type Exchange, exchanges, headersFor } from "../http/exchange";
import { pathOf } from "../http/request-target";
import { routeOptions } from "../http/route-options";
import type { Metrics } from "./metrics";

export interface ObservabilityOptions {
  log: Logger;
  metrics: Metrics;
  directory: Directory;
  clock: () => Date;
  freshness: FreshnessReader;
}

/** Records one answered exchange: its log line and its metrics. */
export type ExchangeObserver = (exchange: Exchange, status: number) => void;

/**
 * Records one answered request: a JSON log line and a metrics observation, labelled with the
 * pattern of the registered route serving its path ("unmatched" when none does). The request's
 * entry (src/server/entry.ts) calls it once per answer.
 */
export function requestObserver({ log, metrics }: Pick<ObservabilityOptions, "log" | "metrics">): ExchangeObserver {
  return ({ request, startedAt, route, id, client }, status) => {
    const seconds = (performance.now() - startedAt) / 1000;
    const path = pathOf(request.url);
    const routeLabel = route?.pattern ?? "unmatched";
    metrics.observe(routeLabel, request.method, status, seconds);
    log.info("request", {
      requestId: id,
      method: request.method,
      path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
      route: routeLabel,
      status,
      durationMs: Math.round(seconds * 100_000) / 100,
      client,
    });
  };
}

/**
 * GET /metrics in Prometheus text: what `requestObserver` counted, the dataset's size and age,
 * and its freshness (the figures of GET /api/v1/freshness).
 */
export const metricsRoute = ({ metrics, directory, clock, freshness }: Omit<ObservabilityOptions, "log">) =>
  new Elysia({ name: "metrics" })
    .use(routeOptions)
    .use(exchanges)
    .get(
      "/metrics",
      ({ exchange }) => {
        const { stats, version } = directory.current;
        const now = clock();
        return new Response(
          metrics.render(
            { entries: stats.totalEndpoints, version, lastRefreshAt: stats.lastUpdated },
            now,
            freshness.read(now),
          ),
          {
            headers: headersFor(exchange, undefined, {
              "content-type": "text/plain; version=0.0.4; charset=utf-8",
              "cache-control": "no-store",
            }),
          },
        );
      },
      { detail: { hide: true }, rateLimit: false },
    );
