import {
  APP_KINDS,
  type CapabilityReport,
  CHECKS,
  capabilityReport,
  parseDocument,
  SUPPORTS,
  schemeOf,
  supportsOf,
  VERDICT_STATUSES,
} from "../model/capability-rules";
import type { CapabilityCounts } from "../model/capability-schemas";
import { fhirVersionFromUrl } from "../model/fhir-version";
import { FHIR_VERSIONS, type FhirVersion } from "../model/types";
import type { CapabilityStatsData, DirectoryData } from "./directory-data";
import { type Check, tlsChecks } from "./tls-checks";

/** What the statistics read besides the index: each probe's body ids and TLS facts, and a body's text. */
export interface CapabilityStatsReads {
  /** URL, metadata and SMART body ids, probe time, TLS protocol, expiry, issuer, verified (0/1), final URL, redirects. */
  probeBodies(): [
    string,
    number | null,
    number | null,
    string,
    string | null,
    string | null,
    string | null,
    number | null,
    string | null,
    number | null,
  ][];
  body(id: number): string | null;
}

/**
 * The release the list or URL of the URL at `urlIndex` states, for the `fhir-version-matches`
 * check: what the index recorded from its entries, else its path's version segment.
 */
export function statedVersionAt(
  data: Pick<DirectoryData, "statedVersions" | "strings">,
  urlIndex: number,
): FhirVersion | null {
  const stated = data.statedVersions[urlIndex]!;
  const version = stated === -1 ? fhirVersionFromUrl(data.strings.urls[urlIndex]!) : FHIR_VERSIONS[stated]!;
  return version === "UNKNOWN" ? null : version;
}

export function emptyCounts(): CapabilityCounts {
  const statuses = () => Object.fromEntries(VERDICT_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  return {
    endpoints: 0,
    verified: 0,
    supports: Object.fromEntries(SUPPORTS.map((value) => [value, 0])) as CapabilityCounts["supports"],
    verdict: Object.fromEntries(APP_KINDS.map((kind) => [kind, statuses()])) as CapabilityCounts["verdict"],
    checks: Object.fromEntries(
      CHECKS.map(({ id }) => [id, { ok: 0, failed: 0, notApplicable: 0 }]),
    ) as CapabilityCounts["checks"],
  };
}

/** The sum of several developers' counts (`kind=` of the statistics: every developer of a kind). */
export function sumCounts(parts: CapabilityCounts[]): CapabilityCounts {
  const sum = emptyCounts();
  const add = (into: Record<string, unknown>, from: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(from)) {
      if (typeof value === "number") into[key] = ((into[key] as number | undefined) ?? 0) + value;
      else if (typeof value === "object" && value !== null && typeof into[key] === "object")
        add(into[key] as Record<string, unknown>, value as Record<string, unknown>);
    }
  };
  for (const part of parts) add(sum as unknown as Record<string, unknown>, part as unknown as Record<string, unknown>);
  return sum;
}

/** Adds `n` entries of one report (verified or not) to `counts`. */
function add(counts: CapabilityCounts, report: CapabilityReport, verified: boolean, n: number) {
  counts.endpoints += n;
  for (const kind of APP_KINDS) counts.verdict[kind][report.verdict[kind].status] += n;
  if (!verified) return;
  counts.verified += n;
  for (const value of supportsOf(report.facets)) counts.supports[value] += n;
  for (const check of report.checks) {
    const c = counts.checks[check.id]!;
    if (check.ok === null) c.notApplicable += n;
    else if (check.ok) c.ok += n;
    else c.failed += n;
  }
}

/** The index's data the capability statistics and report cards read. */
export type IndexBase = Omit<
  DirectoryData,
  "capabilityStats" | "reportCards" | "ids" | "availability" | "postings" | "facets"
>;

/** Each URL's report (facets, checks with its own TLS checks, verdict), as an index into the distinct ones. */
export interface UrlReports {
  reports: CapabilityReport[];
  /** Per URL (index into `strings.urls`): its report's index in `reports`. */
  reportOfUrl: Int32Array;
  /** Per URL: its probe's server certificate expiry (`Date.parse` of it), NaN when none or unparsable. */
  certificateExpiresOf: Float64Array;
}

/**
 * The report of every URL of the index. Each distinct pair of bodies (with the release its URL
 * states and its TLS checks) is derived once.
 */
