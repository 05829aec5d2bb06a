/**
 * Soak run: the real server under steady load at ~70 % of its measured maximum for
 * SOAK_SECONDS (default 600), with a dataset refresh in the middle.
 *
 *   node_modules/.bin/bun bench/soak.ts                    # 10 minutes
 *   SOAK_SECONDS=60 node_modules/.bin/bun bench/soak.ts    # quick mode
 *
 * 1. Dataset: a generated one (`bun tools/generate/cli.ts --endpoints SOAK_ENDPOINTS`, default
 *    100,000, cached in bench/data/), copied to a temp dir because the refresh writes to it.
 * 2. Server: `bun src/index.ts` pinned to CPU 0 (taskset), rate limiting on with a quota never
 *    reached, request logs at info (as in production) read from a pipe and counted.
 * 3. Mix: about 3,000 distinct GET URLs (list pages with every filter, by id, capabilities,
 *    vendors, stats, health), each checked to answer 200 first; wrk (pinned to CPU 1) rotates
 *    through them, starting each connection at a random place.
 * 4. Maximum: wrk -c SOAK_CONNECTIONS (default 50), after a short warm-up (SOAK_MAX_RPS=<n> uses n
 *    instead, for a machine shared with other work).
 * 5. Soak: wrk has no rate option and wrk2 is not installed, so the rate is paced with wrk's
 *    Lua `delay()` hook: each connection waits a (dithered, fractional) delay before its next
 *    request. The run is a sequence of wrk segments (SOAK_SEGMENT_SECONDS); after each, the
 *    delay is recalibrated so the achieved rate tracks 70 % of the maximum.
 * 6. Refresh: halfway, a separate process (this file with --refresh) changes the city of 5 % of
 *    the entries and calls markDatasetChanged in one transaction; the server picks the new
 *    version up by polling (DATASET_POLL_MS, default 2 s) and swaps it in. The run records when
 *    /api/v1/stats first reports it.
 * 7. RSS and CPU of the server are sampled every SOAK_SAMPLE_SECONDS from /proc/<pid>.
 *
 * Pass criteria: zero errors (socket errors, time-outs, any non-2xx/3xx status, any error log
 * line), RSS at the end at most 10 % above RSS right after the warm-up (SOAK_WARMUP_SECONDS,
 * default 60, or 20 % of a shorter run). Results go to bench/SOAK.md (SOAK_RESULTS).
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, cpus as osCpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import { envNumber } from "./lib/env";
import {
  cpuSecondsOf,
  freePort,
  generateDatabase,
  memoryOf,
  type Started,
  stop,
  waitUntilAnswers,
} from "./lib/process";
import { fmt, table } from "./lib/report";
import { REPORT_LUA, runWrk, type WrkResult, wrkInstalled } from "./lib/wrk";

const { values: flags, positionals } = parseCli({
  command: "bun run bench:soak",
  synopsis: ["", "--refresh <database> <time>"],
  description:
    "Soak run: the real server under steady load at about 70 % of its measured maximum for SOAK_SECONDS, with a dataset refresh halfway; writes bench/SOAK.md. Pass: no error, RSS at the end at most 10 % above RSS after the warm-up.",
  options: { refresh: { type: "boolean" } },
  optionHelp: [["--refresh <database> <time>", "the run's own refresh process: changes 5 % of the entries' cities"]],
  environment:
    "SOAK_SECONDS (600), SOAK_ENDPOINTS (100000), SOAK_CONNECTIONS (50), SOAK_MAX_RPS and the other SOAK_* knobs of the file's head comment.",
  allowPositionals: true,
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { openDatabase } = await import("../src/db/client");
const { markDatasetChanged } = await import("../src/db/dataset-meta");

const ROOT = resolve(import.meta.dir, "..");
const DATA = join(ROOT, "bench", "data");

// ---------------------------------------------------------------------------------------------
// --refresh <db> <iso time>: the "refresh" process, a separate writer on the same database file.
if (flags.refresh === true) {
  const [path, at] = [positionals[0]!, positionals[1]!];
  const db = openDatabase(path);
  const started = performance.now();
  let changed = 0;
  db.sqlite
    .transaction(() => {
      changed = db.sqlite
        .prepare("UPDATE entries SET city = ?1, last_updated = ?2 WHERE rowid % 20 = 0")
        .run(`Soak City ${at.slice(11, 19)}`, at).changes;
      markDatasetChanged(db.sqlite, at);
    })
    .immediate();
  db.sqlite.close();
  console.log(JSON.stringify({ changed, ms: Math.round(performance.now() - started) }));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
const env = process.env;
const num = envNumber;
const seconds = Math.round(num("SOAK_SECONDS", 600));
const config = {
  seconds,
  endpoints: Math.round(num("SOAK_ENDPOINTS", 100_000)),
  share: num("SOAK_SHARE", 0.7),
  warmup: Math.round(num("SOAK_WARMUP_SECONDS", Math.min(60, Math.max(5, Math.round(seconds * 0.2))))),
  segment: Math.round(num("SOAK_SEGMENT_SECONDS", seconds >= 300 ? 30 : 10)),
  sample: Math.round(num("SOAK_SAMPLE_SECONDS", 5)),
  maxSeconds: Math.round(num("SOAK_MAX_SECONDS", 10)),
  connections: Math.round(num("SOAK_CONNECTIONS", 50)),
  pacedConnections: Math.round(num("SOAK_PACED_CONNECTIONS", 100)),
  serverCpus: env.SOAK_SERVER_CPUS || "0",
  loadCpus: env.SOAK_LOAD_CPUS || "1",
  logLevel: env.SOAK_LOG_LEVEL || "info",
  results: env.SOAK_RESULTS ? resolve(env.SOAK_RESULTS) : join(ROOT, "bench", "SOAK.md"),
};

const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);

if (!wrkInstalled()) {
  console.error("wrk is not installed (Debian/Ubuntu: sudo apt-get install -y wrk)");
  process.exit(2);
}

/** The generated dataset (cached), copied to a working file the refresh may change. */
function prepareDataset(work: string): string {
  const source = env.SOAK_DB ? resolve(env.SOAK_DB) : join(DATA, `soak-${config.endpoints}-seed1.sqlite`);
  if (!existsSync(source)) {
    mkdirSync(DATA, { recursive: true });
    log(`generating ${config.endpoints} entries into ${source}`);
    generateDatabase(source, { endpoints: config.endpoints });
  }
  const target = join(work, "soak.sqlite");
  // A consistent copy even if the source has a WAL: VACUUM INTO.
  const src = new Database(source, { readonly: true });
  src.exec(`VACUUM INTO '${target.replaceAll("'", "''")}'`);
  src.close();
  return target;
}

