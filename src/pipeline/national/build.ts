import { buildDatabaseFile } from "../../db/build-file";
import { countEntries } from "../../db/describe";
import { dateEntriesByNewestRead } from "../../db/list-scrape-statements";
import { syncVendorRegistry } from "../ingest";
import { ingestBundledLists, NATIONAL_DIR, PAYERS_DIR, readBundle } from "../ingest/national-lists";
import type { ListSummary } from "../ingest/types";

export interface BuildNationalOptions {
  log?: (line: string) => void;
  /** Where the bundle is (default db/national/). */
  dir?: string;
  /** Where the health plans' bundle is (default db/national/payers/). */
  payersDir?: string;
}

export interface NationalBuildResult {
  summaries: ListSummary[];
  entries: number;
  asOf: string;
}

/**
 * Builds the national directory into `path` from the bundled real lists, offline, through the
 * ingest code: the vendor registry, then every list with a bundled copy (ingestBundledLists),
 * entries `listed` and unprobed, each dated by the newest copy that carries it. The database is built in a temporary file beside `path` and
 * renamed into place only when complete; any failure (a missing or corrupt bundled file, a list
 * that does not ingest) leaves nothing.
 */
export async function buildNationalDatabase(
  path: string,
  opts: BuildNationalOptions = {},
): Promise<NationalBuildResult> {
  const log = opts.log ?? (() => {});
  const bundle = readBundle(opts.dir ?? NATIONAL_DIR);
  const payers = readBundle(opts.payersDir ?? PAYERS_DIR);
  const asOf = [bundle.provenance.asOf, payers.provenance.asOf].sort().at(-1)!;
  const { summaries, entries } = await buildDatabaseFile(path, async (db) => {
    syncVendorRegistry(db);
    const failed = (summary: ListSummary, file: string) => {
      if (!summary.ok)
        throw new Error(
          `bundled list ${file} (${summary.vendorId} / ${summary.listId}) was not ingested: ${summary.error}`,
        );
    };
    const summaries = [
      ...(await ingestBundledLists(db, bundle, failed)),
      ...(await ingestBundledLists(db, payers, failed, "payer")),
    ];
    // An entry two copies carry is as of the newer one, as its source says (docs/api.md).
    dateEntriesByNewestRead(db.sqlite, asOf);
    const entries = countEntries(db.sqlite);
    return { summaries, entries };
  });
  log(`national: ${summaries.length} bundled lists, ${entries} entries, as of ${asOf}`);
  return { summaries, entries, asOf };
}
