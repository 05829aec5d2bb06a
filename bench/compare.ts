/**
 * `bun run bench:compare`: two versions of the server side by side, in the same minutes.
 *
 *   BENCH_A=../../tmp/old-checkout/src/index.ts BENCH_DB=/path/to.sqlite bun run bench:compare
 *
 * Starts server A (`BENCH_A`) and server B (`BENCH_B`, default `src/index.ts`; paths from the
 * repository root), each on its own copy of `BENCH_DB` (the file itself is never written) and
 * its own index directory, both pinned to the same core (`BENCH_SERVER_CPUS`, default 0; the one
 * not measured is idle). Then, per shape, rounds of wrk (`BENCH_LOAD_CPUS`, default 1) alternate
 * between them, A B B A A B B A…, each round `BENCH_WARMUP_SECONDS` (1) unmeasured then
 * `BENCH_SECONDS` (4) measured, `BENCH_ROUNDS` (4) per server. It prints each round's server CPU
 * µs per request (the figure a busy host moves least, bench/README.md) and requests/s, and the
 * median of each server per shape. No target: it tells whether a change costs anything.
 */
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import { envNumber } from "./lib/env";
import { cpuSecondsOf, freePort, type Started, startPinned, stop, waitUntilAnswers } from "./lib/process";
import { fmt, loadAverages, median, plainTable } from "./lib/report";
import { runWrk, writeLuaScripts, wrkInstalled } from "./lib/wrk";

parseCli({
  command: "bun run bench:compare",
  synopsis: [""],
  description:
    "Two versions of the server side by side, in the same minutes, each on its own copy of BENCH_DB: server CPU per request and requests/s per shape, in alternating rounds.",
  options: {},
  optionHelp: [],
  environment:
    "BENCH_A (the other version's src/index.ts, required), BENCH_B (src/index.ts), BENCH_DB, BENCH_SECONDS (4), BENCH_WARMUP_SECONDS (1), BENCH_ROUNDS (4), BENCH_CONNECTIONS (50), BENCH_SERVER_CPUS (0), BENCH_LOAD_CPUS (1), BENCH_SHAPES.",
});

