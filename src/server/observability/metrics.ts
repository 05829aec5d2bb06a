import { type Freshness, RUN_OUTCOMES } from "../../model/freshness";

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export interface DatasetGauges {
  entries: number;
  version: number;
  lastRefreshAt: string | null;
}

/** Other methods share one label, so made-up methods cannot grow the series without bound. */
const METHODS = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** Process-local request metrics in Prometheus text format. */
export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Histogram>();
  private rateLimited = 0;

  /** Per route, method and status: its counter key and its route's histogram (built once each). */
  private readonly series = new Map<string, { key: string; histogram: Histogram }>();

  observe(route: string, requestMethod: string, status: number, seconds: number) {
    const method = METHODS.has(requestMethod) ? requestMethod : "OTHER";
    const id = `${route} ${method} ${status}`;
    let series = this.series.get(id);
    if (series === undefined) {
      const labels = `route="${escapeLabel(route)}"`;
      let histogram = this.latency.get(labels);
      if (!histogram) {
        histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
        this.latency.set(labels, histogram);
      }
      series = { key: `${labels},method="${escapeLabel(method)}",status="${status}"`, histogram };
      this.series.set(id, series);
    }
    this.requests.set(series.key, (this.requests.get(series.key) ?? 0) + 1);
    const { histogram } = series;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) histogram.counts[i]!++;
    histogram.sum += seconds;
    histogram.count++;
  }

  rateLimitRejected() {
    this.rateLimited++;
  }

  render(dataset: DatasetGauges, now: Date, freshness?: Freshness): string {
    const lines: string[] = [
      "# HELP http_requests_total Requests answered, by route, method and status.",
      "# TYPE http_requests_total counter",
    ];
    for (const [labels, value] of this.requests) lines.push(`http_requests_total{${labels}} ${value}`);
    lines.push(
      "# HELP http_request_duration_seconds Time to answer, by route.",
      "# TYPE http_request_duration_seconds histogram",
    );
    for (const [labels, h] of this.latency) {
      for (const [i, le] of BUCKETS.entries())
        lines.push(`http_request_duration_seconds_bucket{${labels},le="${le}"} ${h.counts[i]}`);
      lines.push(`http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      lines.push(
        `http_request_duration_seconds_sum{${labels}} ${h.sum}`,
        `http_request_duration_seconds_count{${labels}} ${h.count}`,
      );
    }
    const age =
      dataset.lastRefreshAt === null ? -1 : Math.max(0, (now.getTime() - Date.parse(dataset.lastRefreshAt)) / 1000);
    lines.push(
      "# HELP rate_limit_rejections_total Requests refused with 429.",
      "# TYPE rate_limit_rejections_total counter",
      `rate_limit_rejections_total ${this.rateLimited}`,
      "# HELP dataset_entries Directory entries in the served dataset.",
      "# TYPE dataset_entries gauge",
      `dataset_entries ${dataset.entries}`,
      "# HELP dataset_version Version of the served dataset.",
      "# TYPE dataset_version gauge",
      `dataset_version ${dataset.version}`,
      "# HELP dataset_age_seconds Seconds since the served dataset was last refreshed (-1: never).",
      "# TYPE dataset_age_seconds gauge",
      `dataset_age_seconds ${age}`,
    );
    if (freshness) lines.push(...freshnessLines(freshness, now));
    return `${lines.join("\n")}\n`;
  }
}

const seconds = (at: string | null) => (at === null ? -1 : Date.parse(at) / 1000);

/** The freshness answer's figures (GET /api/v1/freshness) as gauges: times in Unix seconds, -1 for none. */
function freshnessLines(f: Freshness, now: Date): string[] {
  const run = f.currentRun;
  const last = f.lastRun;
  return [
    "# HELP refresh_enabled 1 when the server refreshes the directory by itself (REFRESH=on, a real directory).",
    "# TYPE refresh_enabled gauge",
    `refresh_enabled ${f.refresh === "on" ? 1 : 0}`,
    "# HELP refresh_lists_as_of_seconds Unix time of the newest read of any list (-1: never).",
    "# TYPE refresh_lists_as_of_seconds gauge",
    `refresh_lists_as_of_seconds ${seconds(f.listsAsOf)}`,
    "# HELP refresh_lists Lists by where they were last read from.",
    "# TYPE refresh_lists gauge",
    ...f.lists.map((l) => `refresh_lists{source="${l.source}"} ${l.lists}`),
    "# HELP refresh_running 1 while a refresh runs (a process is at it), else 0.",
    "# TYPE refresh_running gauge",
    `refresh_running ${run?.state === "running" ? 1 : 0}`,
    "# HELP refresh_run_started_seconds Unix time the current refresh started (-1: none).",
    "# TYPE refresh_run_started_seconds gauge",
    `refresh_run_started_seconds ${seconds(run?.startedAt ?? null)}`,
    "# HELP refresh_run_urls_done URLs the current refresh has asked (0: none running).",
    "# TYPE refresh_run_urls_done gauge",
    `refresh_run_urls_done ${run?.urlsDone ?? 0}`,
    "# HELP refresh_run_urls_total URLs the current refresh asks in all (0: none running, or reading the lists).",
    "# TYPE refresh_run_urls_total gauge",
    `refresh_run_urls_total ${run?.urlsTotal ?? 0}`,
    "# HELP refresh_last_finished_seconds Unix time the last refresh ended (-1: none yet).",
    "# TYPE refresh_last_finished_seconds gauge",
    `refresh_last_finished_seconds ${seconds(last?.finishedAt ?? null)}`,
    "# HELP refresh_last_outcome 1 for the outcome the last refresh ended with, 0 for the others.",
    "# TYPE refresh_last_outcome gauge",
    ...RUN_OUTCOMES.map((o) => `refresh_last_outcome{outcome="${o}"} ${last?.outcome === o ? 1 : 0}`),
    "# HELP refresh_failures_in_a_row Latest refreshes in a row that ended in an outage or failure.",
    "# TYPE refresh_failures_in_a_row gauge",
    `refresh_failures_in_a_row ${f.failuresInARow}`,
    "# HELP refresh_next_run_seconds Unix time the next refresh is due (-1: one runs, or the schedule is off).",
    "# TYPE refresh_next_run_seconds gauge",
    `refresh_next_run_seconds ${seconds(f.nextRunAt)}`,
    "# HELP refresh_next_run_in_seconds Seconds until the next refresh is due (-1: one runs, or the schedule is off).",
    "# TYPE refresh_next_run_in_seconds gauge",
    `refresh_next_run_in_seconds ${f.nextRunAt === null ? -1 : Math.max(0, (Date.parse(f.nextRunAt) - now.getTime()) / 1000)}`,
  ];
}
