/**
 * Time to ready of a server given the database file alone (a LiteFS replica, a restored backup):
 * no index folder beside it. The database is copied (the bench file is never written), opened
 * once as the primary would (migrations, identity) and its index built, which also keeps it in
 * the database (src/db/stored-index.ts); then, in the same minutes:
 *   - replica: the .sqlite file alone copied to a new folder, the server started on it;
 *   - without the stored index: the same copy with the directory_index table dropped (what a
 *     replica got before the index was kept in the database): the server builds the index.
 * Ready = spawn → first `GET /api/v1/endpoints` answered 200. Target: ≤ 5 s at 1M entries.
 *   BENCH_DB=/path/to.sqlite node_modules/.bin/bun bench/replica-start.ts
 */
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/db/client";
import { buildIndexFile } from "../src/directory/build-cli";
import { envNumber } from "./lib/env";
import { freePort, startPinned, stop, waitUntilAnswers } from "./lib/process";
import { fmt, loadAverages, TARGETS } from "./lib/report";

const source = process.env.BENCH_DB ?? "/work/bench-data/endpoints-1000000-seed1-history400.sqlite";
const runs = envNumber("BENCH_RUNS", 2);
const cpus = process.env.BENCH_SERVER_CPUS ?? "0-1";
const work = mkdtempSync(join(tmpdir(), "bench-replica-"));
const log = (line: string) => console.log(line);

async function readyMs(path: string, label: string): Promise<number> {
  const server = startPinned(
    join(import.meta.dir, "..", "src", "index.ts"),
    cpus,
    { DATABASE_PATH: path, HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    join(work, `${label}.log`),
    freePort(),
  );
  try {
    return await waitUntilAnswers(server, "/api/v1/endpoints", 300_000);
  } finally {
    await stop(server);
  }
}

try {
  log(`load average at start: ${loadAverages()}`);
  const primary = join(work, "primary.sqlite");
  copyFileSync(source, primary);
  const db = openDatabase(primary);
  db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.sqlite.close();
  const t = performance.now();
  await buildIndexFile(primary, { dir: `${primary}.index` });
  log(`primary: index built and kept in the database in ${fmt(performance.now() - t)} ms`);
  const rows: [string, number][] = [];
  for (let run = 1; run <= runs; run++) {
    const replica = join(work, `replica-${run}`, "directory.sqlite");
    const bare = join(work, `bare-${run}`, "directory.sqlite");
    for (const path of [replica, bare]) {
      rmSync(join(path, ".."), { recursive: true, force: true });
      mkdirSync(join(path, ".."), { recursive: true });
      copyFileSync(primary, path);
    }
    const sqlite = new Database(bare);
    sqlite.exec("DROP TABLE directory_index");
    sqlite.close();
    rows.push([`replica (stored index), run ${run}`, await readyMs(replica, `replica-${run}`)]);
    log(`${rows.at(-1)![0]}: ${fmt(rows.at(-1)![1])} ms, load ${loadAverages()}`);
    rows.push([`no stored index (builds it), run ${run}`, await readyMs(bare, `bare-${run}`)]);
    log(`${rows.at(-1)![0]}: ${fmt(rows.at(-1)![1])} ms, load ${loadAverages()}`);
    rmSync(join(replica, ".."), { recursive: true, force: true });
    rmSync(join(bare, ".."), { recursive: true, force: true });
  }
  log(`\nload average at the end: ${loadAverages()}`);
  log("| start | ready (ms) | target |\n|---|---|---|");
  for (const [label, ms] of rows)
    log(
      `| ${label} | ${fmt(ms)} | ${label.startsWith("replica") ? (ms <= TARGETS.readyMs ? "ok" : "**MISSED**") : ""} |`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