const ROOT = resolve(import.meta.dir, "..");
const env = process.env;
const seconds = Math.round(envNumber("BENCH_SECONDS", 4));
const warmup = Math.round(envNumber("BENCH_WARMUP_SECONDS", 1));
const rounds = Math.max(1, Math.round(envNumber("BENCH_ROUNDS", 4)));
const connections = Math.round(envNumber("BENCH_CONNECTIONS", 50));
const serverCpus = env.BENCH_SERVER_CPUS || "0";
const loadCpus = env.BENCH_LOAD_CPUS || "1";
const source = resolve(env.BENCH_DB || join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite"));
const scripts = { A: env.BENCH_A, B: env.BENCH_B || "src/index.ts" };
const SHAPES: { key: string; path: string; randomId?: string }[] = [
  { key: "unfiltered", path: "/api/v1/endpoints" },
  { key: "get-by-id", path: "/api/v1/endpoints/<id>", randomId: "" },
  { key: "capabilities", path: "/api/v1/endpoints/<id>/capabilities", randomId: "/capabilities" },
  { key: "availability", path: "/api/v1/endpoints/<id>/availability", randomId: "/availability" },
  { key: "stats", path: "/api/v1/stats" },
  { key: "fhir-search", path: "/fhir/Endpoint?_count=20" },
];
const wanted = env.BENCH_SHAPES ? new Set(env.BENCH_SHAPES.split(",").map((s) => s.trim())) : null;

/** 20,000 random entry ids, one per line, for the by-id shapes. */
function writeIds(db: string, file: string) {
  const sqlite = new Database(db, { readonly: true });
  try {
    const ids = sqlite.prepare("SELECT id FROM entries ORDER BY random() LIMIT 20000").values() as [string][];
    writeFileSync(file, `${ids.map(([id]) => id).join("\n")}\n`);
  } finally {
    sqlite.close();
  }
}

async function main() {
  if (!scripts.A) {
    console.error("BENCH_A (the server script of the version to compare with, from the repository root) is required");
    process.exit(2);
  }
  if (!wrkInstalled()) {
    console.error("wrk is not installed (Debian/Ubuntu: sudo apt-get install -y wrk)");
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), "bench-compare-"));
  const servers: Partial<Record<"A" | "B", Started>> = {};
  try {
    const lua = writeLuaScripts(dir);
    const idsFile = join(dir, "ids.txt");
    writeIds(source, idsFile);
    for (const side of ["A", "B"] as const) {
      const db = join(dir, `${side}.sqlite`);
      copyFileSync(source, db);
      mkdirSync(join(dir, `index-${side}`));
      servers[side] = startPinned(
        join(ROOT, scripts[side]!),
        serverCpus,
        {
          DATABASE_PATH: db,
          HOST: "127.0.0.1",
          RATE_LIMIT_MAX: "100000000",
          RATE_LIMIT_WINDOW_SECONDS: "60",
          INDEX_DIR: join(dir, `index-${side}`),
        },
        join(dir, `server-${side}.log`),
        freePort(),
      );
      const ms = await waitUntilAnswers(servers[side]!, "/api/v1/endpoints", 300_000);
      // The first FHIR request of a version builds its index: not a cost of the rounds.
      await waitUntilAnswers(servers[side]!, "/fhir/metadata", 300_000);
      console.log(`${side}: ${scripts[side]} ready in ${fmt(ms)} ms`);
    }
    console.log(
      `load average ${loadAverages()}; ${rounds} rounds per server and shape, ${warmup} s + ${seconds} s each`,
    );
    const rows: string[][] = [];
    for (const shape of SHAPES) {
      if (wanted && !wanted.has(shape.key)) continue;
      const perSide: Record<"A" | "B", { micros: number[]; rps: number[] }> = {
        A: { micros: [], rps: [] },
        B: { micros: [], rps: [] },
      };
      for (let round = 0; round < rounds * 2; round++) {
        // A B B A A B B A…: each server is measured as often first as second.
        const side = (["A", "B", "B", "A"] as const)[round % 4]!;
        const server = servers[side]!;
        const random = shape.randomId !== undefined;
        const run = (s: number) =>
          runWrk({
            url: `http://127.0.0.1:${server.port}${random ? "/" : shape.path}`,
            seconds: s,
            connections,
            threads: 1,
            cpus: loadCpus,
            script: random ? lua.randomId : lua.report,
            scriptArgs: random ? [idsFile, shape.randomId!] : undefined,
          });
        if (warmup > 0) await run(warmup);
        const before = cpuSecondsOf(server.pid)!;
        const started = performance.now();
        const result = await run(seconds);
        const cpu = cpuSecondsOf(server.pid)! - before;
        const wall = (performance.now() - started) / 1000;
        if (result.non2xx > 0) throw new Error(`${side} ${shape.key}: ${result.non2xx} non-2xx answers`);
        const micros = (cpu / result.requests) * 1e6;
        perSide[side].micros.push(micros);
        perSide[side].rps.push(result.rps);
        console.log(
          `${shape.key} ${side}: ${fmt(micros)} µs/request, ${fmt(result.rps)} requests/s, server CPU ${fmt((100 * cpu) / wall)} %, load ${loadavg()[0]!.toFixed(2)}`,
        );
      }
      const a = perSide.A;
      const b = perSide.B;
      rows.push([
        shape.key,
        `${fmt(median(a.micros))} (${a.micros.map((m) => fmt(m)).join(", ")})`,
        `${fmt(median(b.micros))} (${b.micros.map((m) => fmt(m)).join(", ")})`,
        `${fmt(median(a.rps))} / ${fmt(median(b.rps))}`,
      ]);
    }
    console.log("");
    console.log(
      plainTable(
        ["shape", "A µs/request: median (rounds)", "B µs/request: median (rounds)", "requests/s A / B (medians)"],
        rows,
        ["l", "r", "r", "r"],
      ),
    );
  } finally {
    for (const server of Object.values(servers)) if (server) await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
