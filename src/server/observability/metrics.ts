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

  render(dataset: DatasetGauges, now: Date): string {
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
    return `${lines.join("\n")}\n`;
  }
}
