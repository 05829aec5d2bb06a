/**
 * `bun bench/forged-identities.ts`: what forged client identities cost the server's memory.
 *
 * Starts the server (src/index.ts, or BENCH_SERVER) with TRUST_PROXY=true on a small generated
 * database, warms it up, then sends BENCH_FORGED requests (default 20,000) to a rate-limited
 * route, each with its own 8 KB X-Forwarded-For value, BENCH_CONNECTIONS (default 50) at a time,
 * and prints the server's RSS before and after. Target: the growth stays under 50 MB (each
 * forged value counts as the socket's address, never as a key of its own).
 *
 *     bun bench/forged-identities.ts
 *     BENCH_SERVER=/path/to/other/src/index.ts bun bench/forged-identities.ts   # another checkout
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { envNumber } from "./lib/env";
import { freePort, generateDatabase, memoryOf, startPinned, stop, waitUntilAnswers } from "./lib/process";
import { loadAverages } from "./lib/report";

const ROOT = resolve(import.meta.dir, "..");
const TARGET_MB = 50;
const forged = Math.round(envNumber("BENCH_FORGED", 20_000));
const connections = Math.round(envNumber("BENCH_CONNECTIONS", 50));
const headerBytes = Math.round(envNumber("BENCH_HEADER_BYTES", 8192));
const server = resolve(process.env.BENCH_SERVER || join(ROOT, "src/index.ts"));

const dir = mkdtempSync(join(tmpdir(), "forged-identities-"));
const dbPath = join(dir, "endpoints.sqlite");
generateDatabase(dbPath, { endpoints: 2000 }, true);

const started = startPinned(
  server,
  process.env.BENCH_SERVER_CPUS || "0",
  {
    DATABASE_PATH: dbPath,
    INDEX_DIR: join(dir, "index"),
    HOST: "127.0.0.1",
    TRUST_PROXY: "true",
    RATE_LIMIT_MAX: "100000000",
    LOG_LEVEL: "error",
  },
  join(dir, "server.log"),
  freePort(),
);
const url = `http://127.0.0.1:${started.port}/api/v1/stats`;
const mb = (n: number) => `${n.toFixed(0)} MB`;

/** Sends `count` requests, `connections` at a time; `header(i)` is the i-th X-Forwarded-For value. */
async function send(count: number, header: (i: number) => string) {
  let next = 0;
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const i = next++;
        const response = await fetch(url, { headers: { "x-forwarded-for": header(i) } });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

try {
  await waitUntilAnswers(started, "/api/v1/stats", 60_000);
  // Warm-up: the same number of requests from a handful of valid addresses, so the runtime's own
  // growth (JIT, pools, caches) is in the baseline and not counted against forged values.
  await send(forged, (i) => `198.51.100.${i % 10}`);
  const before = memoryOf(started.pid)!;
  const padding = "f".repeat(headerBytes - 16);
  const startedAt = performance.now();
  const statuses = await send(forged, (i) => `${padding}${String(i).padStart(16, "0")}`);
  const seconds = (performance.now() - startedAt) / 1000;
  const after = memoryOf(started.pid)!;
  const growth = after.rssMb - before.rssMb;
  console.log(
    `${forged} requests with unique ${headerBytes}-byte X-Forwarded-For values in ${seconds.toFixed(1)} s ` +
      `(statuses ${JSON.stringify(Object.fromEntries(statuses))}); server ${server}`,
  );
  console.log(
    `RSS ${mb(before.rssMb)} → ${mb(after.rssMb)}: ${growth >= 0 ? "+" : ""}${mb(growth)} (target ≤ +${TARGET_MB} MB): ` +
      `${growth <= TARGET_MB ? "met" : "MISSED"}; load average ${loadAverages()}`,
  );
  if (growth > TARGET_MB) process.exitCode = 1;
} finally {
  await stop(started);
  rmSync(dir, { recursive: true, force: true });
}
