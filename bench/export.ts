/**
 * Export shapes: each format of GET /api/v1/export, unfiltered and with one filter, read as a
 * stream by one client: time to first byte, total time, MB/s and the server's RSS sampled
 * during the run; then whether /health and a cached list answer keep their p99 while two full
 * exports run.
 *
 *     bun bench/export.ts                       # on bench/data/endpoints-1000000-seed1.sqlite (generated when missing)
 *     BENCH_ENDPOINTS=20000 bun bench/export.ts # smoke run on a small generated dataset
 *
 * `bun run bench:http` runs the same shapes against its server after the query shapes (skip them
 * with BENCH_SHAPES not listing `export`). Targets (1M entries): NDJSON and CSV ≤ 10 s, FHIR
 * ≤ 20 s, time to first byte ≤ 200 ms, RSS growth ≤ 64 MB during an export, /health and a cached
 * list p99 ≤ 50 ms while two exports run. Knobs: those of bench/README.md, plus
 * BENCH_EXPORT_FILTER (default `vendor=epic`), BENCH_EXPORT_RESULTS (default
 * bench/EXPORT-RESULTS.md; standalone runs only) and BENCH_INDEX_DIR (the server's index
 * directory, emptied first; default bench/data/export-server-index).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
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
import { fmt, loadAverages, plainTable, table } from "./lib/report";
import { runWrk, writeLuaScripts, wrkInstalled } from "./lib/wrk";

const ROOT = resolve(import.meta.dir, "..");
const DATA = join(ROOT, "bench", "data");

const EXPORT_TARGETS = {
  seconds: { ndjson: 10, csv: 10, fhir: 20 } as Record<string, number>,
  ttfbMs: 200,
  rssGrowthMb: 64,
  p99Ms: 50,
};

export interface ExportBenchOptions {
  port: number;
  pid: number;
  /** CPUs for wrk (taskset list). */
  loadCpus: string;
  /** wrk's measured seconds per check. */
  seconds: number;
  /** Entries in the dataset: scales the targets (they are stated for 1,000,000). */
  endpoints: number;
  log: (line: string) => void;
}

interface ExportRun {
  label: string;
  bytes: number;
  seconds: number;
  ttfbMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  cpuSeconds: number | null;
  error?: string;
}

