/**
 * `bun run data:audit [--db <path>]`: what the national directory holds and how each entry's
 * fields are known: entries stored and listed, unusable ones by reason, fhirVersion and state by
 * evidence, the brands bundle as the server serves it (test or placeholder entries in it,
 * duplicate brands, shared NPIs, developer pages given as absent), and a re-judged sample of the
 * versions the old rules inferred (src/pipeline/national/audit.ts);
 * built from the bundle, also every published URL ingest repaired or dropped, with why.
 * Without --db it builds the bundled lists (db/national/) into a temporary file first.
 * Exit status: 0 done, 1 failed, 2 usage error.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../../cli/args";

const { values } = parseCli({
  command: "bun run data:audit",
  synopsis: ["[--db <path>]"],
  description:
    "Counts the national directory's entries by how each field is known and why some are not listed. Without --db, builds the bundled lists into a temporary file first.",
  options: { db: { type: "string" } },
  optionHelp: [["--db <path>", "a directory database to audit (opened read-only) instead of the bundled lists"]],
  exitStatus: [[1, "failed"]],
});
// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { openReadOnly } = await import("../../db/client");
const { auditDatabase, formatAudit, formatUrlFindings } = await import("./audit");
const { formatPlaceShares, placeShares } = await import("./audit-places");
const { buildNationalDatabase } = await import("./build");

const dir = values.db === undefined ? mkdtempSync(join(tmpdir(), "data-audit-")) : null;
try {
  const path = values.db ?? join(dir!, "national.sqlite");
  const built = values.db === undefined ? await buildNationalDatabase(path) : null;
  if (built) console.log(`the bundled national lists (db/national/), as of ${built.asOf}`);
  const sqlite = openReadOnly(path, 0);
  for (const line of formatAudit(auditDatabase(sqlite))) console.log(line);
  for (const line of formatPlaceShares(placeShares(sqlite))) console.log(line);
  sqlite.close();
  for (const line of built
    ? formatUrlFindings(built.summaries)
    : ["published URLs repaired or dropped at ingest: not known from a database (its ingest summary lists them)"])
    console.log(line);
} catch (error) {
  console.error(`data:audit failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
