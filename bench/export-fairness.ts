import { join, resolve } from "node:path";
import { envNumber } from "./lib/env";
import { cpuSecondsOf, withServedCopy } from "./lib/process";
import { fmt, loadAverages } from "./lib/report";

const ROOT = resolve(import.meta.dir, "..");
const source = resolve(
  process.env.BENCH_DB || join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite"),
);
const seconds = envNumber("BENCH_SECONDS", 59);
const serverCpus = process.env.BENCH_SERVER_CPUS || "0";
/** 60 requests a minute of at most about 40 ms each (bench/README.md, Fairness). */
const FAIR_CPU_SECONDS_PER_MINUTE = 2.4;
const EXPORTS: { path: string; headers: Record<string, string> }[] = [
  { path: "/api/v1/export?format=ndjson&fhirVersion=R4", headers: {} },
  { path: "/api/v1/export?format=fhir&access=patient", headers: {} },
  { path: "/api/v1/export?format=csv&state=CA", headers: { "accept-encoding": "gzip" } },
  { path: "/api/v1/export?format=ndjson&state=TX", headers: {} },
];
const CLIENT = "198.51.100.77";

async function main() {
  await withServedCopy(
    {
      source,
      script: join(ROOT, "src/index.ts"),
      cpus: serverCpus,
      env: { TRUST_PROXY: "true" },
      readyTimeoutMs: 300_000,
    },
    async (server, _db) => {
      // Warm-up by another client (what the first exports of a version build once is not one
      // client's cost), then the run starts with a rate-limit window, as a new minute starts.
      for (const { path, headers } of EXPORTS)
        await (
          await fetch(`http://127.0.0.1:${server.port}${path}`, {
            headers: { "x-forwarded-for": "198.51.100.1", ...headers },
          })
        ).arrayBuffer();
      await Bun.sleep(60_000 - (Date.now() % 60_000) + 200);
      const statuses = new Map<number, number>();
      let bytes = 0;
      let next = 0;
      const cpuBefore = cpuSecondsOf(server.pid)!;
      const started = performance.now();
      const slot = async () => {
        while (performance.now() - started < seconds * 1000) {
          const { path, headers } = EXPORTS[next++ % EXPORTS.length]!;
          const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
            headers: { "x-forwarded-for": CLIENT, ...headers },
          });
          bytes += (await response.arrayBuffer()).byteLength;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          // Refused: retry once the limiter says (a client that does not wait only adds 429s, each
          // well under a millisecond of CPU: counted too, apart).
          if (response.status === 429) {
            const wait = Number(response.headers.get("retry-after") ?? "1") * 1000;
            await Bun.sleep(Math.min(wait, Math.max(0, seconds * 1000 - (performance.now() - started))));
          } else if (response.status !== 200) await Bun.sleep(50);
        }
      };
      await Promise.all([slot(), slot()]);
      const elapsed = (performance.now() - started) / 1000;
      const cpu = cpuSecondsOf(server.pid)! - cpuBefore;
      const perMinute = (cpu / elapsed) * 60;
      const answers = [...statuses].map(([status, n]) => `${n}×${status}`).join(", ");
      console.log(
        `one client, ${fmt(elapsed, 1)} s: ${answers}; ${fmt(bytes / 1e6, 1)} MB read; server CPU ${fmt(cpu, 2)} s, ${fmt(perMinute, 2)} s a minute (fairness: ${FAIR_CPU_SECONDS_PER_MINUTE} s): ${perMinute <= FAIR_CPU_SECONDS_PER_MINUTE ? "met" : "MISSED"}`,
      );
      console.log(`load average after: ${loadAverages()}`);
      if (perMinute > FAIR_CPU_SECONDS_PER_MINUTE) process.exitCode = 1;
    },
  );
}

await main();