/** About 3,000 GET URLs that all answer 200: every operation and filter the API has. */
function buildPaths(dbPath: string): string[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    const ids = (db.prepare("SELECT id FROM entries ORDER BY id LIMIT 1500 OFFSET 1000").all() as { id: string }[]).map(
      (r) => r.id,
    );
    const probedIds = (
      db.prepare("SELECT e.id FROM entries e JOIN probes p ON p.url = e.url ORDER BY e.id LIMIT 400").all() as {
        id: string;
      }[]
    ).map((r) => r.id);
    const vendors = (db.prepare("SELECT id FROM vendors ORDER BY id").all() as { id: string }[]).map((r) => r.id);
    const words = [
      ...new Set(
        (
          db
            .prepare("SELECT organization_name AS n FROM entries WHERE organization_name IS NOT NULL LIMIT 3000")
            .all() as { n: string }[]
        )
          .flatMap((r) => r.n.split(/[^A-Za-z]+/))
          .filter((w) => w.length >= 4)
          .map((w) => w.slice(0, 5).toLowerCase()),
      ),
    ].slice(0, 200);
    const states = ["TX", "CA", "NY", "FL", "MA", "OH", "WA", "IL", "PA", "GA"];
    const paths: string[] = ["/health", "/api/v1/vendors", "/api/v1/stats"];
    for (let page = 1; page <= 40; page++)
      paths.push(`/api/v1/endpoints?page=${page}&limit=${[10, 25, 50, 100][page % 4]}`);
    for (const vendor of vendors)
      for (const page of [1, 2, 3]) paths.push(`/api/v1/endpoints?vendor=${vendor}&page=${page}`);
    for (const state of states) {
      paths.push(
        `/api/v1/endpoints?state=${state}`,
        `/api/v1/endpoints?state=${state}&fhirVersion=R4&page=2`,
        `/api/v1/endpoints?state=${state}&access=patient`,
      );
      for (const vendor of vendors.slice(0, 6)) paths.push(`/api/v1/endpoints?vendor=${vendor}&state=${state}`);
    }
    for (const word of words)
      paths.push(
        `/api/v1/endpoints?query=${encodeURIComponent(word)}`,
        `/api/v1/endpoints?query=${encodeURIComponent(word)}&limit=100`,
      );
    for (const v of ["DSTU2", "STU3", "R4", "R4B", "R5"])
      paths.push(`/api/v1/endpoints?fhirVersion=${v}`, `/api/v1/endpoints?fhirVersion=${v}&smartSupported=true`);
    for (const r of [
      "Patient",
      "Patient,Observation",
      "Patient,Observation,Condition",
      "AllergyIntolerance,MedicationRequest",
    ])
      paths.push(`/api/v1/endpoints?hasResource=${r}`, `/api/v1/endpoints?hasResource=${r}&access=provider&page=2`);
    paths.push("/api/v1/endpoints?smartSupported=false", "/api/v1/endpoints?access=patient&page=1000");
    for (const id of ids) paths.push(`/api/v1/endpoints/${id}`);
    for (const id of [...probedIds, ...ids.slice(0, 300)]) paths.push(`/api/v1/endpoints/${id}/capabilities`);
    return paths;
  } finally {
    db.close();
  }
}

