/**
 * `bun run bench:http`: the 1M-entry benchmark of the list, get, capabilities, vendors and stats operations.
 *
 * Builds (or reuses) the generated database under bench/data/, measures a bare Bun.serve
 * (bench/ceiling.ts) as the ceiling, starts our server (src/index.ts) on the same core, drives
 * every query shape from the other core with wrk, and prints + writes bench/RESULTS.md.
 * Environment knobs are listed in bench/README.md.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus as osCpus } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import { runExportShapes } from "./export";
import { envNumber } from "./lib/env";
import {
  cpuSecondsOf,
  freePort,
  generateDatabase,
  memoryOf,
  type Started,
  startPinned,
  stop,
  waitUntilAnswers,
} from "./lib/process";
import { fmt, loadAverages, plainTable, rowProblems, type ShapeRow, TARGETS, table } from "./lib/report";
import { runWrk, type WrkResult, writeLuaScripts, wrkInstalled } from "./lib/wrk";

parseCli({
  command: "bun run bench:http",
  synopsis: [""],
  description:
    "The 1M-entry benchmark of the list, get, capabilities, vendors and stats operations: builds (or reuses) the generated database under bench/data/, measures a bare Bun.serve as the ceiling and the server on the same core with wrk on the other, and writes bench/RESULTS.md.",
  options: {},
  optionHelp: [],
  environment: "the BENCH_* knobs of bench/README.md.",
});

const ROOT = resolve(import.meta.dir, "..");
const env = process.env;
const num = envNumber;

const config = {
  endpoints: Math.round(num("BENCH_ENDPOINTS", 1_000_000)),
  seed: Math.round(num("BENCH_SEED", 1)),
  /** Days of availability history generated with the dataset (the availability shape reads it). */
  historyDays: Math.round(num("BENCH_HISTORY_DAYS", 400)),
  seconds: Math.round(num("BENCH_SECONDS", 5)),
  /** Each shape is measured this many times, each followed by a ceiling measurement; the round with the median ratio is reported. */
  rounds: Math.max(1, Math.round(num("BENCH_ROUNDS", 3))),
  warmup: Math.round(num("BENCH_WARMUP_SECONDS", 2)),
  connections: Math.round(num("BENCH_CONNECTIONS", 50)),
  threads: Math.round(num("BENCH_THREADS", 1)),
  serverCpus: env.BENCH_SERVER_CPUS || "0",
  loadCpus: env.BENCH_LOAD_CPUS || "1",
  server: env.BENCH_SERVER || "src/index.ts",
  shapes: env.BENCH_SHAPES ? new Set(env.BENCH_SHAPES.split(",").map((s) => s.trim())) : null,
  results: env.BENCH_RESULTS || join(ROOT, "bench", "RESULTS.md"),
  readyTimeoutMs: num("BENCH_READY_TIMEOUT_MS", 120_000),
  /** Measure the ceiling again after every shape (robust against a busy machine) or only before and after. */
  interleave: (env.BENCH_CEILING || "interleaved") !== "once",
};
const DATA = join(ROOT, "bench", "data");
const dbPath = env.BENCH_DB
  ? resolve(env.BENCH_DB)
  : join(
      DATA,
      `endpoints-${config.endpoints}-seed${config.seed}${config.historyDays > 0 ? `-history${config.historyDays}` : ""}.sqlite`,
    );

interface Shape {
  key: string;
  label: string;
  path: string;
  /** For random-id shapes: the suffix after the id. */
  randomId?: string;
}

