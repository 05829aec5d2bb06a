import { parseArgs } from "node:util";
import { parseDuration } from "./duration";
import { DEFAULT_STALE_AFTER_MS } from "./run";

export interface ProbeCliOptions {
  staleAfterMs: number;
  vendorId?: string;
  limit?: number;
  concurrency?: number;
  timeoutMs?: number;
  help: boolean;
}

export const PROBE_USAGE = `Usage: bun run probe [options]

Probes every distinct endpoint URL that is due (never probed, or probed longer ago than
--stale-after): GET {base}/metadata and {base}/.well-known/smart-configuration.

Options:
  --stale-after <duration>  re-probe URLs probed longer ago than this (default 24h; e.g. 30m, 24h, 7d, 0)
  --vendor <id>             only endpoints of this vendor
  --limit <n>               at most n URLs
  --concurrency <n>         requests in flight in all (default 16; at most 2 per host)
  --timeout <duration>      per-request time-out (default 10s)
  -h, --help                this text

Environment: DATABASE_PATH (default db/directory.sqlite), ALLOW_PRIVATE_NETWORK=true lets
requests reach private addresses (tests only), PROBE_CONTACT_URL is named in the User-Agent.`;

function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new Error(`--${name} must be a whole number ≥ 1, got "${value}"`);
  return Number(value);
}

/** Parses the options of `bun run probe` (also accepted by `bun run refresh`). Throws on bad input. */
export function parseProbeArgs(args: string[], extra: Record<string, { type: "string" | "boolean" }> = {}) {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      "stale-after": { type: "string" },
      vendor: { type: "string" },
      limit: { type: "string" },
      concurrency: { type: "string" },
      timeout: { type: "string" },
      help: { type: "boolean", short: "h" },
      ...extra,
    },
  });
  const v = values as Record<string, string | boolean | undefined>;
  const str = (name: string) => (typeof v[name] === "string" ? (v[name] as string) : undefined);
  const timeout = str("timeout");
  const options: ProbeCliOptions = {
    staleAfterMs: str("stale-after") !== undefined ? parseDuration(str("stale-after")!) : DEFAULT_STALE_AFTER_MS,
    vendorId: str("vendor"),
    limit: positiveInteger(str("limit"), "limit"),
    concurrency: positiveInteger(str("concurrency"), "concurrency"),
    timeoutMs: timeout !== undefined ? parseDuration(timeout) : undefined,
    help: v.help === true,
  };
  if (options.timeoutMs !== undefined && options.timeoutMs <= 0) throw new Error("--timeout must be more than 0");
  return { options, values: v };
}
