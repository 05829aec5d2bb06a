/**
 * `bun run bench:changes`: the change feed (GET /api/v1/changes), three ways.
 *
 * 1. size: what a year of changes takes in the database (SQLite's dbstat), at 1M entries and at
 *    the national directory's 40,618, with the generator's model of a running directory (a daily
 *    refresh and hourly probe versions; tools/generate/changes.ts).
 * 2. read: `changes?since=<a week ago>` on 1M entries with a year of history, against the bare
 *    Bun.serve ceiling on the same core (bench/ceiling.ts), wrk on the other core: one URL
 *    (answered from the kept answers after the first request) and rotating URLs (every version
 *    of the week × limit 51–100: mostly misses, the SQLite read). Target: a quarter of the ceiling.
 * 3. record: the national refresh's write time with the feed and with a checkout from before it
 *    (BENCH_BASELINE), alternated: the first build, an unchanged refresh, and a refresh where 1 %
 *    of entries moved ZIP code. Target: ≤ 20 % more.
 *
 * Knobs: BENCH_PARTS (size,read,record), BENCH_DB (default bench/data/…-changes365.sqlite, built
 * when missing), BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50), BENCH_SERVER_CPUS
 * (0), BENCH_LOAD_CPUS (1), BENCH_RECORD_RUNS (3), BENCH_BASELINE (a checkout before the feed).
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import { envNumber } from "./lib/env";
import { cpuSecondsOf, freePort, type Started, startPinned, stop, waitUntilAnswers } from "./lib/process";
import { fmt, median, TARGETS } from "./lib/report";
import { runWrk, type WrkResult, writeLuaScripts, wrkInstalled } from "./lib/wrk";

parseCli({
  command: "bun run bench:changes",
  synopsis: [""],
  description:
    "The change feed (GET /api/v1/changes): what a year of changes takes in the database, its read rate against the ceiling, and what recording changes adds to a national refresh.",
  options: {},
  optionHelp: [],
  environment:
    "BENCH_PARTS (size,read,record), BENCH_DB, BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50), BENCH_SERVER_CPUS (0), BENCH_LOAD_CPUS (1), BENCH_RECORD_RUNS (3), BENCH_BASELINE.",
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { generateDataset } = await import("../tools/generate/generator");

const ROOT = resolve(import.meta.dir, "..");
const DATA = join(ROOT, "bench", "data");
const env = process.env;
const config = {
  parts: new Set((env.BENCH_PARTS || "size,read,record").split(",").map((s) => s.trim())),
  seconds: Math.round(envNumber("BENCH_SECONDS", 5)),
  rounds: Math.max(1, Math.round(envNumber("BENCH_ROUNDS", 3))),
  connections: Math.round(envNumber("BENCH_CONNECTIONS", 50)),
  serverCpus: env.BENCH_SERVER_CPUS || "0",
  loadCpus: env.BENCH_LOAD_CPUS || "1",
  recordRuns: Math.max(1, Math.round(envNumber("BENCH_RECORD_RUNS", 3))),
};
const CHANGE_DAYS = 365;
const NATIONAL_ENTRIES = 40_618;
const dbPath = env.BENCH_DB
  ? resolve(env.BENCH_DB)
  : join(DATA, `endpoints-1000000-seed1-history400-changes${CHANGE_DAYS}.sqlite`);
const TABLES = ["entry_changes", "dataset_versions"];
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");

/** Bytes of the change feed's tables and index, and its rows. */
function feedSize(path: string): { bytes: number; changes: number; versions: number } {
  const db = new Database(path, { readonly: true });
  try {
    const marks = TABLES.map(() => "?").join(", ");
    const { bytes } = db.query(`SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN (${marks})`).get(...TABLES) as {
      bytes: number;
    };
    const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { bytes, changes: count("entry_changes"), versions: count("dataset_versions") };
  } finally {
    db.close();
  }
}

function ensureDatabase() {
  if (existsSync(dbPath)) return;
  console.log(`building ${dbPath} (1M entries, 400 days of availability, ${CHANGE_DAYS} days of changes)`);
  mkdirSync(DATA, { recursive: true });
  generateDataset({
    endpoints: 1_000_000,
    out: dbPath,
    seed: 1,
    historyDays: 400,
    changeDays: CHANGE_DAYS,
    log: console.log,
  });
}