const SHAPES: Shape[] = [
  { key: "unfiltered", label: "unfiltered page 1", path: "/api/v1/endpoints" },
  { key: "vendor", label: "vendor", path: "/api/v1/endpoints?vendor=epic" },
  { key: "vendor-state", label: "vendor + state", path: "/api/v1/endpoints?vendor=oracle-health&state=TX" },
  { key: "fhir-r4", label: "fhirVersion=R4", path: "/api/v1/endpoints?fhirVersion=R4" },
  { key: "access", label: "access=patient", path: "/api/v1/endpoints?access=patient" },
  {
    key: "has-resource",
    label: "hasResource=Patient,Observation,Condition",
    path: "/api/v1/endpoints?hasResource=Patient,Observation,Condition",
  },
  { key: "query-common", label: "query=health (common word)", path: "/api/v1/endpoints?query=health" },
  {
    key: "query-rare",
    label: "query=magnolia cardio (two rarer words)",
    path: "/api/v1/endpoints?query=magnolia%20cardio",
  },
  {
    key: "smart-resource-r4",
    label: "smartSupported=true&hasResource=Patient&fhirVersion=R4",
    path: "/api/v1/endpoints?smartSupported=true&hasResource=Patient&fhirVersion=R4",
  },
  { key: "deep-page", label: "page=1000&limit=100", path: "/api/v1/endpoints?page=1000&limit=100" },
  {
    key: "supports",
    label: "supports=pkce,launch-standalone",
    path: "/api/v1/endpoints?supports=pkce,launch-standalone",
  },
  {
    key: "supports-registration",
    label: "supports=client-confidential-asymmetric,dynamic-registration",
    path: "/api/v1/endpoints?supports=client-confidential-asymmetric,dynamic-registration",
  },
  { key: "ready-backend", label: "ready=backend-services", path: "/api/v1/endpoints?ready=backend-services" },
  {
    key: "ready",
    label: "ready=patient-apps&fhirVersion=R4",
    path: "/api/v1/endpoints?ready=patient-apps&fhirVersion=R4",
  },
  { key: "environment", label: "environment=production", path: "/api/v1/endpoints?environment=production" },
  {
    key: "environment-vendor",
    label: "environment=non-production&vendor=epic",
    path: "/api/v1/endpoints?environment=non-production&vendor=epic",
  },
  { key: "get-by-id", label: "get by id (random)", path: "/api/v1/endpoints/<id>", randomId: "" },
  {
    key: "capabilities",
    label: "capabilities by id (random)",
    path: "/api/v1/endpoints/<id>/capabilities",
    randomId: "/capabilities",
  },
  {
    key: "availability",
    label: "availability by id (random)",
    path: "/api/v1/endpoints/<id>/availability",
    randomId: "/availability",
  },
  { key: "vendors", label: "vendors", path: "/api/v1/vendors" },
  { key: "stats", label: "stats", path: "/api/v1/stats" },
];

function cpuText(cpu: number | null): string {
  return cpu === null ? "?" : `${fmt(cpu * 100)} %`;
}

function log(line: string) {
  console.log(line);
}

async function ensureDatabase(): Promise<number | null> {
  if (existsSync(dbPath)) {
    log(`reusing ${dbPath}`);
    return null;
  }
  log(`building ${dbPath} (${fmt(config.endpoints)} entries; reused by later runs)`);
  mkdirSync(DATA, { recursive: true });
  const started = performance.now();
  generateDatabase(dbPath, { endpoints: config.endpoints, seed: config.seed, historyDays: config.historyDays });
  return (performance.now() - started) / 1000;
}

/** The database's page size (files generated before 16 KB pages became the default keep 4 KB). */
function pageSizeOf(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
  } finally {
    db.close();
  }
}

/**
 * How much of a file is in the page cache (util-linux's fincore), null when unknown. Capabilities
 * read the database file; a host that evicts idle pages turns those reads into disk reads.
 */
function pageCacheMb(path: string): number | null {
  const out = Bun.spawnSync(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES", path], {
    stderr: "ignore",
  });
  const bytes = out.exitCode === 0 ? Number(out.stdout.toString().trim()) : Number.NaN;
  return Number.isFinite(bytes) ? bytes / 1e6 : null;
}

/** Random ids for the by-id shapes, one per line (deterministic sample). */
function writeIds(): string {
  const file = join(DATA, `ids-${config.endpoints}-seed${config.seed}.txt`);
  const db = new Database(dbPath, { readonly: true });
  try {
    const max = (db.prepare("SELECT max(row_id) FROM entries").values()[0] as [number])[0];
    const pick = db.prepare("SELECT id FROM entries WHERE row_id = ?");
    const ids: string[] = [];
    let state = 12345;
    for (let i = 0; i < 20_000 && ids.length < Math.min(20_000, max); i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      const row = pick.values((state % max) + 1)[0] as [string] | undefined;
      if (row) ids.push(row[0]);
    }
    writeFileSync(file, `${ids.join("\n")}\n`);
    return file;
  } finally {
    db.close();
  }
}

