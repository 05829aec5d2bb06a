/**
 * What a probe run says when it ends (`bun run probe`, `bun run refresh`; as JSON with `--json`):
 * counts by outcome and error kind, the slowest hosts, the URLs that newly became unresponsive or
 * verified, the hosts whose certificate expires within 30 days, and the 30-day uptime spread.
 */
import type { ErrorKind, ProbeResult } from "../../model/probe";
import { formatDuration } from "./duration";

interface UptimeDistribution {
  /** ≥ 99 % */
  high: number;
  /** 90 % to < 99 % */
  medium: number;
  /** above 0 and < 90 % */
  low: number;
  /** never answered in the 30 days */
  never: number;
}

interface SlowHost {
  host: string;
  /** The slowest /metadata answer of the host in this run (until the body was complete). */
  slowestMs: number;
  /** URLs of the host probed in this run. */
  urls: number;
}

interface ExpiringCertificate {
  host: string;
  expiresAt: string;
  issuer: string | null;
  verified: boolean | null;
}

export interface ProbeRunSummary {
  probed: number;
  success: number;
  partial: number;
  failed: number;
  /** URLs whose server could not be reached at all (also counted in `failed`). */
  unresponsive: number;
  /** URLs whose /metadata returned a CapabilityStatement in this run. */
  answered: number;
  /** URLs by the error kind stored with their probe (kinds that did not occur are left out). */
  errorKinds: Partial<Record<ErrorKind, number>>;
  /** The 10 hosts whose slowest /metadata answer was slowest, slowest first. */
  slowestHosts: SlowHost[];
  /** URLs that became unresponsive in this run (an entry on them was something else before), sorted. */
  newlyUnresponsive: string[];
  /** URLs that became verified in this run, sorted. */
  newlyVerified: string[];
  /** https hosts whose certificate expires within 30 days of the end of the run (or has expired), soonest first. */
  certificatesExpiringSoon: ExpiringCertificate[];
  /** The run's URLs by their uptime over the 30 days up to the end of the run. */
  uptime30d: UptimeDistribution;
  durationMs: number;
}

const SLOWEST = 10;
const CERTIFICATE_DAYS = 30;

function distribution(uptimes: readonly (number | null)[]): UptimeDistribution {
  const d: UptimeDistribution = { high: 0, medium: 0, low: 0, never: 0 };
  for (const u of uptimes) {
    if (u === null || u === 0) d.never++;
    else if (u >= 0.99) d.high++;
    else if (u >= 0.9) d.medium++;
    else d.low++;
  }
  return d;
}

/** The host (with port) of a URL; the URL itself when it does not parse. */
export const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** Adds up a run's results as they arrive (before they are written, so `before` is the old state). */
export class SummaryCollector {
  readonly summary: ProbeRunSummary = {
    probed: 0,
    success: 0,
    partial: 0,
    failed: 0,
    unresponsive: 0,
    answered: 0,
    errorKinds: {},
    slowestHosts: [],
    newlyUnresponsive: [],
    newlyVerified: [],
    certificatesExpiringSoon: [],
    uptime30d: { high: 0, medium: 0, low: 0, never: 0 },
    durationMs: 0,
  };
  private readonly hosts = new Map<string, SlowHost>();
  private readonly certificates = new Map<string, ExpiringCertificate>();

  /** `statusesBefore`: the statuses of the URL's entries before this result is written. */
  add(url: string, result: ProbeResult, statusesBefore: readonly string[]) {
    const s = this.summary;
    s.probed++;
    s[result.probeStatus]++;
    if (result.entryStatus === "unresponsive") s.unresponsive++;
    if (result.metadata.ok) s.answered++;
    if (result.errorKind) s.errorKinds[result.errorKind] = (s.errorKinds[result.errorKind] ?? 0) + 1;
    const changes = statusesBefore.some((status) => status !== "removed" && status !== result.entryStatus);
    if (result.entryStatus === "unresponsive" && changes) s.newlyUnresponsive.push(url);
    if (result.entryStatus === "verified" && changes) s.newlyVerified.push(url);

    const host = hostOf(url);
    let slow = this.hosts.get(host);
    if (!slow) {
      slow = { host, slowestMs: 0, urls: 0 };
      this.hosts.set(host, slow);
    }
    slow.urls++;
    if (result.metadata.httpStatus !== null) slow.slowestMs = Math.max(slow.slowestMs, result.metadata.durationMs);
    const expiresAt = result.tls?.certificateExpiresAt;
    if (expiresAt && !this.certificates.has(host))
      this.certificates.set(host, { host, expiresAt, issuer: result.tls!.issuer, verified: result.tls!.verified });
  }

  /** The summary as of `end`, with the uptime spread of the run's URLs. */
  finish(end: Date, uptimes: readonly (number | null)[], durationMs: number): ProbeRunSummary {
    const s = this.summary;
    s.uptime30d = distribution(uptimes);
    s.durationMs = durationMs;
    s.slowestHosts = [...this.hosts.values()]
      .filter((h) => h.slowestMs > 0)
      .sort((a, b) => b.slowestMs - a.slowestMs || a.host.localeCompare(b.host))
      .slice(0, SLOWEST);
    const limit = end.getTime() + CERTIFICATE_DAYS * 86_400_000;
    s.certificatesExpiringSoon = [...this.certificates.values()]
      .filter((c) => Date.parse(c.expiresAt) < limit)
      .sort((a, b) => a.expiresAt.localeCompare(b.expiresAt) || a.host.localeCompare(b.host));
    s.newlyUnresponsive.sort();
    s.newlyVerified.sort();
    return s;
  }
}

/** The first `max` lines of a list, then how many more. */
function listed(lines: string[], max = 20): string {
  if (lines.length === 0) return "  none";
  const shown = lines.slice(0, max).map((line) => `  ${line}`);
  if (lines.length > max) shown.push(`  … and ${lines.length - max} more (--json lists them all)`);
  return shown.join("\n");
}

/** The summary as text, for a terminal or cron mail. */
export function formatSummary(s: ProbeRunSummary): string {
  const u = s.uptime30d;
  const kinds = Object.entries(s.errorKinds)
    .sort(([a, x], [b, y]) => (y ?? 0) - (x ?? 0) || a.localeCompare(b))
    .map(([kind, n]) => `${kind} ${n}`);
  return [
    `probed ${s.probed} URLs in ${formatDuration(s.durationMs)}: ${s.success} success, ${s.partial} partial, ${s.failed} failed (${s.unresponsive} unresponsive)`,
    `answered (CapabilityStatement): ${s.answered} of ${s.probed} URLs; uptime over 30 days: ≥ 99 % ${u.high}, 90–99 % ${u.medium}, < 90 % ${u.low}, never ${u.never}`,
    `by error kind: ${kinds.length > 0 ? kinds.join(", ") : "none"}`,
    `newly unresponsive: ${s.newlyUnresponsive.length}`,
    listed(s.newlyUnresponsive),
    `newly verified: ${s.newlyVerified.length}`,
    listed(s.newlyVerified),
    `slowest hosts (slowest /metadata answer):`,
    listed(s.slowestHosts.map((h) => `${h.host} ${formatDuration(h.slowestMs)} (${h.urls} URLs)`)),
    `certificates expiring within ${CERTIFICATE_DAYS} days: ${s.certificatesExpiringSoon.length}`,
    listed(
      s.certificatesExpiringSoon.map(
        (c) =>
          `${c.host} ${c.expiresAt}${c.issuer ? ` (${c.issuer})` : ""}${c.verified === false ? ", not verified" : ""}`,
      ),
    ),
  ].join("\n");
}
