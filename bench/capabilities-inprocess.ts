/**
 * In-process cost of one capabilities answer: `app.handle` on random ids of a generated database,
 * no network. A quick before/after check of the capabilities route (work measured in process costs
 * two to three times as much between network requests; `bun run bench:http` measures that).
 *
 *     bun bench/capabilities-inprocess.ts <database.sqlite> [--requests 50000] [--ids 2000]
 *
 * Opens the database through the migrations (an older file is migrated first), answers every
 * sampled id once (warm-up), then times `--requests` answers for ids drawn at random.
 */
import { parseCli } from "../src/cli/args";

const parsed = parseCli({
  command: "bun run bench:capabilities-inprocess",
  synopsis: ["<database.sqlite> [--requests <n>] [--ids <n>]"],
  description:
    "The in-process cost of one capabilities answer (app.handle, no network) on random ids of <database.sqlite>, after a warm-up answering every sampled id once.",
  options: { requests: { type: "string", default: "50000" }, ids: { type: "string", default: "2000" } },
  optionHelp: [
    ["--requests <n>", "answers timed (default 50000)"],
    ["--ids <n>", "ids sampled (default 2000)"],
  ],
  allowPositionals: true,
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { loadConfig } = await import("../src/config");
const { openDatabase } = await import("../src/db/client");
const { openDirectory } = await import("../src/directory/directory");
const { createApp } = await import("../src/server/app");

const path = parsed.positionals[0] ?? parsed.fail("missing <database.sqlite>");
const requests = Number(parsed.values.requests);
const idCount = Number(parsed.values.ids);
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(idCount) || idCount < 1)
  parsed.fail("--requests and --ids must be whole numbers ≥ 1");

const db = openDatabase(path);
const config = loadConfig({
  DATABASE_PATH: path,
  RATE_LIMIT_MAX: "0",
  LOG_LEVEL: "error",
  INDEX_IN_PROCESS_BELOW: "0",
});
const app = createApp({ directory: openDirectory(db, config), db, config });
const ids = (db.sqlite.prepare("SELECT id FROM entries ORDER BY random() LIMIT ?").values(idCount) as [string][]).map(
  ([id]) => id,
);

let bytes = 0;
const answer = async (id: string) => {
  const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/capabilities`));
  if (response.status !== 200) throw new Error(`${id}: ${response.status}`);
  return (await response.arrayBuffer()).byteLength;
};
for (const id of ids) bytes += await answer(id);
const meanBytes = bytes / ids.length;

let state = 1;
const started = performance.now();
for (let i = 0; i < requests; i++) {
  state = (Math.imul(state, 1103515245) + 12345) >>> 0;
  await answer(ids[state % ids.length]!);
}
const micros = ((performance.now() - started) * 1000) / requests;
const rss = process.memoryUsage().rss / 1e6;
console.log(
  `${requests} capabilities answers over ${ids.length} random ids: ${micros.toFixed(1)} µs per request in process; mean body ${Math.round(meanBytes)} bytes; RSS ${rss.toFixed(0)} MB`,
);
process.exit(0);
