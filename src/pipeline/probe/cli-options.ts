import { type CliDefinition, type OptionsConfig, wholeNumber } from "../../cli/args";
import { parseDuration } from "./duration";
import { DEFAULT_STALE_AFTER_MS } from "./run";

/** The exit status of a run stopped by the outage rule (the prober lost the network). */
export const OUTAGE_EXIT_CODE = 3;

export interface ProbeCliOptions {
  staleAfterMs: number;
  vendorId?: string;
  limit?: number;
  concurrency?: number;
  timeoutMs?: number;
  /** Print the run's summary as one JSON object (stdout) instead of text. */
  json?: boolean;
}

/** The options of `bun run probe`, also accepted by `bun run refresh`. */
export const PROBE_CLI = {
  command: "bun run probe",
  synopsis: ["[options]"],
  description: `Probes every distinct endpoint URL that is due (never probed, or probed longer ago than
--stale-after): GET {base}/metadata and {base}/.well-known/smart-configuration.`,
  options: {
    "stale-after": { type: "string" },
    vendor: { type: "string" },
    limit: { type: "string" },
    concurrency: { type: "string" },
    timeout: { type: "string" },
    json: { type: "boolean" },
  },
  optionHelp: [
    ["--stale-after <duration>", "re-probe URLs probed longer ago than this (default 24h; e.g. 30m, 24h, 7d, 0)"],
    ["--vendor <id>", "only endpoints of this vendor"],
    ["--limit <n>", "at most n URLs"],
    ["--concurrency <n>", "requests in flight in all (default 32; at most 2 per host)"],
    ["--timeout <duration>", "per-request time-out (default 10s)"],
    [
      "--json",
      "print the summary as JSON (counts by outcome and error kind, slowest hosts, newly unresponsive/verified URLs, expiring certificates)",
    ],
  ],
  environment: `DATABASE_PATH (default db/directory.sqlite), ALLOW_PRIVATE_NETWORK=true lets
requests reach private addresses (tests only), PROBE_CONTACT_URL is named in the User-Agent.
The outage rule (docs/deploy.md): PROBE_CANARY_URLS, PROBE_OUTAGE_WINDOW_SECONDS (default 60),
PROBE_OUTAGE_MIN_HOSTS (20), PROBE_OUTAGE_FAILED_PERCENT (50), PROBE_OUTAGE_PREVIOUSLY_UP_PERCENT (50).`,
  exitStatus: [
    [1, "failed"],
    [OUTAGE_EXIT_CODE, "stopped: the prober lost the network; the last window was not recorded"],
    [130, "interrupted"],
  ],
} as const satisfies CliDefinition<OptionsConfig>;

/** The probe options from parsed values; throws on a bad value. */
export function probeCliOptions(values: {
  "stale-after"?: string;
  vendor?: string;
  limit?: string;
  concurrency?: string;
  timeout?: string;
  json?: boolean;
}): ProbeCliOptions {
  const options: ProbeCliOptions = {
    staleAfterMs: values["stale-after"] !== undefined ? parseDuration(values["stale-after"]) : DEFAULT_STALE_AFTER_MS,
    vendorId: values.vendor,
    limit: wholeNumber(values.limit, "--limit"),
    concurrency: wholeNumber(values.concurrency, "--concurrency"),
    timeoutMs: values.timeout !== undefined ? parseDuration(values.timeout) : undefined,
    json: values.json === true,
  };
  if (options.timeoutMs !== undefined && options.timeoutMs <= 0) throw new Error("--timeout must be more than 0");
  return options;
}
