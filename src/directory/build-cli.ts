/**
 * Builds the directory index file of a dataset version. The server runs this as a child process
 * (its memory and event loop stay untouched); refresh and db:generate call buildIndexFile at
 * their end so that the server only has to load the file.
 *   bun src/directory/build-cli.ts <database> <out-file> <expected-version>
 * Exit 0: written; 3: the database is at another version now (the caller re-pins and retries).
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { readDatasetVersion } from "../db/dataset-meta";
import { buildDirectoryData } from "./build-data";
import { writeDataFile } from "./data-file";
import { DATA_FORMAT } from "./directory-data";

export const VERSION_MOVED = 3;

export const indexFileName = (version: number) => `v${version}-f${DATA_FORMAT}.bin`;

/** Writes the index file of the database's current version (or of `expectedVersion`, else returns null). */
export async function buildIndexFile(
  databasePath: string,
  out: { dir: string } | { file: string },
  expectedVersion?: number,
): Promise<string | null> {
  const sqlite = new Database(databasePath, { readonly: true });
  try {
    sqlite.exec("PRAGMA busy_timeout = 10000");
    sqlite.exec("BEGIN");
    const version = readDatasetVersion(sqlite);
    if (expectedVersion !== undefined && version !== expectedVersion) return null;
    let file: string;
    if ("file" in out) file = out.file;
    else {
      mkdirSync(out.dir, { recursive: true });
      file = join(out.dir, indexFileName(version));
    }
    await writeDataFile(file, buildDirectoryData(sqlite));
    return file;
  } finally {
    sqlite.close();
  }
}

if (import.meta.main) {
  const [databasePath, outFile, expected] = Bun.argv.slice(2);
  if (!databasePath || !outFile || expected === undefined) {
    console.error("usage: bun src/directory/build-cli.ts <database> <out-file> <expected-version>");
    process.exit(2);
  }
  process.exit((await buildIndexFile(databasePath, { file: outFile }, Number(expected))) === null ? VERSION_MOVED : 0);
}
