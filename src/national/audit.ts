import type { Database } from "bun:sqlite";
import { fhirVersionOfUrl } from "../ingest/enrich/fhir-version";
import { loadRegistry } from "../ingest/registry";
import { looksLikeTestOrDemo } from "../ingest/unusable";

/**
 * The version-naming URL patterns before versions came from evidence: `/r4/`-style segments
 * (no `/R2/`, `/R3/`, `/dstu3/`) and the path patterns, no `argonaut` host. An entry whose URL
 * none of these matched, on a list that named no version, got its developer's certified version.
 */
const OLD_URL_VERSION =
  /\/(dstu2|stu3|r4b|r4|r5)(?=\/|$|\?)|\/argonaut(?=\/|$)|\/uscore(?=\/|$)|\/fhir-server\/api\/v4(?=\/|$)|\/(?:fhir\/)?[134][._]0/i;

export interface AuditReport {
  entries: number;
  listed: number;
  unusable: { kind: string; entries: number; urls: number }[];
  testOrDemoListed: number;
  versions: { evidence: string; version: string; entries: number }[];
  states: { evidence: string; entries: number }[];
  repairedUrls: number;
  /** Listed entries whose URL names DSTU2 but which are served as R4 (the target is 0). */
  dstu2UrlServedR4: number;
  /** The re-judged sample of entries whose version the old rules took from the certification. */
  sample: { size: number; population: number; outcomes: { outcome: string; entries: number }[] };
}

interface Row {
  id: string;
  vendorId: string;
  url: string;
  name: string | null;
  fhirVersion: string;
  versionEvidence: string | null;
  stateEvidence: string | null;
  urlEvidence: string;
  unusable: string | null;
  status: string;
  listVersion: number;
}

/** Counts the national directory's entries by how each field is known and why some are not listed. */
export function auditDatabase(sqlite: Database, sampleSize = 100): AuditReport {
  const rows = sqlite
    .query(
      `SELECT e.id, e.vendor_id AS vendorId, e.url, e.organization_name AS name, e.fhir_version AS fhirVersion,
         e.version_evidence AS versionEvidence, e.state_evidence AS stateEvidence, e.url_evidence AS urlEvidence,
         e.unusable, e.status,
         EXISTS (SELECT 1 FROM entry_sources es JOIN vendor_lists vl ON vl.id = es.list_id
                 WHERE es.entry_row_id = e.row_id AND es.present = 1 AND vl.fhir_version IS NOT NULL) AS listVersion
       FROM entries e ORDER BY e.id`,
    )
    .all() as Row[];
  const listed = rows.filter((r) => r.status !== "removed" && r.unusable === null);
  const count = <K extends string>(items: Row[], key: (row: Row) => K) => {
    const counts = new Map<K, Row[]>();
    for (const row of items) counts.set(key(row), [...(counts.get(key(row)) ?? []), row]);
    return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  };
  const certified = new Set(loadRegistry().flatMap((v) => (v.defaultFhirVersion ? [v.id] : [])));
  // Entries whose version the old rules took from the developer's certification.
  const population = rows
    .filter((r) => r.status !== "removed")
    .filter(
      (r) =>
        certified.has(r.vendorId) &&
        r.listVersion === 0 &&
        r.versionEvidence !== "list" &&
        !OLD_URL_VERSION.test(r.url.replace(/^[a-z]+:\/\/[^/]*/i, "")),
    );
  // Deterministic sample: entries are ordered by id (a hash), so every n-th one is a fair draw.
  const step = Math.max(1, Math.floor(population.length / sampleSize));
  const sample = population.filter((_, i) => i % step === 0).slice(0, sampleSize);
  return {
    entries: rows.length,
    listed: listed.length,
    unusable: count(
      rows.filter((r) => r.unusable !== null),
      (r) => r.unusable!,
    ).map(([kind, items]) => ({ kind, entries: items.length, urls: new Set(items.map((r) => r.url)).size })),
    testOrDemoListed: listed.filter((r) => looksLikeTestOrDemo(r.url, r.name)).length,
    versions: count(listed, (r) => `${r.versionEvidence ?? "none"}\t${r.fhirVersion}`).map(([key, items]) => {
      const [evidence, version] = key.split("\t") as [string, string];
      return { evidence, version, entries: items.length };
    }),
    states: count(listed, (r) => r.stateEvidence ?? "unknown").map(([evidence, items]) => ({
      evidence,
      entries: items.length,
    })),
    repairedUrls: listed.filter((r) => r.urlEvidence === "repaired").length,
    dstu2UrlServedR4: listed.filter((r) => fhirVersionOfUrl(r.url) === "DSTU2" && r.fhirVersion === "R4").length,
    sample: {
      size: sample.length,
      population: population.length,
      outcomes: count(sample, (r) =>
        r.unusable !== null
          ? `now unusable (${r.unusable}), not listed`
          : r.fhirVersion === "UNKNOWN"
            ? "now UNKNOWN (nothing seen; the certification may not stand for it)"
            : `now ${r.fhirVersion} from ${r.versionEvidence === "developer" ? "the certification (inferred, marked so)" : `its ${r.versionEvidence}`}`,
      ).map(([outcome, items]) => ({ outcome, entries: items.length })),
    },
  };
}

/** The report as text lines. */
export function formatAudit(report: AuditReport): string[] {
  const lines = [
    `entries: ${report.entries} stored, ${report.listed} listed`,
    "unusable (stored, not listed, counted or exported):",
    ...report.unusable.map((u) => `  ${u.kind}: ${u.entries} entries, ${u.urls} URLs`),
    `  total: ${report.unusable.reduce((n, u) => n + u.entries, 0)} entries, ${report.unusable.reduce((n, u) => n + u.urls, 0)} URLs`,
    `listed entries that look like test or demo ones by name or host (reported, still listed): ${report.testOrDemoListed}`,
    "fhirVersion of listed entries, by evidence:",
    ...report.versions.map((v) => `  ${v.evidence.padEnd(9)} ${v.version.padEnd(7)} ${v.entries}`),
    "state of listed entries, by evidence:",
    ...report.states.map((s) => `  ${s.evidence.padEnd(9)} ${s.entries}`),
    `listed entries with a repaired URL: ${report.repairedUrls}`,
    `listed entries whose URL says DSTU2 but served as R4: ${report.dstu2UrlServedR4}`,
    `sample of ${report.sample.size} of the ${report.sample.population} entries the old rules gave the certified version, re-judged:`,
    ...report.sample.outcomes.map((o) => `  ${o.outcome}: ${o.entries}`),
  ];
  return lines;
}
