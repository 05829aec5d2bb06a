/**
 * `bun bench/fhir-first-request.ts`: `/health` while the first `/fhir` requests of a version
 * build its FHIR index and substring indexes (src/server/fhir/fhir-index.ts, in steps), on the
 * 1M-entry database (BENCH_DB, copied to a temporary directory first). A server is started;
 * once it answers, `/health` is asked every 10 ms while the first `/fhir` searches of the version
 * run (an Endpoint page, a URL prefix, an organization name), then again after a write makes a
 * new version (BENCH_VERSIONS times in all). Target: `/health` p99 under 50 ms throughout.
 * Knobs: BENCH_DB, BENCH_VERSIONS (2), BENCH_SERVER_CPUS ("0").
 */
import { Database } from "bun:sqlite";
import { join, resolve } from "node:path";
import { envNumber } from "./lib/env";
import { withServedCopy } from "./lib/process";
import { fmt, loadAverages } from "./lib/report";

const ROOT = resolve(import.meta.dir, "..");
const source = resolve(
  process.env.BENCH_DB || join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite"),
);
const versions = Math.max(1, Math.round(envNumber("BENCH_VERSIONS", 2)));
const serverCpus = process.env.BENCH_SERVER_CPUS || "0";
const TARGET_P99_MS = 50;
const FIRST_SEARCHES = [
  "/fhir/Endpoint?_count=10",
  "/fhir/Endpoint?address=https://fhir&status=active&_count=10",
  "/fhir/Organization?name=health&_count=10",
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Asks `/health` every 10 ms until `done` settles; the latencies, in ms. */
async function healthWhile(port: number, done: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let finished = false;
  done.finally(() => {
    finished = true;
  });
  while (!finished) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    await Bun.sleep(10);
  }
  return latencies;
}

async function main() {
  let failed = false;
  await withServedCopy(
    {
      source,
      script: join(ROOT, "src/index.ts"),
      cpus: serverCpus,
      env: { RATE_LIMIT_MAX: "0" },
      readyTimeoutMs: 300_000,
    },
    async (server, db) => {
      for (let round = 0; round < versions; round++) {
        if (round > 0) {
          // A write: the dataset's version moves on, and the server builds the new one's indexes.
          const sqlite = new Database(db);
          sqlite.run("UPDATE dataset_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'dataset_version'");
          const version = (
            sqlite.query("SELECT value FROM dataset_meta WHERE key = 'dataset_version'").get() as {
              value: string;
            }
          ).value;
          sqlite.close();
          // Served once /metrics says so.
          const waiting = (async () => {
            for (;;) {
              const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
              if (new RegExp(`^dataset_version ${version}$`, "m").test(text)) return;
              await Bun.sleep(100);
            }
          })();
          const during = await healthWhile(server.port, waiting);
          during.sort((a, b) => a - b);
          console.log(
            `version ${round + 1} built: /health p99 ${fmt(percentile(during, 0.99), 1)} ms, max ${fmt(during.at(-1) ?? 0, 1)} ms (${during.length})`,
          );
        }
        const started = performance.now();
        const first = (async () => {
          for (const path of FIRST_SEARCHES) {
            const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
          }
        })();
        const latencies = await healthWhile(server.port, first);
        await first;
        latencies.sort((a, b) => a - b);
        const p99 = percentile(latencies, 0.99);
        if (p99 >= TARGET_P99_MS) failed = true;
        console.log(
          `version ${round + 1}: first /fhir searches answered in ${fmt(performance.now() - started)} ms; /health over ${latencies.length} requests: median ${fmt(percentile(latencies, 0.5), 1)} ms, p99 ${fmt(p99, 1)} ms, max ${fmt(latencies.at(-1) ?? 0, 1)} ms (target p99 < ${TARGET_P99_MS}): ${p99 < TARGET_P99_MS ? "met" : "MISSED"}`,
        );
      }
      console.log(`load average after: ${loadAverages()}`);
    },
  );
  if (failed) process.exitCode = 1;
}

await main();
