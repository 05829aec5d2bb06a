/**
 * `bun run db:sample [--out <path>]`: rebuilds the sample database from scratch (default
 * DATABASE_PATH, else db/directory.sqlite) and prints what it holds.
 */
import { Database } from "bun:sqlite";
import { parseCli } from "../cli/args";
import { loadConfig } from "../config";
import { buildSampleDatabase } from "./build";

function counts(sqlite: Database, sql: string): string {
  const rows = sqlite.prepare(sql).all() as { k: string; n: number }[];
  return rows.map((r) => `${r.k} ${r.n}`).join(", ");
}

/** What the built file holds, read with plain SQL. */
export function describeSampleDatabase(path: string): string[] {
  const sqlite = new Database(path, { readonly: true });
  try {
    const total = (sqlite.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number }).n;
    const vendors = (sqlite.prepare("SELECT COUNT(DISTINCT vendor_id) AS n FROM entries").get() as { n: number }).n;
    const urls = (sqlite.prepare("SELECT COUNT(DISTINCT url) AS n FROM entries").get() as { n: number }).n;
    return [
      `entries ${total} (${vendors} vendors, ${urls} distinct URLs)`,
      `status: ${counts(sqlite, "SELECT status AS k, COUNT(*) AS n FROM entries GROUP BY status ORDER BY status")}`,
      `fhirVersion: ${counts(sqlite, "SELECT fhir_version AS k, COUNT(*) AS n FROM entries GROUP BY fhir_version ORDER BY fhir_version")}`,
      `probeStatus: ${counts(sqlite, "SELECT COALESCE(p.probe_status, 'unchecked') AS k, COUNT(*) AS n FROM entries e LEFT JOIN probes p ON p.url = e.url GROUP BY k ORDER BY k")}`,
      `access: ${counts(sqlite, "SELECT access AS k, COUNT(*) AS n FROM entries GROUP BY access ORDER BY access")}`,
    ];
  } finally {
    sqlite.close();
  }
}

if (import.meta.main) {
  const { values } = parseCli({
    command: "bun run db:sample",
    synopsis: ["[--out <path>]"],
    description: `Rebuilds the sample database from scratch, offline: the lists under db/sample/ ingested, then
probed against their recorded answers replayed on 127.0.0.1; then prints what it holds.`,
    options: { out: { type: "string" } },
    optionHelp: [["--out <path>", "the file to write (default DATABASE_PATH)"]],
    environment: "DATABASE_PATH (default db/directory.sqlite).",
    exitStatus: [[1, "failed"]],
  });
  const out = values.out ?? loadConfig().databasePath;
  const started = performance.now();
  try {
    await buildSampleDatabase(out, { log: (line) => console.log(line) });
  } catch (error) {
    console.error(`db:sample failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(`sample database written to ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const line of describeSampleDatabase(out)) console.log(`  ${line}`);
}