/** Reads one export to the end, sampling the server's RSS every 50 ms. */
async function timeExport(options: ExportBenchOptions, query: string, init: RequestInit = {}): Promise<ExportRun> {
  const rssBeforeMb = memoryOf(options.pid)?.rssMb ?? Number.NaN;
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    const rss = memoryOf(options.pid)?.rssMb;
    if (rss !== undefined && rss > rssPeakMb) rssPeakMb = rss;
  }, 50);
  const cpuBefore = cpuSecondsOf(options.pid);
  const started = performance.now();
  try {
    const response = await fetch(`http://127.0.0.1:${options.port}/api/v1/export?${query}`, {
      ...init,
      headers: { "accept-encoding": "identity", ...init.headers },
      decompress: false,
    } as RequestInit);
    if (response.status !== 200)
      throw new Error(`answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const reader = response.body!.getReader();
    let bytes = 0;
    let ttfbMs = Number.NaN;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (Number.isNaN(ttfbMs)) ttfbMs = performance.now() - started;
      bytes += value.length;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSecondsOf(options.pid);
    return {
      label: query,
      bytes,
      seconds,
      ttfbMs,
      rssBeforeMb,
      rssPeakMb,
      cpuSeconds: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
    };
  } catch (error) {
    return {
      label: query,
      bytes: 0,
      seconds: Number.NaN,
      ttfbMs: Number.NaN,
      rssBeforeMb,
      rssPeakMb,
      cpuSeconds: null,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The export shapes and the "others keep their p99" check; returns a markdown section. */
export async function runExportShapes(options: ExportBenchOptions): Promise<{ markdown: string; missed: number }> {
  const filter = process.env.BENCH_EXPORT_FILTER || "vendor=epic";
  const scale = options.endpoints / 1_000_000;
  const rows: string[][] = [];
  let missed = 0;
  // Each format unfiltered and filtered, then NDJSON compressed (the same body through gzip:
  // memory and first byte checked, its time is the compressor's).
  const shapes: { query: string; label: string; encoding?: string }[] = [];
  for (const format of ["ndjson", "csv", "fhir"])
    for (const query of [`format=${format}`, `format=${format}&${filter}`]) shapes.push({ query, label: query });
  shapes.push({ query: "format=ndjson", label: "format=ndjson, gzip", encoding: "gzip" });
  // The unfiltered exports are download files, written by the first request of a version
  // (bench:slow-download times that): written here first, so the shapes time serving them.
  for (const format of ["ndjson", "csv", "fhir"])
    await (
      await fetch(`http://127.0.0.1:${options.port}/api/v1/export?format=${format}`, { method: "HEAD" })
    ).arrayBuffer();
  for (const { query, label, encoding } of shapes) {
    const format = query.slice("format=".length).split("&")[0]!;
    const run = await timeExport(options, query, encoding ? { headers: { "accept-encoding": encoding } } : {});
    const problems: string[] = [];
    if (run.error) problems.push(run.error);
    else {
      const limit = EXPORT_TARGETS.seconds[format]! * Math.max(scale, 0.001);
      if (!query.includes("&") && !encoding && run.seconds > limit) problems.push(`> ${fmt(limit, 1)} s`);
      if (run.ttfbMs > EXPORT_TARGETS.ttfbMs) problems.push(`TTFB > ${EXPORT_TARGETS.ttfbMs} ms`);
      if (run.rssPeakMb - run.rssBeforeMb > EXPORT_TARGETS.rssGrowthMb)
        problems.push(`RSS growth > ${EXPORT_TARGETS.rssGrowthMb} MB`);
    }
    missed += problems.length;
    rows.push([
      label,
      fmt(run.bytes / 1e6, 1),
      fmt(run.seconds, 2),
      fmt(run.bytes / 1e6 / run.seconds, 1),
      fmt(run.ttfbMs, 1),
      run.cpuSeconds === null ? "?" : fmt(run.cpuSeconds, 2),
      `${fmt(run.rssBeforeMb)} → ${fmt(run.rssPeakMb)} (+${fmt(run.rssPeakMb - run.rssBeforeMb)})`,
      problems.length === 0 ? "ok" : `**MISSED**: ${problems.join("; ")}`,
    ]);
    options.log(`export ${label}: ${rows.at(-1)!.slice(1).join(" | ")}`);
  }
  const headers = ["export", "MB", "seconds", "MB/s", "TTFB ms", "server CPU s", "server RSS MB", "target"];
  const align: ("l" | "r")[] = ["l", "r", "r", "r", "r", "r", "r", "l"];

  // Two full exports (one client: its two slots) over and over, while wrk measures other requests.
  const lua = writeLuaScripts(DATA);
  let running = true;
  let completed = 0;
  let rssPeakMb = memoryOf(options.pid)?.rssMb ?? Number.NaN;
  const rssBeforeMb = rssPeakMb;
  const loopErrors: string[] = [];
  const loop = async (format: string) => {
    while (running) {
      const run = await timeExport(options, `format=${format}`);
      if (run.error) {
        // Reported with the checks below: a failed export must not lose the whole bench report.
        loopErrors.push(`${format}: ${run.error}`);
        return;
      }
      rssPeakMb = Math.max(rssPeakMb, run.rssPeakMb);
      completed++;
    }
  };
  const listPath = "/api/v1/endpoints?vendor=epic&state=CA";
  await (await fetch(`http://127.0.0.1:${options.port}${listPath}`)).arrayBuffer(); // cached from now on
  const loops = [loop("ndjson"), loop("fhir")];
  const checks: string[][] = [];
  try {
    await Bun.sleep(300);
    for (const [label, path] of [
      ["/health", "/health"],
      ["cached list answer", listPath],
    ] as const) {
      const r = await runWrk({
        url: `http://127.0.0.1:${options.port}${path}`,
        seconds: options.seconds,
        connections: 10,
        threads: 1,
        cpus: options.loadCpus,
        script: lua.report,
      });
      const problems: string[] = [];
      if (r.p99 > EXPORT_TARGETS.p99Ms) problems.push(`p99 > ${EXPORT_TARGETS.p99Ms} ms`);
      if (r.non2xx > 0) problems.push(`${fmt(r.non2xx)} non-2xx`);
      missed += problems.length;
      checks.push([
        `${label} during two exports`,
        fmt(r.rps),
        fmt(r.p50, 2),
        fmt(r.p99, 2),
        problems.length === 0 ? "ok" : `**MISSED**: ${problems.join("; ")}`,
      ]);
      options.log(
        `${label} while two exports run: ${fmt(r.rps)} requests/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms`,
      );
    }
  } finally {
    running = false;
    await Promise.all(loops);
  }
  for (const error of loopErrors) {
    missed++;
    checks.push([`export during the checks (${error.split(":")[0]})`, "–", "–", "–", `**MISSED**: ${error}`]);
  }
  const checkHeaders = ["request", "requests/s", "p50 ms", "p99 ms", "target"];
  const checkAlign: ("l" | "r")[] = ["l", "r", "r", "r", "l"];
  options.log("");
  options.log(plainTable(headers, rows, align));
  options.log("");
  options.log(plainTable(checkHeaders, checks, checkAlign));
  options.log(
    `exports completed during the check: ${completed}; server RSS ${fmt(rssBeforeMb)} → peak ${fmt(rssPeakMb)} MB`,
  );
  const markdown = [
    "## Export",
    "",
    `One client reads each export as a stream (no compression, but for the last row: NDJSON through gzip, MB compressed; no time target). Targets, stated for 1,000,000 entries and scaled to ${fmt(options.endpoints)}: NDJSON and CSV ≤ 10 s, FHIR ≤ 20 s (unfiltered); time to first byte ≤ ${EXPORT_TARGETS.ttfbMs} ms; server RSS growth ≤ ${EXPORT_TARGETS.rssGrowthMb} MB during an export.`,
    "",
    table(headers, rows, align),
    "",
    `While two full exports (NDJSON and FHIR, repeated: ${completed} completed) run, wrk with 10 connections for ${options.seconds} s on CPU ${options.loadCpus}; server RSS ${fmt(rssBeforeMb)} → peak ${fmt(rssPeakMb)} MB. Target p99 ≤ ${EXPORT_TARGETS.p99Ms} ms.`,
    "",
    table(checkHeaders, checks, checkAlign),
    "",
  ].join("\n");
  return { markdown, missed };
}