export function urlReports(data: IndexBase, reads: CapabilityStatsReads): UrlReports {
  const pairOfUrl = new Map<string, string>();
  // Per URL: its own TLS checks (its host's handshake, where /metadata answered), as the
  // capabilities answer gives them; they replace the reports' unmeasured ones. With them, its
  // certificate's expiry, for the report cards.
  const tlsOfUrl = new Map<string, { checks: Check[]; expiresMs: number }>();
  for (const [
    url,
    metadata,
    smart,
    probedAt,
    protocol,
    expires,
    issuer,
    verified,
    finalUrl,
    redirects,
  ] of reads.probeBodies()) {
    pairOfUrl.set(url, `${metadata ?? "-"}:${smart ?? "-"}`);
    const tls = {
      protocol,
      certificateExpiresAt: expires,
      issuer,
      verified: verified === null ? null : verified === 1,
    };
    tlsOfUrl.set(url, {
      checks: tlsChecks({ url, probedAt, tls, finalUrl, redirectCount: redirects }),
      expiresMs: expires === null ? Number.NaN : Date.parse(expires),
    });
  }
  const parsed = new Map<number, Record<string, unknown> | null>();
  const documentOf = (id: string) => {
    if (id === "-") return null;
    const n = Number(id);
    let doc = parsed.get(n);
    if (doc === undefined) {
      doc = parseDocument(reads.body(n));
      parsed.set(n, doc);
    }
    return doc;
  };
  // Per URL: the index of its report among the distinct ones.
  const reports: CapabilityReport[] = [];
  const reportIds = new Map<string, number>();
  const reportOfUrl = new Int32Array(data.strings.urls.length);
  const certificateExpiresOf = new Float64Array(reportOfUrl.length);
  for (let url = 0; url < reportOfUrl.length; url++) {
    const pair = pairOfUrl.get(data.strings.urls[url]!);
    const stated = pair === undefined ? null : statedVersionAt(data, url);
    const urlText = data.strings.urls[url]!;
    const probed = tlsOfUrl.get(urlText);
    const tls = probed?.checks ?? [];
    certificateExpiresOf[url] = probed?.expiresMs ?? Number.NaN;
    const key =
      pair === undefined
        ? "unprobed"
        : `${pair}:${stated ?? "-"}:${schemeOf(urlText)}:${tls.map((c) => c.ok).join(",")}`;
    let id = reportIds.get(key);
    if (id === undefined) {
      id = reports.length;
      reportIds.set(key, id);
      const [metadata, smart] = (pair ?? "-:-").split(":") as [string, string];
      const report = capabilityReport({
        probed: pair !== undefined,
        statement: documentOf(metadata),
        smart: documentOf(smart),
        statedVersion: stated,
        url: urlText,
      });
      const own = new Map(tls.map((check) => [check.id, check]));
      reports.push({
        ...report,
        checks: report.checks.map((check) => {
          const measured = own.get(check.id);
          return measured === undefined ? check : { ...check, ok: measured.ok, detail: measured.detail };
        }),
      });
    }
    reportOfUrl[url] = id;
  }
  return { reports, reportOfUrl, certificateExpiresOf };
}

/**
 * Facets, checks and verdicts counted over the listed production entries, in all and per developer (by
 * index into `data.strings.vendorIds`). Entries only count which URL report they have, so a
 * million entries cost one pass over typed arrays.
 */
export function computeCapabilityStats(data: IndexBase, { reports, reportOfUrl }: UrlReports): CapabilityStatsData {
  // Entries per (vendor, report, verified).
  const { columns, strings, listed } = data;
  const verifiedStatus = strings.statuses.indexOf("verified");
  const width = reports.length * 2;
  const tally = new Int32Array(strings.vendorIds.length * width);
  // Non-production entries (test, demo, sandbox… src/model/environment.ts) are left out: the
  // counts describe the servers apps and patients use.
  for (let o = 0; o < listed; o++) {
    if (columns.environment[o] !== 0) continue;
    const verified = columns.status[o] === verifiedStatus ? 1 : 0;
    tally[columns.vendor[o]! * width + reportOfUrl[columns.url[o]!]! * 2 + verified]!++;
  }
  const overall = emptyCounts();
  const vendors: (CapabilityCounts | null)[] = strings.vendorIds.map(() => null);
  for (let v = 0; v < strings.vendorIds.length; v++)
    for (let r = 0; r < reports.length; r++)
      for (const verified of [0, 1]) {
        const n = tally[v * width + r * 2 + verified]!;
        if (n === 0) continue;
        vendors[v] ??= emptyCounts();
        add(vendors[v]!, reports[r]!, verified === 1, n);
        add(overall, reports[r]!, verified === 1, n);
      }
  return { overall, vendors };
}