function sizePart() {
  const dir = mkdtempSync(join(tmpdir(), "bench-changes-"));
  try {
    const national = join(dir, "national.sqlite");
    generateDataset({ endpoints: NATIONAL_ENTRIES, out: national, seed: 1, changeDays: CHANGE_DAYS });
    console.log(`\n## Size of a year of changes (dbstat: entry_changes and dataset_versions)\n`);
    console.log("| entries | changes | versions | MB | bytes per change |\n|---:|---:|---:|---:|---:|");
    for (const [entries, path] of [
      [NATIONAL_ENTRIES, national],
      [1_000_000, dbPath],
    ] as const) {
      const size = feedSize(path);
      console.log(
        `| ${fmt(entries)} | ${fmt(size.changes)} | ${fmt(size.versions)} | ${fmt(size.bytes / 1e6, 1)} | ${fmt(size.bytes / size.changes)} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Measured extends WrkResult {
  cpuUsPerRequest: number | null;
}

async function measure(target: Started, url: string, script: string, args?: string[]): Promise<Measured> {
  const before = cpuSecondsOf(target.pid);
  const result = await runWrk({
    url: `http://127.0.0.1:${target.port}${url}`,
    seconds: config.seconds,
    connections: config.connections,
    threads: 1,
    cpus: config.loadCpus,
    script,
    scriptArgs: args,
  });
  const after = cpuSecondsOf(target.pid);
  const cpu = before !== null && after !== null ? ((after - before) * 1e6) / result.requests : null;
  return { ...result, cpuUsPerRequest: cpu };
}

async function readPart() {
  if (!wrkInstalled()) {
    console.log("\nread: skipped (wrk is not installed)");
    return;
  }
  const db = new Database(dbPath, { readonly: true });
  const newest = (db.query("SELECT max(at) AS at FROM dataset_versions").get() as { at: string }).at;
  const weekAgo = new Date(Date.parse(newest) - 7 * 86_400_000).toISOString();
  const week = (
    db.query("SELECT version FROM dataset_versions WHERE at >= ? ORDER BY version").values(weekAgo) as [number][]
  ).map(([v]) => v);
  db.close();
  const since = week[0]! - 1;
  mkdirSync(DATA, { recursive: true });
  const lua = writeLuaScripts(DATA);
  const pathsFile = join(DATA, "changes-paths.txt");
  const rotating: string[] = [];
  for (const version of week)
    for (let limit = 51; limit <= 100; limit++) rotating.push(`/api/v1/changes?since=${version - 1}&limit=${limit}`);
  writeFileSync(pathsFile, `${rotating.join("\n")}\n`);

  const startCeiling = (bytes?: number) =>
    startPinned(
      join(ROOT, "bench/ceiling.ts"),
      config.serverCpus,
      { HOST: "127.0.0.1", CEILING_BODY_BYTES: bytes ? String(bytes) : "" },
      join(DATA, "ceiling.log"),
      freePort(),
    );
  const ceiling = startCeiling();
  let sameSize: Started | undefined;
  const indexDir = mkdtempSync(join(tmpdir(), "bench-changes-index-"));
  const server = startPinned(
    join(ROOT, "src/index.ts"),
    config.serverCpus,
    { HOST: "127.0.0.1", DATABASE_PATH: dbPath, RATE_LIMIT_MAX: "0", LOG_LEVEL: "warn", INDEX_DIR: indexDir },
    join(DATA, "server-changes.log"),
    freePort(),
  );
  try {
    await waitUntilAnswers(ceiling, "/", 10_000);
    await waitUntilAnswers(server, "/api/v1/changes", 600_000);
    // The 1,000-change answer is large: it is also compared with a ceiling sending as many bytes.
    const big = await (await fetch(`http://127.0.0.1:${server.port}/api/v1/changes?since=${since}&limit=1000`)).text();
    sameSize = startCeiling(big.length);
    await waitUntilAnswers(sameSize, "/", 10_000);
    const shapes = [
      { label: `since=${since} (a week ago), limit 100, one URL`, url: `/api/v1/changes?since=${since}` },
      {
        label: `since=${since}, limit 1000, one URL (same-size ceiling: ${fmt(big.length)} bytes)`,
        url: `/api/v1/changes?since=${since}&limit=1000`,
        roof: sameSize,
      },
      {
        label: `rotating: ${fmt(rotating.length)} URLs (each version of the week × limit 51–100)`,
        url: "/",
        args: [pathsFile],
      },
    ];
    console.log(
      `\n## Reading the feed: 1M entries, ${CHANGE_DAYS} days of changes (load ${load()})\n\n` +
        `${week.length} versions in the week before ${newest}; server on CPU ${config.serverCpus}, wrk on ${config.loadCpus}, ${config.connections} connections, ${config.seconds} s, median of ${config.rounds} rounds by ratio; the file is warm (each round reads it).\n`,
    );
    console.log(
      "| shape | requests/s | ceiling | ratio | p99 ms | server CPU µs/request |\n|---|---:|---:|---:|---:|---:|",
    );
    for (const shape of shapes) {
      const rounds: { result: Measured; ceiling: Measured }[] = [];
      await measure(server, shape.url, shape.args ? lua.randomPath : lua.report, shape.args); // warm-up
      for (let round = 0; round < config.rounds; round++) {
        const result = await measure(server, shape.url, shape.args ? lua.randomPath : lua.report, shape.args);
        const roof = await measure(shape.roof ?? ceiling, "/", lua.report);
        if (result.non2xx > 0) throw new Error(`${shape.label}: ${result.non2xx} answers were not 2xx`);
        rounds.push({ result, ceiling: roof });
      }
      const ratio = (r: (typeof rounds)[number]) => r.result.rps / r.ceiling.rps;
      const chosen = [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)]!;
      const mark = ratio(chosen) >= TARGETS.ratio ? "" : " (under target)";
      console.log(
        `| ${shape.label} | ${fmt(chosen.result.rps)} | ${fmt(chosen.ceiling.rps)} | ${fmt(ratio(chosen) * 100)} %${mark} | ${fmt(chosen.result.p99, 1)} | ${chosen.result.cpuUsPerRequest === null ? "?" : fmt(chosen.result.cpuUsPerRequest)} |`,
      );
    }
  } finally {
    await stop(server);
    await stop(ceiling);
    if (sameSize) await stop(sameSize);
    rmSync(indexDir, { recursive: true, force: true });
  }
}

