/**
 * `bun bench/version-swap.ts`: `/health` while the server opens a new dataset version under list
 * traffic, on the 1M-entry database (BENCH_DB, copied to a temporary directory with its index
 * files first). A server is started; list requests (each another page or filter) run one after
 * another, `/health` is asked every 10 ms, and a write moves the dataset's version on: the
 * server has the next version's index file built by a child process, reads it, builds its lookup
 * indexes and swaps (src/directory/directory.ts). Measured from the write until `/metrics` names
 * the new version, then for 3 s after. BENCH_VERSIONS changes (1). Target: `/health` p99 < 50 ms.
 * Knobs: BENCH_DB, BENCH_VERSIONS, BENCH_SERVER_CPUS ("0"), BENCH_SERVER_ROOT (the tree whose
 * src/index.ts is started: another checkout, to compare).
 */
import { Database } from "bun:sqlite";
import { cpSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { envNumber } from "./lib/env";
import { withServedCopy } from "./lib/process";
import { fmt, loadAverages } from "./lib/report";

const ROOT = resolve(import.meta.dir, "..");
const SERVER_ROOT = resolve(process.env.BENCH_SERVER_ROOT || ROOT);
const source = resolve(
  process.env.BENCH_DB || join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite"),
);
const versions = Math.max(1, Math.round(envNumber("BENCH_VERSIONS", 1)));
const serverCpus = process.env.BENCH_SERVER_CPUS || "0";
const TARGET_P99_MS = 50;
const AFTER_MS = 3_000;
const LISTS = [
  (i: number) => `/api/v1/endpoints?page=${1 + (i % 400)}`,
  (i: number) => `/api/v1/endpoints?state=OH&page=${1 + (i % 40)}`,
  (i: number) => `/api/v1/endpoints?query=health&page=${1 + (i % 40)}`,
  (i: number) => `/api/v1/endpoints?near=${["44195", "10001", "60601", "94110"][i % 4]}&radius=25&page=${1 + (i % 5)}`,
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const summary = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `median ${fmt(percentile(sorted, 0.5), 1)} ms, p99 ${fmt(percentile(sorted, 0.99), 1)} ms, max ${fmt(sorted.at(-1) ?? 0, 1)} ms (${sorted.length})`;
};

async function main() {
  let failed = false;
  await withServedCopy(
    {
      source,
      script: join(SERVER_ROOT, "src/index.ts"),
      cpus: serverCpus,
      env: { RATE_LIMIT_MAX: "0" },
      readyTimeoutMs: 600_000,
      prepare: (dir) => {
        if (existsSync(`${source}.index`)) cpSync(`${source}.index`, join(dir, "index"), { recursive: true });
      },
    },
    async (server, db) => {
      const base = `http://127.0.0.1:${server.port}`;
      let stopping = false;
      const listLatencies: number[] = [];
      const traffic = (async () => {
        for (let i = 0; !stopping; i++) {
          const started = performance.now();
          const response = await fetch(`${base}${LISTS[i % LISTS.length]!(i)}`);
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`list: ${response.status}`);
          listLatencies.push(performance.now() - started);
        }
      })();
      const health = async (until: () => boolean) => {
        const latencies: number[] = [];
        while (!until()) {
          const started = performance.now();
          await (await fetch(`${base}/health`)).arrayBuffer();
          latencies.push(performance.now() - started);
          await Bun.sleep(10);
        }
        return latencies;
      };
      const idleUntil = performance.now() + AFTER_MS;
      console.log(`before: /health ${summary(await health(() => performance.now() > idleUntil))}`);
      for (let round = 0; round < versions; round++) {
        const sqlite = new Database(db);
        sqlite.run("UPDATE dataset_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'dataset_version'");
        const version = (
          sqlite.query("SELECT value FROM dataset_meta WHERE key = 'dataset_version'").get() as { value: string }
        ).value;
        sqlite.close();
        const written = performance.now();
        let swapped = false;
        const watching = (async () => {
          while (!swapped) {
            const text = await (await fetch(`${base}/metrics`)).text();
            if (new RegExp(`^dataset_version ${version}$`, "m").test(text)) swapped = true;
            else await Bun.sleep(100);
          }
        })();
        const listsBefore = listLatencies.length;
        const during = await health(() => swapped);
        await watching;
        const swapMs = performance.now() - written;
        const afterUntil = performance.now() + AFTER_MS;
        const after = await health(() => performance.now() > afterUntil);
        const all = [...during, ...after].sort((a, b) => a - b);
        if (percentile(all, 0.99) >= TARGET_P99_MS) failed = true;
        console.log(
          `version ${version}: swapped ${fmt(swapMs)} ms after the write; /health while opening: ${summary(during)}; ${AFTER_MS / 1000} s after: ${summary(after)}; lists meanwhile: ${summary(listLatencies.slice(listsBefore))}`,
        );
        console.log(
          `  /health p99 across the change ${fmt(percentile(all, 0.99), 1)} ms (target < ${TARGET_P99_MS}): ${percentile(all, 0.99) < TARGET_P99_MS ? "met" : "MISSED"}`,
        );
      }
      stopping = true;
      await traffic;
      console.log(`load average after: ${loadAverages()}`);
    },
  );
  if (failed) process.exitCode = 1;
}

await main();
