/**
 * `bun run derive`: derives everything the directory keeps from the stored CapabilityStatements
 * and SMART configurations again (each probe's summary, its capability facets and verdict, the
 * entries' served fhirVersion, access and verdict), without probing: run it when the rules that
 * read the documents change. One write; the change feed records what it changed.
 */
import { parseCli } from "../../cli/args";
import { loadConfig } from "../../config";
import { rederiveProbes, type SummaryColumns } from "../../db/capability-columns";
import { type Db, openDatabase } from "../../db/client";
import { markDatasetChanged, readDatasetVersion } from "../../db/dataset-meta";
import { refreshEffectiveFields } from "../../db/effective-fields";
import { parseDocument } from "../../model/capability-rules";
import { derive } from "./derive";

/** The summary columns of a pair of stored bodies, as the probe derives them. */
function summaryOf(statement: string | null, smart: string | null): SummaryColumns {
  const doc = (text: string | null) => {
    const json = parseDocument(text);
    return { ok: json !== null, json, httpStatus: json === null ? null : 200, errorKind: null };
  };
  const { summary: s, access } = derive(doc(statement), doc(smart));
  return {
    fhirVersion: s.fhirVersion,
    softwareName: s.softwareName,
    softwareVersion: s.softwareVersion,
    supportedResources: JSON.stringify(s.supportedResources),
    smartSupported: s.smartSupported,
    access: access ? JSON.stringify(access) : null,
    smartCapabilities: JSON.stringify(s.smartCapabilities),
    grantTypes: JSON.stringify(s.grantTypes),
  };
}

export interface RederiveSummary {
  probes: number;
  pairs: number;
  changedProbes: number;
  /** Entries whose served fhirVersion or access changed (verdict changes are in the change feed). */
  changedEntries: number;
  version: number | null;
}

/** Derives every probe's stored values again from its bodies, in one write transaction. */
export function rederive(db: Db, now: Date = new Date()): RederiveSummary {
  const at = now.toISOString();
  return db.sqlite
    .transaction(() => {
      const { urls, probes, pairs } = rederiveProbes(db.sqlite, summaryOf);
      if (urls.length === 0) return { probes, pairs, changedProbes: 0, changedEntries: 0, version: null };
      const changedEntries = refreshEffectiveFields(db.sqlite, urls, at);
      markDatasetChanged(db.sqlite, at);
      return { probes, pairs, changedProbes: urls.length, changedEntries, version: readDatasetVersion(db.sqlite) };
    })
    .immediate();
}

const DERIVE_CLI = {
  command: "bun run derive",
  synopsis: [""],
  description: `Derives every probe's summary, capability facets and verdict again from the stored
/metadata and SMART configuration bodies (no request is sent), and the entries' served values
from them. Run it after the rules that read the documents change.`,
  options: {},
  optionHelp: [],
  environment: "DATABASE_PATH",
} as const;

if (import.meta.main) {
  parseCli(DERIVE_CLI);
  const db = openDatabase(loadConfig().databasePath);
  try {
    const started = performance.now();
    const s = rederive(db);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `derived ${s.probes} probes (${s.pairs} distinct pairs of bodies) in ${seconds} s: ${s.changedProbes} probes changed (${s.changedEntries} entries' fhirVersion or access)${s.version === null ? "; nothing to write" : `, dataset version ${s.version}`}\n`,
    );
  } finally {
    db.sqlite.close();
  }
}
