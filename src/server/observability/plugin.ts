import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import type { Logger } from "../../logger";
import { contextOf, headersFor } from "../http/request-context";
import { pathOf } from "../http/request-target";
import { routeOptions } from "../http/route-options";
import type { Metrics } from "./metrics";

export interface ObservabilityOptions {
  log: Logger;
  metrics: Metrics;
  directory: Directory;
  clock: () => Date;
}

/**
 * Records one answered request: a JSON log line and a metrics observation, labelled with the
 * pattern of the registered route serving its path ("unmatched" when none does).
 */
export type RequestObserver = (request: Request, status: number) => void;

export function requestObserver({ log, metrics }: Pick<ObservabilityOptions, "log" | "metrics">): RequestObserver {
  return (request, status) => {
    const context = contextOf(request);
    const seconds = context === undefined ? 0 : (performance.now() - context.startedAt) / 1000;
    const path = pathOf(request.url);
    const routeLabel = context?.route?.pattern ?? "unmatched";
    metrics.observe(routeLabel, request.method, status, seconds);
    log.info("request", {
      requestId: context?.id,
      method: request.method,
      path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
      route: routeLabel,
      status,
      durationMs: Math.round(seconds * 100_000) / 100,
      client: context?.client,
    });
  };
}

/** One JSON log line and one metrics observation per request; GET /metrics in Prometheus text. */
export const observability = (
  { metrics, directory, clock }: Omit<ObservabilityOptions, "log">,
  observe: RequestObserver,
) =>
  new Elysia({ name: "observability" })
    .use(routeOptions)
    .onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
      const status =
        responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      observe(request, status);
    })
    .get(
      "/metrics",
      ({ request }) => {
        const { stats, version } = directory.current;
        return new Response(
          metrics.render({ entries: stats.totalEndpoints, version, lastRefreshAt: stats.lastUpdated }, clock()),
          {
            headers: headersFor(request, undefined, {
              "content-type": "text/plain; version=0.0.4; charset=utf-8",
              "cache-control": "no-store",
            }),
          },
        );
      },
      { detail: { hide: true }, rateLimit: false },
    );
