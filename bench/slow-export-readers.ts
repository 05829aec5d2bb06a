/**
 * Slow readers of compressed exports: 50 clients (distinct X-Forwarded-For, TRUST_PROXY=true) ×
 * 2 filtered (streamed) exports of `format=fhir&fhirVersion=R4` with `Accept-Encoding: br`, each reading 1 KB every 2 s over a raw
 * socket, against a real server on a generated dataset. Reports the server's RSS before and
 * during the load (max growth), the exports answered 200 / 503, and /health latency (max, p99)
 * sampled every 250 ms meanwhile. Targets: RSS growth ≤ 250 MB, /health max < 500 ms. Stops
 * itself after BENCH_SECONDS.
 *
 *     bun bench/slow-export-readers.ts
 *     BENCH_ENDPOINTS=200000 BENCH_SECONDS=60 EXPORT_MAX_RUNNING=20 bun bench/slow-export-readers.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateDataset } from "../tools/generate/generator";
import { envNumber } from "./lib/env";
import { freePort, memoryOf, startPinned, stop, waitUntilAnswers } from "./lib/process";

const ROOT = resolve(import.meta.dir, "..");
const ENDPOINTS = envNumber("BENCH_ENDPOINTS", 200_000);
const SECONDS = envNumber("BENCH_SECONDS", 60);
const CLIENTS = envNumber("BENCH_CLIENTS", 50);
const TARGETS = { rssGrowthMb: 250, healthMs: 500 };

const dir = mkdtempSync(join(tmpdir(), "slow-export-readers-"));
const database = join(dir, "directory.sqlite");
generateDataset({ endpoints: ENDPOINTS, out: database, seed: 1 });
const port = freePort();
const env: Record<string, string> = {
  DATABASE_PATH: database,
  HOST: "127.0.0.1",
  TRUST_PROXY: "true",
  RATE_LIMIT_MAX: "0",
  LOG_LEVEL: "warn",
};
if (process.env.EXPORT_MAX_RUNNING) env.EXPORT_MAX_RUNNING = process.env.EXPORT_MAX_RUNNING;
const server = startPinned(join(ROOT, "src/index.ts"), "0-1", env, join(dir, "server.log"), port);

/** One slow reader: sends the request, then reads 1 KB every 2 s until the bench ends. */
function slowReader(client: string, statuses: Map<string, number>): Socket {
  const socket = connect({ host: "127.0.0.1", port }, () => {
    socket.write(
      `GET /api/v1/export?format=fhir&fhirVersion=R4 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: br\r\nX-Forwarded-For: ${client}\r\n\r\n`,
    );
  });
  socket.pause();
  let head = "";
  const tick = setInterval(() => {
    const chunk = socket.read(1024) as Buffer | null;
    if (chunk && head.length < 16) {
      head += chunk.toString("latin1", 0, 16);
      const status = head.slice(9, 12);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  }, 2000);
  socket.on("close", () => clearInterval(tick));
  socket.on("error", () => clearInterval(tick));
  return socket;
}

try {
  await waitUntilAnswers(server, "/health", 600_000);
  // Warm: one export read whole, so the baseline includes what any export needs once.
  await (
    await fetch(`http://127.0.0.1:${port}/api/v1/export?format=fhir&fhirVersion=R4`, {
      headers: { "accept-encoding": "br" },
    })
  ).arrayBuffer();
  await Bun.sleep(2000);
  const baseline = memoryOf(server.pid)!.rssMb;
  const statuses = new Map<string, number>();
  const sockets: Socket[] = [];
  for (let c = 0; c < CLIENTS; c++)
    for (let e = 0; e < 2; e++) sockets.push(slowReader(`10.${c >> 8}.${c & 255}.${e + 1}`, statuses));
  const latencies: number[] = [];
  let maxRss = baseline;
  const end = performance.now() + SECONDS * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    maxRss = Math.max(maxRss, memoryOf(server.pid)?.rssMb ?? 0);
    await Bun.sleep(250);
  }
  for (const socket of sockets) socket.destroy();
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN;
  const max = latencies.at(-1) ?? Number.NaN;
  const growth = maxRss - baseline;
  console.log(
    JSON.stringify({
      endpoints: ENDPOINTS,
      seconds: SECONDS,
      exports: CLIENTS * 2,
      statuses: Object.fromEntries(statuses),
      rssBaselineMb: Math.round(baseline),
      rssMaxMb: Math.round(maxRss),
      rssGrowthMb: Math.round(growth),
      healthP99Ms: Math.round(p99),
      healthMaxMs: Math.round(max),
      healthSamples: latencies.length,
      loadavg: loadavg().map((l) => l.toFixed(2)),
      targetsMet: growth <= TARGETS.rssGrowthMb && max < TARGETS.healthMs,
    }),
  );
} finally {
  await stop(server);
  rmSync(dir, { recursive: true, force: true });
}