async function firstAnswer(
  port: number,
  path: string,
): Promise<{ status: number; total: number | null; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  const body = await response.text();
  let total: number | null = null;
  try {
    const json = JSON.parse(body) as { meta?: { total?: number } };
    total = json.meta?.total ?? null;
  } catch {
    // not JSON: reported by the status check
  }
  return { status: response.status, total, body };
}

interface Measured extends WrkResult {
  /** Share of one core the server used during the measurement (1 = a full core). */
  cpu: number | null;
}

async function measure(
  target: Started,
  path: string,
  lua: { report: string; randomId: string },
  shape: Shape | null,
  idsFile: string,
  seconds: number,
): Promise<Measured> {
  const random = shape?.randomId !== undefined;
  const cpuBefore = cpuSecondsOf(target.pid);
  const started = performance.now();
  const result = await runWrk({
    url: `http://127.0.0.1:${target.port}${random ? "/" : path}`,
    seconds,
    connections: config.connections,
    threads: config.threads,
    cpus: config.loadCpus,
    script: random ? lua.randomId : lua.report,
    scriptArgs: random ? [idsFile, shape!.randomId!] : undefined,
  });
  const cpuAfter = cpuSecondsOf(target.pid);
  const wall = (performance.now() - started) / 1000;
  return { ...result, cpu: cpuBefore !== null && cpuAfter !== null ? (cpuAfter - cpuBefore) / wall : null };
}

/**
 * The ceiling server stays up (idle on the same core) so it can be measured next to every shape.
 * `bodyBytes`: the same-size ceiling, answering a JSON of that many bytes.
 */
async function startCeiling(bodyBytes?: number): Promise<Started> {
  const server = startPinned(
    join(ROOT, "bench/ceiling.ts"),
    config.serverCpus,
    { HOST: "127.0.0.1", CEILING_BODY_BYTES: bodyBytes ? String(Math.round(bodyBytes)) : "" },
    join(DATA, "ceiling.log"),
    freePort(),
  );
  await waitUntilAnswers(server, "/", 10_000);
  return server;
}

async function measureCeiling(
  server: Started,
  lua: { report: string; randomId: string },
  idsFile: string,
  label: string,
): Promise<Measured> {
  if (config.warmup > 0) await measure(server, "/", lua, null, idsFile, config.warmup);
  const result = await measure(server, "/", lua, null, idsFile, config.seconds);
  log(
    `  ceiling (${label}): ${fmt(result.rps)} requests/s, p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms, CPU ${cpuText(result.cpu)}`,
  );
  return result;
}

