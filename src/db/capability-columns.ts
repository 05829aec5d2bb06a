import type { Database } from "bun:sqlite";
import {
  capabilityReport,
  parseDocument,
  type Supports,
  schemeOf,
  supportsOf,
  type VerdictStatuses,
  verdictStatuses,
} from "../model/capability-rules";
import { discardPendingChanges } from "./changes";
import { refreshVerdicts } from "./effective-fields";
import { bodyPairMemo, bodyText } from "./probe-bodies";
import type { probes } from "./schema";

/**
 * `probes.supports` and `probes.verdict`: what the capability rules make of a probe's two
 * stored bodies, kept for the filters, statistics and change feed. A function of the bodies
 * alone, so one derivation serves every probe that kept the same pair.
 */
type Probe = typeof probes.$inferSelect;
export interface CapabilityColumns {
  supports: NonNullable<Probe["supports"]>;
  verdict: NonNullable<Probe["verdict"]>;
}

/**
 * The two columns for a probe of `url` whose bodies are these texts (null: that document was not
 * kept). The URL counts only by its scheme (an http base is never ready), so a memo of them is
 * keyed by the body pair and `schemeOf(url)`.
 */
export function capabilityColumns(statement: string | null, smart: string | null, url: string): CapabilityColumns {
  const report = capabilityReport({
    probed: true,
    statement: parseDocument(statement),
    smart: parseDocument(smart),
    statedVersion: null,
    url,
  });
  return {
    supports: JSON.stringify(supportsOf(report.facets)),
    verdict: JSON.stringify(verdictStatuses(report.verdict)),
  };
}

/** The stored columns read back: null while not derived. */
export function readCapabilityColumns(
  supports: string | null,
  verdict: string | null,
): { supports: Supports[]; verdict: VerdictStatuses } | null {
  if (supports === null || verdict === null) return null;
  return { supports: JSON.parse(supports) as Supports[], verdict: JSON.parse(verdict) as VerdictStatuses };
}

/**
 * Derives the columns of the probes that have none (a database migrated to them, rows written
 * around the probe) from their stored bodies and copies the verdicts to their entries, in one
 * write transaction: a state the data had all along, so the change feed records nothing of it.
 * Cheap when there is nothing to do: one scan of the probe rows, no body read and no write lock,
 * so a read-only replica opens the database.
 */
export function fillCapabilityColumns(sqlite: Database): number {
  if (rowsWithoutColumns(sqlite).length === 0) return 0;
  let changed = 0;
  sqlite
    .transaction(() => {
      const urls = deriveCapabilityColumns(sqlite);
      if (urls.length === 0) return;
      changed = urls.length;
      refreshVerdicts(sqlite, urls);
      discardPendingChanges(sqlite);
    })
    .immediate();
  return changed;
}

/** The probes whose supports or verdict is not derived yet. */
const rowsWithoutColumns = (sqlite: Database) =>
  sqlite
    .prepare("SELECT rowid, url, metadata_body_id, smart_body_id FROM probes WHERE supports IS NULL OR verdict IS NULL")
    .values() as [number, string, number | null, number | null][];

/**
 * Derives the columns of the probes that have none from their stored bodies, each distinct pair
 * of bodies once, inside the caller's transaction. Returns the URLs written.
 */
function deriveCapabilityColumns(sqlite: Database): string[] {
  const rows = rowsWithoutColumns(sqlite);
  const changed: string[] = [];
  if (rows.length === 0) return changed;
  const update = sqlite.prepare("UPDATE probes SET supports = ?1, verdict = ?2 WHERE rowid = ?3");
  const pairs = bodyPairMemo<CapabilityColumns>();
  for (const [rowId, url, metadataId, smartId] of rows) {
    const columns = pairs.of(
      metadataId,
      smartId,
      () => capabilityColumns(bodyText(sqlite, metadataId), bodyText(sqlite, smartId), url),
      schemeOf(url),
    );
    update.run(columns.supports, columns.verdict, rowId);
    changed.push(url);
  }
  return changed;
}

/** The summary columns a probe stores beside its bodies, derived from them (src/pipeline/probe/derive.ts). */
export type SummaryColumns = Pick<
  Probe,
  | "fhirVersion"
  | "softwareName"
  | "softwareVersion"
  | "supportedResources"
  | "smartSupported"
  | "access"
  | "smartCapabilities"
  | "grantTypes"
>;

const SUMMARY = `fhir_version, software_name, software_version, supported_resources, smart_supported, access,
  smart_capabilities, grant_types, supports, verdict`;

/**
 * Derives every probe's stored summary, supports and verdict again from its stored bodies, with
 * `summaryOf` for the summary (each distinct pair of bodies once), inside the caller's write
 * transaction; rows whose values are the same are not written. Returns the URLs changed.
 */
export function rederiveProbes(
  sqlite: Database,
  summaryOf: (statement: string | null, smart: string | null) => SummaryColumns,
): { urls: string[]; probes: number; pairs: number } {
  const rows = sqlite
    .prepare(`SELECT rowid, url, metadata_body_id, smart_body_id, ${SUMMARY} FROM probes`)
    .values() as [number, string, number | null, number | null, ...unknown[]][];
  const update = sqlite.prepare(
    `UPDATE probes SET fhir_version = ?1, software_name = ?2, software_version = ?3, supported_resources = ?4,
       smart_supported = ?5, access = ?6, smart_capabilities = ?7, grant_types = ?8, supports = ?9, verdict = ?10
     WHERE rowid = ?11`,
  );
  const pairs = bodyPairMemo<unknown[]>();
  const urls: string[] = [];
  for (const [rowId, url, metadataId, smartId, ...stored] of rows) {
    const values = pairs.of(
      metadataId,
      smartId,
      () => {
        const statement = bodyText(sqlite, metadataId);
        const smart = bodyText(sqlite, smartId);
        const s = summaryOf(statement, smart);
        const c = capabilityColumns(statement, smart, url);
        return [
          s.fhirVersion,
          s.softwareName,
          s.softwareVersion,
          s.supportedResources,
          s.smartSupported ? 1 : 0,
          s.access,
          s.smartCapabilities,
          s.grantTypes,
          c.supports,
          c.verdict,
        ];
      },
      schemeOf(url),
    );
    if (values.every((value, i) => value === stored[i])) continue;
    update.run(...(values as (string | number | null)[]), rowId);
    urls.push(url);
  }
  return { urls, probes: rows.length, pairs: pairs.size };
}
