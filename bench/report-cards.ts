/**
 * Report cards: `bun run bench:report-cards [<database.sqlite>] [--requests 20000] [--vendors 122]`.
 *
 * 1. Rate: the all-developer report (JSON and CSV) and one developer's card against the stats
 *    route, in process (`app.handle`, no network, bodies unread), rounds alternated in the same run: every one
 *    is a kept answer of the dataset version, so they should answer at the same rate. The
 *    database defaults to the 1M generated one (BENCH_DB, as bench:fhir). Also the cost of
 *    computing the cards at index build (the whole build, and the cards' share of it).
 * 2. Size: a year of daily history for `--vendors` developers and the directory, written through
 *    the store's own path into a fresh database, measured on disk (SQLite's dbstat).
 */

import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import type { Figure } from "../src/model/report-card";

const { values, positionals, fail } = parseCli({
  command: "bun run bench:report-cards",
  synopsis: ["[<database.sqlite>] [--requests <n>] [--vendors <n>]"],
  description:
    "The report cards' rate in process against the stats route on <database.sqlite> (default BENCH_DB, else the 1M generated one) and their cost at index build; then a year of daily history for --vendors developers, measured on disk.",
  options: { requests: { type: "string", default: "20000" }, vendors: { type: "string", default: "122" } },
  optionHelp: [
    ["--requests <n>", "requests per route and round (default 20000)"],
    ["--vendors <n>", "developers in the history size part (default 122)"],
  ],
  environment: "BENCH_DB.",
  allowPositionals: true,
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { loadConfig } = await import("../src/config");
const { beginRead, closeReader, openDatabase } = await import("../src/db/client");
const { NATIONAL, writeReportPoints } = await import("../src/db/report-history");
const { buildDirectoryData } = await import("../src/directory/build-data");
const { openDirectory } = await import("../src/directory/directory");
const { historyFigures } = await import("../src/model/report-card");
const { createApp } = await import("../src/server/app");
const ROOT = resolve(import.meta.dir, "..");
const path =
  positionals[0] ?? process.env.BENCH_DB ?? join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite");
const requests = Number(values.requests);
const vendorCount = Number(values.vendors);
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(vendorCount) || vendorCount < 1)
  fail("--requests and --vendors must be whole numbers ≥ 1");

// Build cost: the index with its cards, timed as the server's child would build it.
const db = openDatabase(path);
const reader = new Database(path, { readonly: true });
beginRead(reader);
let started = performance.now();
const data = buildDirectoryData(reader);
const buildMs = performance.now() - started;
closeReader(reader);
console.log(
  `index build with report cards: ${(buildMs / 1000).toFixed(1)} s for ${data.size} entries, ${data.reportCards.vendors.length} developers (load ${loadavg()[0]!.toFixed(1)})`,
);

const config = loadConfig({ DATABASE_PATH: path, RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" });
const app = createApp({ directory: openDirectory(db, config), db, config });
const someVendor = data.reportCards.vendors.find((v) => v.list.listed > 0)?.vendorId ?? "epic";
const ROUTES = [
  "/api/v1/stats",
  "/api/v1/vendors/report",
  "/api/v1/vendors/report?format=csv",
  `/api/v1/vendors/${someVendor}/report`,
  "/api/v1/stats/history",
];
/**
 * The server's work for one answer: the Response, its body unread (a kept answer's body is a Blob
 * Bun hands to the socket as it is; copying it into this process would time the client, not the
 * server).
 */
const answer = async (target: string) => {
  const response = await app.handle(new Request(`http://localhost${target}`));
  if (response.status !== 200) throw new Error(`${target}: ${response.status}`);
  return response;
};
const sizes = new Map<string, number>();
for (const target of ROUTES) sizes.set(target, (await (await answer(target)).arrayBuffer()).byteLength);
const micros = new Map(ROUTES.map((target) => [target, 0]));
const ROUNDS = 10;
for (let round = 0; round < ROUNDS; round++)
  for (const target of ROUTES) {
    started = performance.now();
    for (let i = 0; i < requests / ROUNDS; i++) await answer(target);
    micros.set(target, micros.get(target)! + (performance.now() - started) * 1000);
  }
console.log(`\n${requests} answers each, in process, ${ROUNDS} alternated rounds:`);
const stats = micros.get("/api/v1/stats")! / requests;
for (const target of ROUTES) {
  const each = micros.get(target)! / requests;
  console.log(
    `  ${target.padEnd(42)} ${each.toFixed(1).padStart(6)} µs/request  ${(stats / each).toFixed(2)}× the stats route's rate  ${sizes.get(target)} bytes`,
  );
}

// A year of daily history for `vendorCount` developers and the directory.
const dir = mkdtempSync(join(tmpdir(), "report-history-"));
try {
  const history = openDatabase(join(dir, "history.sqlite"));
  const cards = data.reportCards.vendors.filter((v) => v.list.listed > 0);
  const points = new Map<string, Record<string, Figure>>([[NATIONAL, historyFigures(data.reportCards.national)]]);
  for (let v = 0; v < vendorCount; v++) points.set(`developer-${v}`, historyFigures(cards[v % cards.length]!));
  const today = 20_000;
  history.sqlite.transaction(() => {
    for (let day = today - 364; day <= today; day++) writeReportPoints(history.sqlite, day, points);
  })();
  history.sqlite.exec("VACUUM");
  const { bytes } = history.sqlite
    .query("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN ('report_history', 'report_figure_names')")
    .get() as { bytes: number };
  console.log(
    `\na year of daily history, ${vendorCount} developers and the directory (${365 * points.size} points): ${(bytes / 1e6).toFixed(2)} MB on disk (dbstat), ${Math.round(bytes / (365 * points.size))} bytes a point`,
  );
  history.sqlite.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