/** Mean size in bytes of the answers of a random-id shape, over the first `count` sampled ids. */
async function meanAnswerBytes(port: number, idsFile: string, suffix: string, count: number): Promise<number> {
  const ids = readFileSync(idsFile, "utf8").split("\n").filter(Boolean).slice(0, count);
  let bytes = 0;
  for (const id of ids) {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/endpoints/${id}${suffix}`);
    bytes += (await response.arrayBuffer()).byteLength;
  }
  return ids.length === 0 ? 0 : bytes / ids.length;
}

/** Distinct stored bodies (CapabilityStatements and SMART configurations) against probe rows. */
function bodyCounts(path: string): { bodies: number; bodyMb: number; probes: number } | null {
  const db = new Database(path, { readonly: true });
  try {
    const [bodies, bodyBytes] = db
      .prepare("SELECT count(*), coalesce(sum(length(CAST(body AS BLOB))), 0) FROM probe_bodies")
      .values()[0] as [number, number];
    const [probes] = db.prepare("SELECT count(*) FROM probes").values()[0] as [number];
    return { bodies, bodyMb: bodyBytes / 1e6, probes };
  } catch {
    return null; // a database in the layout before probe_bodies
  } finally {
    db.close();
  }
}

/** The commit measured, and whether the working tree differed from it (uncommitted changes are measured too). */
function revision(): string {
  const head = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
  const dirty = Bun.spawnSync(
    ["git", "status", "--porcelain", "--untracked-files=no", "--", "src", "db", "package.json"],
    { cwd: ROOT },
  )
    .stdout.toString()
    .trim();
  return head === ""
    ? "unknown"
    : `${head}${dirty === "" ? "" : " with uncommitted changes under src/, db/ or package.json"}`;
}

function machine(): string {
  const cpu = osCpus()[0]?.model ?? "unknown CPU";
  let wrk = "wrk";
  try {
    wrk = (Bun.spawnSync(["wrk", "-v"]).stdout.toString() + Bun.spawnSync(["wrk", "-v"]).stderr.toString())
      .split("\n")[0]!
      .replace(/ \[.*$/, "")
      .trim();
  } catch {
    // keep the name
  }
  return `${osCpus().length} × ${cpu}; Bun ${Bun.version}; ${wrk}`;
}

async function main() {
  if (!wrkInstalled()) {
    console.error("wrk is not installed. On Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y wrk");
    process.exit(2);
  }
  if (osCpus().length < 2) log("warning: fewer than 2 CPUs; server and load generator will share a core");
  mkdirSync(DATA, { recursive: true });
  const generationSeconds = await ensureDatabase();
  const dbBytes = statSync(dbPath).size;
  const dbPageSize = pageSizeOf(dbPath);
  const idsFile = writeIds();
  const lua = writeLuaScripts(DATA);
  const load = loadAverages();
  log(`machine: ${machine()}; load average ${load}`);
  log(
    `${config.rounds} round(s) of ${config.seconds} s per shape after ${config.warmup} s warm-up, ${config.connections} connections, server on CPU ${config.serverCpus}, wrk on CPU ${config.loadCpus}`,
  );

  const serverLog = join(DATA, "server.log");
  writeFileSync(serverLog, "");
  // The server keeps what it derives per dataset version (its index files) in INDEX_DIR: a fresh
  // directory makes the first start a cold one, the restart a warm one, in every run.
  const indexDir = join(DATA, "server-index");
  rmSync(indexDir, { recursive: true, force: true });
  const startServer = () =>
    startPinned(
      join(ROOT, config.server),
      config.serverCpus,
      {
        DATABASE_PATH: dbPath,
        HOST: "127.0.0.1",
        RATE_LIMIT_MAX: "100000000",
        RATE_LIMIT_WINDOW_SECONDS: "60",
        INDEX_DIR: indexDir,
      },
      serverLog,
      freePort(),
    );

  // First start: cold, the server builds and keeps its index. The measured run is a restart.
  const firstStart = startServer();
  let firstReadyMs = Number.NaN;
  try {
    firstReadyMs = await waitUntilAnswers(firstStart, "/api/v1/endpoints", config.readyTimeoutMs);
    log(`first start: ready in ${fmt(firstReadyMs)} ms`);
  } finally {
    await stop(firstStart);
  }

  const ceilingServer = await startCeiling();
  const ceilings: Measured[] = [await measureCeiling(ceilingServer, lua, idsFile, "before the server starts")];

  const server: Started = startServer();
  const port = server.port;
  const rows: ShapeRow[] = [];
  const roundCeilings: Measured[] = [];
  let readyMs = Number.NaN;
  let readyRss: number | null = null;
  let finalMemory: { rssMb: number; peakMb: number } | null = null;
  let cachedBeforeCapabilities: number | null = null;
  let sameSize: { server: Started; bytes: number; first: Measured } | null = null;
  let exportSection: { markdown: string; missed: number } | null = null;
  try {
    readyMs = await waitUntilAnswers(server, "/api/v1/endpoints", config.readyTimeoutMs);
    readyRss = memoryOf(server.pid)?.rssMb ?? null;
    log(
      `restart: ready in ${fmt(readyMs)} ms (first list answered), RSS ${readyRss === null ? "?" : fmt(readyRss)} MB`,
    );
    const sampleId = readFileSync(idsFile, "utf8").split("\n")[0]!;
    for (const shape of SHAPES) {
      if (config.shapes && !config.shapes.has(shape.key)) continue;
      const row: ShapeRow = {
        key: shape.key,
        label: shape.label,
        path: shape.path,
        total: null,
        result: null,
        rssMb: null,
        error: null,
      };
      rows.push(row);
      try {
        const checkPath = shape.randomId !== undefined ? `/api/v1/endpoints/${sampleId}${shape.randomId}` : shape.path;
        const first = await firstAnswer(port, checkPath);
        row.total = first.total;
        if (first.status !== 200) {
          row.error = `answered ${first.status}: ${first.body.slice(0, 160)}`;
          log(`${shape.label}: ${row.error}`);
          continue;
        }
        if (shape.key === "capabilities") {
          cachedBeforeCapabilities = pageCacheMb(dbPath);
          if (cachedBeforeCapabilities !== null)
            log(`database file in the page cache: ${fmt(cachedBeforeCapabilities)} of ${fmt(dbBytes / 1e6)} MB`);
        }
        // Capabilities answers are large (several KB): they are compared with a bare Bun.serve
        // answering a body of their mean size, so that the bytes themselves are not counted.
        if (shape.key === "capabilities") {
          const bytes = await meanAnswerBytes(port, idsFile, shape.randomId!, 500);
          const started = await startCeiling(bytes);
          sameSize = {
            server: started,
            bytes,
            first: await measureCeiling(started, lua, idsFile, `same-size, ${fmt(bytes)} bytes`),
          };
          row.ceilingLabel = `same-size ceiling (${fmt(bytes)} bytes)`;
        }
        const shapeCeiling = shape.key === "capabilities" && sameSize ? sameSize.server : ceilingServer;
        if (config.warmup > 0) await measure(server, shape.path, lua, shape, idsFile, config.warmup);
        const rounds: { result: Measured; ceiling?: Measured }[] = [];
        for (let round = 1; round <= config.rounds; round++) {
          const result = await measure(server, shape.path, lua, shape, idsFile, config.seconds);
          const ceiling = config.interleave
            ? await measureCeiling(shapeCeiling, lua, idsFile, `after ${shape.key}, round ${round}`)
            : shapeCeiling !== ceilingServer
              ? sameSize!.first
              : undefined;
          if (ceiling && shapeCeiling === ceilingServer) roundCeilings.push(ceiling);
          rounds.push({ result, ceiling });
        }
        row.rssMb = memoryOf(server.pid)?.rssMb ?? null;
        const ratio = (round: (typeof rounds)[number]) => round.result.rps / (round.ceiling?.rps ?? 1);
        const median = [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)]!;
        row.result = median.result;
        row.ceiling = median.ceiling;
        const failed = rounds.find(
          ({ result: { non2xx, socketErrors: e } }) => non2xx + e.connect + e.read + e.write + e.timeout > 0,
        );
        if (failed) row.error = `non-2xx answers or socket errors in a round: ${fmt(failed.result.non2xx)} non-2xx`;
        const r = row.result;
        const ratios = config.interleave
          ? `, × ceiling by round ${rounds.map((round) => `${fmt(100 * ratio(round), 1)} %`).join(" / ")}`
          : "";
        log(
          `${shape.label}: ${fmt(r.rps)} requests/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms, server CPU ${cpuText(row.result.cpu)}${r.non2xx ? `, ${fmt(r.non2xx)} non-2xx` : ""}${row.total !== null ? ` (total ${fmt(row.total)})` : ""}${ratios}`,
        );
      } catch (error) {
        row.error = error instanceof Error ? error.message : String(error);
        log(`${shape.label}: ${row.error}`);
      }
    }
    finalMemory = memoryOf(server.pid);
    // After the RSS reading above, so that the query shapes' memory target is unchanged.
    if (!config.shapes || config.shapes.has("export"))
      exportSection = await runExportShapes({
        port,
        pid: server.pid,
        loadCpus: config.loadCpus,
        seconds: config.seconds,
        endpoints: config.endpoints,
        log,
      });
  } finally {
    await stop(server);
    if (sameSize) await stop(sameSize.server);
  }
  try {
    if (!config.interleave) ceilings.push(await measureCeiling(ceilingServer, lua, idsFile, "after the run"));
  } finally {
    await stop(ceilingServer);
  }
  ceilings.push(...roundCeilings);
  const ceilingRps = ceilings.reduce((sum, c) => sum + c.rps, 0) / ceilings.length;
  const ceilingMin = Math.min(...ceilings.map((c) => c.rps));
  const ceilingMax = Math.max(...ceilings.map((c) => c.rps));
  const ceilingOf = (row: ShapeRow) => row.ceiling?.rps ?? ceilingRps;

  // Report.
  const headers = [
    "shape",
    "requests/s",
    "p50 ms",
    "p99 ms",
    "ceiling req/s",
    "× ceiling",
    "server CPU",
    "CPU µs/request",
    "× ceiling per CPU-s",
    "RSS MB",
    "meta.total",
    "target",
  ];
  const align: ("l" | "r")[] = ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "l"];
  const microsPerRequest = (m: Measured | null | undefined) => (m?.cpu ? fmt((m.cpu / m.rps) * 1e6) : "—");
  const perCpu = (row: ShapeRow) => {
    const r = row.result;
    const c = row.ceiling ?? ceilings[0]!;
    if (!r?.cpu || !c.cpu) return "—";
    return `${fmt((100 * (r.rps / r.cpu)) / (c.rps / c.cpu), 1)} %`;
  };
  const cells = rows.map((row) => {
    const problems = rowProblems(row, ceilingOf(row));
    const r = row.result;
    return [
      row.label,
      r ? fmt(r.rps) : "—",
      r ? fmt(r.p50, 2) : "—",
      r ? fmt(r.p99, 2) : "—",
      `${fmt(ceilingOf(row))}${row.ceilingLabel ? ` (${row.ceilingLabel})` : ""}`,
      r ? `${fmt((100 * r.rps) / ceilingOf(row), 1)} %` : "—",
      r ? cpuText(r.cpu) : "—",
      microsPerRequest(r),
      perCpu(row),
      row.rssMb !== null ? fmt(row.rssMb) : "—",
      row.total !== null ? fmt(row.total) : "",
      problems.length === 0 ? "ok" : `**MISSED**: ${problems.join("; ")}`,
    ];
  });
  const summary: [string, string, string][] = [
    [
      "ceiling (bare Bun.serve, fixed JSON)",
      `${fmt(ceilingRps)} requests/s on average over ${ceilings.length} measurements (min ${fmt(ceilingMin)}, max ${fmt(ceilingMax)}); ` +
        `${microsPerRequest(ceilings.reduce((best, c) => (c.cpu && best.cpu && c.cpu / c.rps < best.cpu / best.rps ? c : best)))} CPU µs per request at best` +
        `${config.interleave ? `; each shape is measured in ${config.rounds} round(s), each followed by a ceiling measurement, and the round with the median ratio is reported` : ""}`,
      "",
    ],
    [
      "time to ready, first start (spawn → first list answered; empty INDEX_DIR, so the server builds its index)",
      `${fmt(firstReadyMs)} ms`,
      "",
    ],
    [
      "time to ready, restart on the existing database",
      `${fmt(readyMs)} ms`,
      readyMs <= TARGETS.readyMs ? "ok" : `**MISSED**: > ${fmt(TARGETS.readyMs)} ms`,
    ],
    ["RSS when ready", readyRss === null ? "?" : `${fmt(readyRss)} MB`, ""],
    ...(cachedBeforeCapabilities === null
      ? []
      : ([
          [
            "database file in the page cache when capabilities began (fincore)",
            `${fmt(cachedBeforeCapabilities)} of ${fmt(dbBytes / 1e6)} MB`,
            "",
          ],
        ] as [string, string, string][])),
    ...(() => {
      const counts = bodyCounts(dbPath);
      const after = statSync(dbPath).size;
      return [
        [
          "database file (before the server started → after the run; the server migrates an older file)",
          `${fmt(dbBytes / 1e6)} MB → ${fmt(after / 1e6)} MB`,
          "",
        ],
        [
          "distinct stored bodies (CapabilityStatements and SMART configurations) / probe rows",
          counts ? `${fmt(counts.bodies)} bodies (${fmt(counts.bodyMb, 1)} MB) for ${fmt(counts.probes)} probes` : "?",
          "",
        ],
        ...(sameSize
          ? ([
              [
                "same-size ceiling of capabilities (bare Bun.serve answering the mean capabilities answer size)",
                `${fmt(sameSize.bytes)} bytes, ${fmt(sameSize.first.rps)} requests/s when first measured`,
                "",
              ],
            ] as [string, string, string][])
          : []),
      ] as [string, string, string][];
    })(),
    [
      "RSS after the run (peak)",
      finalMemory ? `${fmt(finalMemory.rssMb)} MB (peak ${fmt(finalMemory.peakMb)} MB)` : "?",
      finalMemory && finalMemory.rssMb <= TARGETS.rssMb ? "ok" : `**MISSED**: > ${TARGETS.rssMb} MB`,
    ],
  ];
  const missed =
    cells.filter((c) => c[c.length - 1] !== "ok").length + summary.filter(([, , t]) => t.startsWith("**MISSED")).length;

  const md = [
    "# Benchmark results",
    "",
    `Written by \`bun run bench:http\` on ${new Date().toISOString()}.`,
    "",
    `- dataset: ${fmt(config.endpoints)} generated entries (seed ${config.seed}), ${fmt(dbBytes / 1e6)} MB on disk in ${fmt(dbPageSize / 1024)} KB pages${generationSeconds !== null ? `, generated in ${fmt(generationSeconds, 1)} s by this run` : ""}`,
    `- code: ${revision()}`,
    `- machine: ${machine()}; load average at start ${load}, at the end ${loadAverages()}`,
    `- server: \`${config.server}\` pinned to CPU ${config.serverCpus}, RATE_LIMIT_MAX=100000000 (limiting on, never reached); load: wrk, ${config.threads} thread(s), ${config.connections} connections, pinned to CPU ${config.loadCpus}; ${config.rounds} round(s) of ${config.seconds} s per shape after ${config.warmup} s warm-up`,
    `- targets: ≥ ${TARGETS.ratio * 100} % of the ceiling's requests/s and p99 ≤ ${TARGETS.p99Ms} ms per shape; ready ≤ ${fmt(TARGETS.readyMs)} ms; RSS ≤ ${TARGETS.rssMb} MB after the run; every response 200`,
    "",
    table(
      ["", "value", "target"],
      summary.map((s) => [...s]),
      ["l", "l", "l"],
    ),
    "",
    table(headers, cells, align),
    "",
    "`server CPU` is the share of one core the server process used during the measurement. Well below 100 % means the core",
    "was shared with other processes (or the load generator could not keep up), and requests/s understate the server; the",
    "`CPU µs/request` (server CPU time per request) and `× ceiling per CPU-s` (requests per server CPU-second against the",
    "ceiling's) are steadier on a busy machine.",
    "",
    ...(exportSection ? [exportSection.markdown] : []),
    missed + (exportSection?.missed ?? 0) === 0
      ? "All targets met."
      : `${missed + (exportSection?.missed ?? 0)} target(s) missed (marked **MISSED**).`,
    "",
  ].join("\n");
  writeFileSync(config.results, md);

  console.log("");
  for (const [k, v, t] of summary) console.log(`${k}: ${v}${t ? `  [${t.replaceAll("**", "")}]` : ""}`);
  console.log("");
  console.log(
    plainTable(
      headers,
      cells.map((c) => c.map((x) => x.replaceAll("**", ""))),
      align,
    ),
  );
  console.log(`\n${missed === 0 ? "all targets met" : `${missed} target(s) missed`}; written to ${config.results}`);
}

await main();
