import { buildDatabaseFile } from "../db/build-file";
import type { Db } from "../db/client";
import { ingestContent, type ListSummary, syncVendorRegistry } from "../ingest";
import { loadRegistry } from "../ingest/registry";
import { NATIONAL_DIR, type Provenance, readBundle } from "./bundle";

export interface BuildNationalOptions {
  log?: (line: string) => void;
  /** Where the bundle is (default db/national/). */
  dir?: string;
}

export interface NationalBuildResult {
  summaries: ListSummary[];
  entries: number;
  asOf: string;
}

/**
 * Builds the national directory into `path` from the bundled real lists, offline, through the
 * ingest code: the vendor registry, then every registry list that has a bundled copy (oldest
 * copy first, each written as of its own date), entries `listed` and unprobed. The database is
 * built in a temporary file beside `path` and renamed into place only when complete; any
 * failure (a missing or corrupt bundled file, a list that does not ingest) leaves nothing.
 */
/**
 * Ingests every registry list that has a bundled copy, oldest copy first, each as of its own
 * date (forced: a bundled copy is what the directory holds, whatever was there before).
 */
export async function ingestBundledLists(
  db: Db,
  bundle: { provenance: Provenance; files: Map<string, string> },
  onList: (summary: ListSummary, file: string, index: number, total: number) => void = () => {},
): Promise<ListSummary[]> {
  const { provenance, files } = bundle;
  const registry = loadRegistry();
  const work = registry.flatMap((vendor) =>
    vendor.lists.flatMap((list) => (list.bundledFile ? [{ vendor, list, file: list.bundledFile }] : [])),
  );
  for (const { file } of work) if (!files.has(file)) throw new Error(`bundled list ${file} missing from the bundle`);
  const dateOf = (file: string) => new Date(provenance.files[file]!.lastChangedAt).toISOString();
  work.sort((a, b) => (dateOf(a.file) < dateOf(b.file) ? -1 : dateOf(a.file) > dateOf(b.file) ? 1 : 0));
  const summaries: ListSummary[] = [];
  for (const { vendor, list, file } of work) {
    const summary = await ingestContent(
      db,
      {
        vendorId: vendor.id,
        listId: list.id,
        content: files.get(file)!,
        force: true,
        now: dateOf(file),
        read: { repository: provenance.repository, path: `${provenance.path}/${file}`, commit: provenance.commit },
      },
      registry,
    );
    summaries.push(summary);
    onList(summary, file, summaries.length, work.length);
  }
  return summaries;
}

/**
 * Builds the national directory into `path` from the bundled real lists, offline, through the
 * ingest code: the vendor registry, then every list with a bundled copy (ingestBundledLists),
 * entries `listed` and unprobed. The database is built in a temporary file beside `path` and
 * renamed into place only when complete; any failure (a missing or corrupt bundled file, a list
 * that does not ingest) leaves nothing.
 */
export async function buildNationalDatabase(
  path: string,
  opts: BuildNationalOptions = {},
): Promise<NationalBuildResult> {
  const log = opts.log ?? (() => {});
  const bundle = readBundle(opts.dir ?? NATIONAL_DIR);
  const { summaries, entries } = await buildDatabaseFile(path, async (db) => {
    syncVendorRegistry(db);
    const summaries = await ingestBundledLists(db, bundle, (summary, file) => {
      if (!summary.ok)
        throw new Error(
          `bundled list ${file} (${summary.vendorId} / ${summary.listId}) was not ingested: ${summary.error}`,
        );
    });
    const entries = (db.sqlite.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number }).n;
    return { summaries, entries };
  });
  log(`national: ${summaries.length} bundled lists, ${entries} entries, as of ${bundle.provenance.asOf}`);
  return { summaries, entries, asOf: bundle.provenance.asOf };
}
