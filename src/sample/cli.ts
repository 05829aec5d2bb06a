/**
 * `bun run db:sample [--out <path>]`: rebuilds the sample database from scratch (default
 * DATABASE_PATH, else db/directory.sqlite) and prints what it holds.
 */
import { Database } from "bun:sqlite";
import { buildSampleDatabase } from "./build";

function parseArgs(argv: string[]): { out: string } {
  let out = process.env.DATABASE_PATH || "db/directory.sqlite";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--out" && argv[i + 1]) out = argv[++i]!;
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else if (arg === "--help" || arg === "-h") {
      console.log("usage: bun run db:sample [--out <path>]");
      process.exit(0);
    } else {
      console.error(`unknown argument: ${arg}\nusage: bun run db:sample [--out <path>]`);
      process.exit(2);
    }
  }
  return { out };
}

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
  const { out } = parseArgs(process.argv.slice(2));
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
