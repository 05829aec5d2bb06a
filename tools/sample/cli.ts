/**
 * `bun run data:sample [--out <path>]`: rebuilds the sample database from scratch (default
 * DATABASE_PATH, else db/directory.sqlite) and prints what it holds.
 */
import { parseCli } from "../../src/cli/args";
import { loadConfig } from "../../src/config";
import { describeDatabase } from "../../src/db/describe";
import { buildSampleDatabase } from "./build";

if (import.meta.main) {
  const { values } = parseCli({
    command: "bun run data:sample",
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
    console.error(`data:sample failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(`sample database written to ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const line of describeDatabase(out)) console.log(`  ${line}`);
}
