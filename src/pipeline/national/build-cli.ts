/**
 * `bun run db:national [--out <path>]`: builds the national directory from the bundled lists
 * (db/national/) into a new database file (default DATABASE_PATH, else db/directory.sqlite),
 * replacing any file there, and prints what it holds. What `start` does on its own when there
 * is no database; the LiteFS primary runs it to seed the cluster.
 * Exit status: 0 built, 1 failed (nothing written), 2 usage error.
 */
import { parseCli } from "../../cli/args";

const { values } = parseCli({
  command: "bun run db:national",
  synopsis: ["[--out <path>]"],
  description: "Builds the national directory from the bundled lists (db/national/) into a new database file.",
  options: { out: { type: "string" } },
  optionHelp: [["--out <path>", "the file to write (default DATABASE_PATH); an existing file is replaced"]],
  environment: "DATABASE_PATH (default db/directory.sqlite).",
  exitStatus: [[1, "failed (nothing written)"]],
});
// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { loadConfig } = await import("../../config");
const { describeDatabase } = await import("../../db/describe");
const { buildNationalDatabase } = await import("./build");
const out = values.out ?? loadConfig().databasePath;
const started = performance.now();
try {
  await buildNationalDatabase(out, { log: (line) => console.log(line) });
} catch (error) {
  console.error(`db:national failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
console.log(`national directory written to ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
for (const line of describeDatabase(out)) console.log(`  ${line}`);