/**
 * The national refresh, timed in a child process against the code of `root` (this checkout, or
 * the baseline's): a fresh database, the bundled lists ingested three times (the first build, an
 * unchanged refresh, then every 100th entry moved to another ZIP code, so its city and state move
 * too), each timed as the milliseconds spent inside the ingest's write transactions (parsing
 * excluded). Prints one JSON line.
 */
const RECORD_CHILD = `
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const root = process.argv[2];
const { openDatabase } = await import(join(root, "src/db/client.ts"));
const { ingestBundledLists, readBundle } = await import(join(root, "src/pipeline/ingest/national-lists.ts"));
const bundle = readBundle(join(root, "db/national"));
const files = new Map();
let n = 0;
for (const [name, content] of bundle.files) {
  const list = JSON.parse(content);
  for (const item of list.Endpoints ?? []) if (++n % 100 === 0) item.OrganizationZipCode = n % 200 ? "75201" : "02114";
  files.set(name, JSON.stringify(list));
}
const moved = { provenance: bundle.provenance, files };
const dir = mkdtempSync(join(tmpdir(), "bench-record-"));
const db = openDatabase(join(dir, "d.sqlite"));
const original = db.sqlite.transaction.bind(db.sqlite);
let ms = 0;
db.sqlite.transaction = (fn) => original((...args) => {
  const started = performance.now();
  try { return fn(...args); } finally { ms += performance.now() - started; }
});
const times = [];
for (const step of [bundle, bundle, moved]) {
  ms = 0;
  await ingestBundledLists(db, step);
  times.push(ms);
}
const hasFeed = db.sqlite.query("SELECT name FROM sqlite_master WHERE name = 'entry_changes'").get();
const changes = hasFeed ? db.sqlite.query("SELECT count(*) AS n FROM entry_changes").get().n : 0;
db.sqlite.close();
rmSync(dir, { recursive: true, force: true });
console.log("RECORD " + JSON.stringify({ times, changes }));
`;
const PHASES = ["first build", "unchanged refresh", "1 % moved"] as const;

async function timedRefreshes(root: string, script: string): Promise<{ times: number[]; changes: number }> {
  const child = Bun.spawn([process.execPath, script, root], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const out = await new Response(child.stdout).text();
  const line = out.split("\n").find((l) => l.startsWith("RECORD "));
  if ((await child.exited) !== 0 || !line) throw new Error(`refresh timing in ${root} failed`);
  return JSON.parse(line.slice("RECORD ".length));
}

async function recordPart() {
  const baseline = env.BENCH_BASELINE ? resolve(env.BENCH_BASELINE) : null;
  if (!baseline) {
    console.log(
      "\nrecord: skipped; set BENCH_BASELINE to a checkout without the change feed (with node_modules), e.g. `git worktree add /tmp/before-feed b0c2e25`",
    );
    return;
  }
  const scriptDir = mkdtempSync(join(tmpdir(), "bench-record-child-"));
  const script = join(scriptDir, "record-child.ts");
  writeFileSync(script, RECORD_CHILD);
  const times: Record<string, number[][]> = { baseline: [], feed: [] };
  let changes = 0;
  // Alternated, so both see the same machine.
  for (let run = 0; run < config.recordRuns; run++) {
    times.baseline!.push((await timedRefreshes(baseline, script)).times);
    const feed = await timedRefreshes(ROOT, script);
    times.feed!.push(feed.times);
    changes = feed.changes;
  }
  console.log(
    `\n## Recording on a national refresh (${config.recordRuns} runs each, alternated; load ${load()})\n\n` +
      `Milliseconds inside the ingest's write transactions (parsing excluded), median; baseline: ${baseline}.\n`,
  );
  console.log("| refresh | without the feed | with it | added |\n|---|---:|---:|---:|");
  PHASES.forEach((phase, i) => {
    const without = median(times.baseline!.map((t) => t[i]!));
    const withIt = median(times.feed!.map((t) => t[i]!));
    console.log(`| ${phase} | ${fmt(without)} | ${fmt(withIt)} | ${fmt(((withIt - without) / without) * 100, 1)} % |`);
  });
  console.log(`\n${fmt(changes)} changes kept after the three refreshes.`);
  rmSync(scriptDir, { recursive: true, force: true });
}

if (config.parts.has("size") || config.parts.has("read")) ensureDatabase();
if (config.parts.has("size")) sizePart();
if (config.parts.has("read")) await readPart();
if (config.parts.has("record")) await recordPart();
