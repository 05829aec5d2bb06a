/**
 * `bun run data:sample [--out <path>]`: rebuilds the sample database from scratch (default
 * DATABASE_PATH, else db/directory.sqlite) and prints what it holds.
 */
import { parseCli } from "../../src/cli/args";

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

  // Loaded once the arguments are read: `--help` and a bad argument answer without them.
  const { loadConfig } = await import("../../src/config");
  const { describeDatabase } = await import("../../src/db/describe");
  const { buildSampleDatabase } = await import("./build");
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