/** Standalone: the dataset, a server pinned like `bun run bench:http` starts it, the shapes, a report. */
async function main() {
  if (!wrkInstalled()) {
    console.error("wrk is not installed. On Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y wrk");
    process.exit(2);
  }
  const endpoints = Math.round(envNumber("BENCH_ENDPOINTS", 1_000_000));
  const seed = Math.round(envNumber("BENCH_SEED", 1));
  const dbPath = process.env.BENCH_DB
    ? resolve(process.env.BENCH_DB)
    : join(DATA, `endpoints-${endpoints}-seed${seed}.sqlite`);
  mkdirSync(DATA, { recursive: true });
  if (!existsSync(dbPath)) {
    console.log(`building ${dbPath}`);
    generateDatabase(dbPath, { endpoints, seed });
  }
  // Index files are named by dataset version alone: another database at the same version must
  // not find this one's, so the directory starts empty (as in `bun run bench:http`).
  const indexDir = process.env.BENCH_INDEX_DIR
    ? resolve(process.env.BENCH_INDEX_DIR)
    : join(DATA, "export-server-index");
  rmSync(indexDir, { recursive: true, force: true });
  const serverLog = join(DATA, "export-server.log");
  writeFileSync(serverLog, "");
  const server: Started = startPinned(
    join(ROOT, "src/index.ts"),
    process.env.BENCH_SERVER_CPUS || "0",
    {
      DATABASE_PATH: dbPath,
      HOST: "127.0.0.1",
      RATE_LIMIT_MAX: "100000000",
      INDEX_DIR: indexDir,
    },
    serverLog,
    freePort(),
  );
  let result: { markdown: string; missed: number };
  try {
    await waitUntilAnswers(server, "/api/v1/endpoints", envNumber("BENCH_READY_TIMEOUT_MS", 120_000));
    console.log(`server ready on ${dbPath}; load average ${loadAverages()}`);
    result = await runExportShapes({
      port: server.port,
      pid: server.pid,
      loadCpus: process.env.BENCH_LOAD_CPUS || "1",
      seconds: Math.round(envNumber("BENCH_SECONDS", 5)),
      endpoints,
      log: (line) => console.log(line),
    });
  } finally {
    await stop(server);
  }
  const out = process.env.BENCH_EXPORT_RESULTS || join(ROOT, "bench", "EXPORT-RESULTS.md");
  writeFileSync(
    out,
    `# Export benchmark\n\nWritten by \`bun bench/export.ts\` on ${new Date().toISOString()}: ${fmt(endpoints)} generated entries (seed ${seed}), server pinned to CPU ${process.env.BENCH_SERVER_CPUS || "0"}, load average at the end ${loadAverages()}.\n\n${result.markdown}\n${result.missed === 0 ? "All targets met." : `${result.missed} target(s) missed.`}\n`,
  );
  console.log(`\nwritten to ${out}`);
}

if (import.meta.main) {
  parseCli({
    command: "bun run bench:export",
    synopsis: [""],
    description:
      "Each format of GET /api/v1/export, unfiltered and with one filter, read by one client (time to first byte, total time, MB/s, server RSS), then /health and a cached list while two exports run; generates bench/data/endpoints-1000000-seed1.sqlite when missing and writes bench/EXPORT-RESULTS.md.",
    options: {},
    optionHelp: [],
    environment:
      "the BENCH_* knobs of bench/README.md, BENCH_EXPORT_FILTER (vendor=epic), BENCH_EXPORT_RESULTS, BENCH_INDEX_DIR.",
  });
  await main();
}