const ROTATE_LUA = `
local paths = {}
local at = 0
local pause = 0
init = function(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  pause = tonumber(args[2]) or 0
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
  at = math.random(#paths)
end
request = function()
  at = at % #paths + 1
  return wrk.format("GET", paths[at])
end
`;
/** Paced: each connection waits \`pause\` ms (fractional, dithered) before its next request. */
const DELAY_LUA = `
delay = function()
  local whole = math.floor(pause)
  if math.random() < pause - whole then return whole + 1 end
  return whole
end
`;

function errorsOf(r: WrkResult): number {
  return r.non2xx + r.socketErrors.connect + r.socketErrors.read + r.socketErrors.write + r.socketErrors.timeout;
}

interface Sample {
  t: number;
  rssMb: number;
  cpu: number | null;
  /** The machine's 1-minute load average: other work on a shared machine shows here. */
  load: number;
}
interface Segment {
  t: number;
  pauseMs: number;
  result: WrkResult;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), "soak-"));
  let server: Started | null = null;
  // Ctrl-C or SIGTERM: stop the server and remove the working copy before exiting.
  const abort = (signal: string) => {
    log(`${signal}: stopping`);
    server?.proc.kill("SIGKILL");
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  };
  process.on("SIGINT", () => abort("SIGINT"));
  process.on("SIGTERM", () => abort("SIGTERM"));
  try {
    const dbPath = prepareDataset(work);
    const entries = (
      new Database(dbPath, { readonly: true }).prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number }
    ).n;
    const port = freePort();
    // The server's log goes to a pipe this process reads and counts, not to a file: on a machine
    // shared with disk-heavy work, writes to a file can block for seconds (dirty-page throttling)
    // and stall the server's event loop, which would measure the disk, not the server.
    const startedAt = performance.now();
    const proc = Bun.spawn(["taskset", "-c", config.serverCpus, process.execPath, join(ROOT, "src/index.ts")], {
      env: {
        ...process.env,
        DATABASE_PATH: dbPath,
        HOST: "127.0.0.1",
        PORT: String(port),
        RATE_LIMIT_MAX: "100000000",
        RATE_LIMIT_WINDOW_SECONDS: "60",
        LOG_LEVEL: config.logLevel,
        REFRESH: "off",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    server = { proc, pid: proc.pid, startedAt, port };
    const logStats = { requestLines: 0, bytes: 0, errorLines: [] as string[] };
    const consume = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      let rest = "";
      for await (const chunk of stream) {
        logStats.bytes += chunk.byteLength;
        const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
        rest = lines.pop()!;
        for (const line of lines) {
          if (line.includes('"message":"request"')) logStats.requestLines++;
          else if (line.includes('"level":"error"') || (line.trim() !== "" && !line.startsWith("{")))
            logStats.errorLines.push(line);
        }
      }
    };
    const logsDone = Promise.all([consume(proc.stdout), consume(proc.stderr)]);
    const readyMs = await waitUntilAnswers(server, "/api/v1/stats", 120_000);
    const base = `http://127.0.0.1:${port}`;
    log(`server pid ${server.pid} on CPU ${config.serverCpus}, ${entries} entries, ready in ${fmt(readyMs)} ms`);

    const paths = buildPaths(dbPath);
    for (const path of paths) {
      const response = await fetch(base + path);
      await response.arrayBuffer();
      if (response.status !== 200)
        throw new Error(`${path} answered ${response.status}; every URL of the mix must answer 200`);
    }
    const pathsFile = join(work, "paths.txt");
    writeFileSync(pathsFile, `${paths.join("\n")}\n`);
    const maxLua = join(work, "max.lua");
    const pacedLua = join(work, "paced.lua");
    writeFileSync(maxLua, ROTATE_LUA + REPORT_LUA);
    writeFileSync(pacedLua, ROTATE_LUA + DELAY_LUA + REPORT_LUA);
    log(`${paths.length} distinct URLs in the mix, all 200`);

    const wrk = (secs: number, script: string, connections: number, pauseMs = 0) =>
      runWrk({
        url: base,
        seconds: secs,
        connections,
        threads: 1,
        cpus: config.loadCpus,
        script,
        scriptArgs: [pathsFile, String(pauseMs)],
      });

    // Maximum throughput on this mix (SOAK_MAX_RPS=<n> skips the measurement and takes n instead,
    // for a machine shared with other work, where a short measurement can be far off).
    const warm = await wrk(5, maxLua, config.connections);
    const measured = await wrk(config.maxSeconds, maxLua, config.connections);
    const given = env.SOAK_MAX_RPS ? num("SOAK_MAX_RPS", 1) : null;
    const max = given === null ? measured : { ...measured, rps: given };
    if (given !== null) log(`measured ${fmt(measured.rps)} req/s; SOAK_MAX_RPS=${given} used instead`);
    const target = max.rps * config.share;
    log(
      `maximum ${fmt(max.rps)} req/s (p50 ${fmt(max.p50, 2)} ms, p99 ${fmt(max.p99, 2)} ms); soak target ${fmt(target)} req/s for ${config.seconds} s`,
    );
    let errors = errorsOf(warm) + errorsOf(measured);

    // The soak: paced wrk segments, RSS sampled alongside, a refresh halfway.
    const samples: Sample[] = [];
    const segments: Segment[] = [];
    const soakStart = performance.now();
    const elapsed = () => (performance.now() - soakStart) / 1000;
    let lastCpu = cpuSecondsOf(server.pid);
    let lastCpuAt = performance.now();
    const sample = () => {
      const mem = memoryOf(server!.pid);
      const cpu = cpuSecondsOf(server!.pid);
      const now = performance.now();
      const share = cpu !== null && lastCpu !== null ? (cpu - lastCpu) / ((now - lastCpuAt) / 1000) : null;
      lastCpu = cpu;
      lastCpuAt = now;
      if (mem) samples.push({ t: elapsed(), rssMb: mem.rssMb, cpu: share, load: loadavg()[0]! });
    };
    sample();
    const sampler = setInterval(sample, config.sample * 1000);

    const refreshAt = config.seconds / 2;
    const refreshStamp = new Date(Date.UTC(2030, 0, 1, 0, 0, 0)).toISOString();
    let refresh: { startedAt: number; writeMs: number; changed: number; servedAt: number | null } | null = null;
    const refreshTask = (async () => {
      await Bun.sleep(refreshAt * 1000);
      const startedAt = elapsed();
      const child = Bun.spawn(
        ["taskset", "-c", config.loadCpus, process.execPath, import.meta.path, "--refresh", dbPath, refreshStamp],
        { stdout: "pipe", stderr: "inherit" },
      );
      const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      if (code !== 0) throw new Error(`refresh process failed with exit code ${code}`);
      const { changed, ms } = JSON.parse(out.trim().split("\n").pop()!) as { changed: number; ms: number };
      refresh = { startedAt, writeMs: ms, changed, servedAt: null };
      log(`refresh written at ${fmt(startedAt)} s: ${changed} entries changed in ${ms} ms`);
      const deadline = performance.now() + 120_000;
      while (performance.now() < deadline) {
        const response = await fetch(`${base}/api/v1/stats`);
        if (response.status !== 200) errors++;
        const body = (await response.json()) as { data: { lastUpdated: string } };
        if (body.data.lastUpdated === refreshStamp) {
          refresh.servedAt = elapsed();
          log(
            `refresh served from ${fmt(refresh.servedAt)} s (${fmt(refresh.servedAt - startedAt, 1)} s after the write)`,
          );
          return;
        }
        await Bun.sleep(200);
      }
    })();

    let pauseMs = Math.max(0, (config.pacedConnections / target) * 1000 - max.p50);
    while (elapsed() < config.seconds - 1) {
      const t = elapsed();
      const secs = Math.max(1, Math.min(config.segment, Math.round(config.seconds - t)));
      const result = await wrk(secs, pacedLua, config.pacedConnections, pauseMs);
      segments.push({ t, pauseMs, result });
      errors += errorsOf(result);
      log(
        `t=${fmt(t)} s: ${fmt(result.rps)} req/s (target ${fmt(target)}), p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms, errors ${errorsOf(result)}, RSS ${fmt(samples.at(-1)?.rssMb ?? 0)} MB`,
      );
      // Recalibrate: a connection's cycle is its latency plus the pause; scale it by achieved/target.
      const cycle = (config.pacedConnections / Math.max(1, result.rps)) * 1000;
      // Half a step at a time: latency itself moves with the rate, so a full step overshoots.
      const wanted = Math.max(0, cycle * (result.rps / target) - (cycle - pauseMs));
      pauseMs = Math.max(0, pauseMs + 0.5 * (wanted - pauseMs));
    }
    await refreshTask;
    clearInterval(sampler);
    sample();
    const soakSeconds = elapsed();

    // After the load: still answering, serving the refreshed version.
    const after = await fetch(`${base}/api/v1/stats`);
    const afterBody = (await after.json()) as { data: { lastUpdated: string } };
    if (after.status !== 200) errors++;
    await stop(server);
    const serverStopped = server.proc.exitCode;
    server = null;
    await logsDone;
    const errorLines = logStats.errorLines;
    const requestLines = logStats.requestLines;
    const logMb = logStats.bytes / 1e6;

    // RSS after warm-up against RSS at the end, each the median of a few samples (the garbage
    // collector moves single samples by ±10 %): the first 30 s after the warm-up, the last 30 s.
    const window = Math.max(3, Math.round(30 / config.sample));
    const afterWarmup = samples.filter((s) => s.t >= config.warmup);
    const median = (list: Sample[]) => [...list].sort((a, b) => a.rssMb - b.rssMb)[Math.floor(list.length / 2)]!;
    const baseline = median(afterWarmup.slice(0, window));
    const final = median(afterWarmup.slice(-window));
    const peak = Math.max(...afterWarmup.map((s) => s.rssMb));
    const growth = (final.rssMb - baseline.rssMb) / baseline.rssMb;
    const totalRequests = segments.reduce((n, s) => n + s.result.requests, 0);
    const achieved = totalRequests / segments.reduce((n, s) => n + s.result.seconds, 0);
    const r = refresh as { startedAt: number; writeMs: number; changed: number; servedAt: number | null } | null;
    const refreshOk = r !== null && r.servedAt !== null && afterBody.data.lastUpdated === refreshStamp;
    const pass = errors === 0 && errorLines.length === 0 && growth < 0.1 && refreshOk;

    const lines = [
      `# Soak run`,
      "",
      `Command: \`SOAK_SECONDS=${config.seconds} node_modules/.bin/bun bench/soak.ts\` (${new Date().toISOString().slice(0, 16)}Z). Machine: ${osCpus().length} × ${osCpus()[0]?.model ?? "CPU"}, Bun ${Bun.version}; the machine may be shared with other work.`,
      "",
      `**${pass ? "PASS" : "FAIL"}**: ${errors} errors, ${errorLines.length} error log lines, RSS ${fmt(baseline.rssMb)} MB after the warm-up → ${fmt(final.rssMb)} MB at the end (${growth >= 0 ? "+" : ""}${fmt(growth * 100, 1)} %, limit +10 %), refresh ${refreshOk ? "served" : "NOT served"}.`,
      "",
      "## Set-up",
      "",
      `- Dataset: ${entries.toLocaleString("en-US")} generated entries (\`bun tools/generate/cli.ts --endpoints ${config.endpoints} --seed 1\`), a copy in a temp dir.`,
      `- Server: \`bun src/index.ts\` pinned to CPU ${config.serverCpus}, \`LOG_LEVEL=${config.logLevel}\` (one JSON line per request, as in production, read from a pipe and counted: error lines and anything on stderr fail the run), rate limiting on with a quota never reached, \`DATASET_POLL_MS\` default (2 s). Ready in ${fmt(readyMs)} ms.`,
      `- Load: wrk (1 thread, pinned to CPU ${config.loadCpus}) rotating through ${paths.length} distinct URLs that all answer 200: list pages with every filter and page sizes up to 100, by id, capabilities, vendors, stats, health.`,
      given === null
        ? `- Maximum: wrk -c${config.connections}, ${config.maxSeconds} s after a 5 s warm-up: **${fmt(max.rps)} req/s** (p50 ${fmt(max.p50, 2)} ms, p99 ${fmt(max.p99, 2)} ms).`
        : `- Maximum: **${fmt(max.rps)} req/s** given by SOAK_MAX_RPS (measured here: ${fmt(measured.rps)} req/s, p50 ${fmt(measured.p50, 2)} ms, p99 ${fmt(measured.p99, 2)} ms).`,
      `- Soak: ${fmt(config.share * 100)} % of it = **${fmt(target)} req/s** for ${fmt(soakSeconds)} s. wrk2 is not available, so wrk is paced by its Lua \`delay()\` hook: ${config.pacedConnections} connections each wait a dithered fractional pause before the next request; the run is a series of ${config.segment} s wrk segments and the pause is recalibrated after each so the achieved rate tracks the target.`,
      `- Refresh: at ${fmt(refreshAt)} s a separate process changes the city of 5 % of the entries and bumps the dataset version in one transaction${r ? ` (${r.changed.toLocaleString("en-US")} rows, ${r.writeMs} ms)` : ""}; the server polls for the new version and swaps it in${r?.servedAt != null ? `: /api/v1/stats reported it ${fmt(r.servedAt - r.startedAt, 1)} s after the write` : ""}.`,
      `- RSS from /proc/<pid>/status every ${config.sample} s; warm-up = the first ${config.warmup} s of the soak; growth compares the median of the first 30 s after the warm-up with the median of the last 30 s (at least 3 samples each).`,
      "",
      "## Results",
      "",
      table(
        ["", "value"],
        [
          ["requests in the soak", totalRequests.toLocaleString("en-US")],
          ["achieved rate", `${fmt(achieved)} req/s (${fmt((achieved / max.rps) * 100)} % of the maximum)`],
          ["errors (socket, time-out, non-2xx/3xx, all phases)", String(errors)],
          ["error lines (or stderr output) from the server", String(errorLines.length)],
          ["request lines logged", `${requestLines.toLocaleString("en-US")} (${fmt(logMb)} MB)`],
          ["RSS after warm-up (median of the first 30 s after it)", `${fmt(baseline.rssMb)} MB`],
          ["RSS at the end (median of the last 30 s)", `${fmt(final.rssMb)} MB`],
          ["RSS growth after warm-up", `${growth >= 0 ? "+" : ""}${fmt(growth * 100, 1)} %`],
          ["peak RSS after warm-up", `${fmt(peak)} MB`],
          ["server exit after SIGTERM", String(serverStopped)],
        ],
        ["l", "r"],
      ),
      "",
      "### Segments",
      "",
      table(
        [
          "t (s)",
          "req/s",
          "pause (ms)",
          "p50 (ms)",
          "p99 (ms)",
          "max (ms)",
          "errors",
          "of which time-outs",
          "non-2xx/3xx",
        ],
        segments.map((s) => [
          fmt(s.t),
          fmt(s.result.rps),
          fmt(s.pauseMs, 2),
          fmt(s.result.p50, 2),
          fmt(s.result.p99, 2),
          fmt(s.result.max, 1),
          String(errorsOf(s.result)),
          String(s.result.socketErrors.timeout),
          String(s.result.non2xx),
        ]),
        ["r", "r", "r", "r", "r", "r", "r", "r", "r"],
      ),
      "",
      "### Server RSS and CPU",
      "",
      table(
        ["t (s)", "RSS (MB)", "server CPU (cores)", "machine load (1 min)"],
        samples
          .filter((_, i) => i % Math.max(1, Math.round(30 / config.sample)) === 0 || i === samples.length - 1)
          .map((s) => [fmt(s.t), fmt(s.rssMb, 1), s.cpu === null ? "–" : fmt(s.cpu, 2), fmt(s.load, 2)]),
        ["r", "r", "r", "r"],
      ),
      "",
    ];
    if (errorLines.length > 0)
      lines.push("### Error log lines (first 5)", "", "```", ...errorLines.slice(0, 5), "```", "");
    writeFileSync(config.results, `${lines.join("\n")}\n`);
    log(
      `${pass ? "PASS" : "FAIL"}: ${errors} errors, ${errorLines.length} error log lines, RSS ${fmt(baseline.rssMb)} → ${fmt(final.rssMb)} MB (${fmt(growth * 100, 1)} %), ${fmt(achieved)} req/s of max ${fmt(max.rps)}; written to ${config.results}`,
    );
    process.exitCode = pass ? 0 : 1;
  } finally {
    if (server) await stop(server);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
