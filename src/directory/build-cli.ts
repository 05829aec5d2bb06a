/**
 * Builds the directory index file of one dataset version, in its own process so that the
 * server's memory and event loop are untouched:
 *   bun src/directory/build-cli.ts <database> <out-file> <expected-version>
 * Exit 0: written; 3: the database is at another version now (the caller re-pins and retries).
 */
import { Database } from "bun:sqlite";
import { readDatasetVersion } from "../db/dataset-meta";
import { buildDirectoryData } from "./build-data";
import { writeDataFile } from "./data-file";

export const VERSION_MOVED = 3;

if (import.meta.main) {
  const [databasePath, outFile, expected] = Bun.argv.slice(2);
  if (!databasePath || !outFile || expected === undefined) {
    console.error("usage: bun src/directory/build-cli.ts <database> <out-file> <expected-version>");
    process.exit(2);
  }
  const sqlite = new Database(databasePath, { readonly: true });
  sqlite.exec("PRAGMA busy_timeout = 10000");
  sqlite.exec("BEGIN");
  if (readDatasetVersion(sqlite) !== Number(expected)) process.exit(VERSION_MOVED);
  await writeDataFile(outFile, buildDirectoryData(sqlite));
  sqlite.exec("COMMIT");
  process.exit(0);
}
