/**
 * Builds the directory index file of a dataset version, and keeps a copy in the database
 * (src/db/stored-index.ts). The server runs this as a child process
 * (its memory and event loop stay untouched); refresh and data:generate-1m call buildIndexFile at
 * their end so that the server only has to load the file.
 *   bun run db:index <database> <out-file> <expected-version>
 * Exit 0: written; 3: the database is at another version now (the caller re-pins and retries).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../cli/args";
import { beginRead, closeReader, openReadOnly } from "../db/client";
import { readDatabaseId, readDatasetVersion } from "../db/dataset-meta";
import { storeIndex } from "../db/stored-index";
import { buildDirectoryData } from "./build-data";
import { encodeDataFile, writeFileBytes } from "./data-file";
import { DATA_FORMAT, type DirectoryData } from "./directory-data";
import { keepHistoryOf } from "./report-cards";

export const VERSION_MOVED = 3;

export const indexFileName = (version: number) => `v${version}-f${DATA_FORMAT}.bin`;

/** Writes the index file of the database's current version (or of `expectedVersion`, else returns null). */
export async function buildIndexFile(
  databasePath: string,
  out: { dir: string } | { file: string },
  expectedVersion?: number,
): Promise<string | null> {
  const sqlite = openReadOnly(databasePath, 10_000);
  let built:
    | { version: number; databaseId: string; bytes: Uint8Array; cards: DirectoryData["reportCards"] }
    | undefined;
  try {
    beginRead(sqlite);
    const version = readDatasetVersion(sqlite);
    if (expectedVersion !== undefined && version !== expectedVersion) return null;
    let file: string;
    if ("file" in out) file = out.file;
    else {
      mkdirSync(out.dir, { recursive: true });
      file = join(out.dir, indexFileName(version));
    }
    const databaseId = readDatabaseId(sqlite);
    const data = buildDirectoryData(sqlite);
    const bytes = encodeDataFile(data);
    await writeFileBytes(file, bytes);
    built = { version, databaseId, bytes, cards: data.reportCards };
    return file;
  } finally {
    closeReader(sqlite);
    // Stored once the read transaction is closed (a database not in WAL mode could not be written under it).
    if (built) {
      storeIndex(databasePath, DATA_FORMAT, built.version, built.databaseId, built.bytes);
      keepHistoryOf(databasePath, built.cards);
    }
  }
}

if (import.meta.main) {
  const { positionals, fail } = parseCli({
    command: "bun run db:index",
    synopsis: ["<database> <out-file> <expected-version>"],
    description: "Writes the directory index file of the database, if it is still at the expected dataset version.",
    options: {},
    optionHelp: [],
    allowPositionals: true,
    exitStatus: [[3, "the database is at another version now"]],
  });
  const [databasePath, outFile, expected] = positionals;
  if (!databasePath || !outFile || expected === undefined || positionals.length > 3 || !/^\d+$/.test(expected))
    fail("expects <database> <out-file> <expected-version>");
  process.exit(
    (await buildIndexFile(databasePath!, { file: outFile! }, Number(expected))) === null ? VERSION_MOVED : 0,
  );
}
