import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Db, withPageCache } from "../../db/client";
import type { VendorKind } from "../../model/vendors";
import { ingestContent } from "./index";
import { loadRegistry } from "./registry";
import type { ListSummary } from "./types";

/** The real lists the server builds its first database from, and where they come from. */
export const NATIONAL_DIR = join(import.meta.dir, "..", "..", "..", "db", "national");
/** The health plans' lists (kind `payer`), a bundle of the same format of their own. */
export const PAYERS_DIR = join(NATIONAL_DIR, "payers");
export const LISTS_FILE = "lists.json.zst";
export const PROVENANCE_FILE = "provenance.json";

/** MANIFEST.json of the shared copy: source repository, commit, per file its last change and rows. */
export interface LanternManifest {
  repository: string;
  path: string;
  commit: string;
  files: Record<string, { lastChangedCommit: string; lastChangedAt: string; rows: number }>;
}

interface ProvenanceFile {
  lastChangedCommit: string;
  lastChangedAt: string;
  rows: number;
  /** SHA-256 of the file's bytes, checked when the bundle is read. */
  sha256: string;
}

export interface Provenance {
  repository: string;
  path: string;
  commit: string;
  /** The newest lastChangedAt of the bundled files: the directory is "as of" this date. */
  asOf: string;
  files: Record<string, ProvenanceFile>;
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

/** The bundle of `files` (name → exact text) and its provenance, from the source's manifest. */
export function packBundle(
  files: Map<string, string>,
  manifest: LanternManifest,
  /** zstd level: 19 for the committed bundle (smallest), lower for a quick one. */
  level = 19,
): { archive: Uint8Array; provenance: Provenance } {
  const names = [...files.keys()].sort();
  const provenanceFiles: Record<string, ProvenanceFile> = {};
  for (const name of names) {
    const entry = manifest.files[name];
    if (!entry) throw new Error(`${name} is not in the source's MANIFEST.json`);
    provenanceFiles[name] = { ...entry, sha256: sha256(files.get(name)!) };
  }
  const asOf =
    names
      .map((n) => new Date(manifest.files[n]!.lastChangedAt).toISOString())
      .sort()
      .at(-1) ?? "";
  const json = JSON.stringify(Object.fromEntries(names.map((n) => [n, files.get(n)!])));
  return {
    archive: Bun.zstdCompressSync(Buffer.from(json), { level }),
    provenance: {
      repository: manifest.repository,
      path: manifest.path,
      commit: manifest.commit,
      asOf,
      files: provenanceFiles,
    },
  };
}

/** A bundled file that is missing, unreadable or not what its provenance says. */
class BundleError extends Error {
  override name = "BundleError";
}

/**
 * Reads and checks the bundle: every file its provenance names must be in the archive with
 * the recorded SHA-256. Any failure names the file.
 */
export function readBundle(dir = NATIONAL_DIR): { provenance: Provenance; files: Map<string, string> } {
  const provenancePath = join(dir, PROVENANCE_FILE);
  const listsPath = join(dir, LISTS_FILE);
  for (const path of [provenancePath, listsPath])
    if (!existsSync(path)) throw new BundleError(`${path}: bundled file missing`);
  let provenance: Provenance;
  try {
    provenance = JSON.parse(readFileSync(provenancePath, "utf8")) as Provenance;
    if (typeof provenance.files !== "object" || provenance.files === null) throw new Error("no files");
  } catch (error) {
    throw new BundleError(`${provenancePath}: unreadable (${(error as Error).message})`);
  }
  let contents: Record<string, unknown>;
  try {
    contents = JSON.parse(Bun.zstdDecompressSync(readFileSync(listsPath)).toString("utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new BundleError(`${listsPath}: corrupt (${(error as Error).message})`);
  }
  const files = new Map<string, string>();
  for (const [name, recorded] of Object.entries(provenance.files)) {
    const text = contents[name];
    if (typeof text !== "string") throw new BundleError(`${listsPath}: ${name} missing`);
    if (sha256(text) !== recorded.sha256) throw new BundleError(`${listsPath}: ${name} corrupt (checksum differs)`);
    files.set(name, text);
  }
  return { provenance, files };
}

/**
 * SQLite's page cache while the bundled lists are ingested, in KiB: room for the whole national
 * database (about 25 MB). With the default 2 MB, every list's writes read index pages back from
 * the file, the kernel copying them: a national build took 3.3 CPU seconds, now 2.5.
 */
const BULK_CACHE_KIB = 64 * 1024;

/**
 * Ingests every registry list of a vendor of `kind` that has a bundled copy, oldest copy first,
 * each as of its own date (forced: a bundled copy is what the directory holds, whatever was
 * there before). The EHR developers' lists are one bundle (db/national/), the health plans' another (PAYERS_DIR).
 */
export async function ingestBundledLists(
  db: Db,
  bundle: { provenance: Provenance; files: Map<string, string> },
  onList: (summary: ListSummary, file: string, index: number, total: number) => void = () => {},
  kind: VendorKind = "ehr",
): Promise<ListSummary[]> {
  const { provenance, files } = bundle;
  const registry = loadRegistry();
  const ofKind = registry.filter((vendor) => (vendor.kind ?? "ehr") === kind);
  const work = ofKind.flatMap((vendor) =>
    vendor.lists.flatMap((list) => (list.bundledFile ? [{ vendor, list, file: list.bundledFile }] : [])),
  );
  for (const { file } of work) if (!files.has(file)) throw new Error(`bundled list ${file} missing from the bundle`);
  const dateOf = (file: string) => new Date(provenance.files[file]!.lastChangedAt).toISOString();
  work.sort((a, b) => (dateOf(a.file) < dateOf(b.file) ? -1 : dateOf(a.file) > dateOf(b.file) ? 1 : 0));
  const summaries: ListSummary[] = [];
  await withPageCache(db.sqlite, BULK_CACHE_KIB, async () => {
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
  });
  return summaries;
}
