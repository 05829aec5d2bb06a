/**
 * Slow downloads of the whole directory, against a real server on a copy of a large database
 * (default: the 1M-entry bench database; `BENCH_DATABASE` names another, e.g. a national one):
 *
 * 1. the first request of each unfiltered export (csv, ndjson, fhir, brands): how long until its
 *    download file is written and answered, the server CPU it took, its size and its gzip copy's
 *    (the disk a dataset version takes); then HEADs of the FHIR and brands exports under four
 *    made-up Host headers: the server CPU and disk they cost (none: one file per version and
 *    format, its URLs under PUBLIC_ORIGIN), and whether each answer has its Content-Length;
 * 2. BENCH_READERS readers of the CSV file (half of them its gzip copy), each reading its first
 *    4 MB at once (so the socket buffers grow, as the cut downloads did) and then 10 KB/s for
 *    BENCH_SECONDS, then the rest at full speed: every one must end with exactly Content-Length
 *    bytes. Meanwhile /health is timed every 250 ms and a filtered export of another client
 *    runs every 5 s (EXPORT_MAX_RUNNING=2: it must get a slot, the readers holding none);
 * 3. the same slow pace on a filtered (streamed) export, for comparison: where it ends.
 *
 *     bun run bench:slow-download
 *     BENCH_SECONDS=300 BENCH_READERS=8 BENCH_DATABASE=/path/national.sqlite bun run bench:slow-download
 *
 * The database is copied first (the server writes its index into it).
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import { envNumber } from "./lib/env";
import { cpuSecondsOf, freePort, memoryOf, startPinned, stop, waitUntilAnswers } from "./lib/process";

parseCli({
  command: "bun run bench:slow-download",
  synopsis: [""],
  description:
    "Slow downloads of the whole directory against a real server on a copy of a large database: what writing each download file costs, then slow readers of the CSV export, each of which must get exactly Content-Length bytes, while /health is timed.",
  options: {},
  optionHelp: [],
  environment:
    "BENCH_DATABASE (default /work/bench-data/endpoints-1000000-seed1-history400.sqlite), BENCH_SECONDS (120), BENCH_READERS (8).",
});

const ROOT = resolve(import.meta.dir, "..");
const SOURCE = process.env.BENCH_DATABASE || "/work/bench-data/endpoints-1000000-seed1-history400.sqlite";
const SECONDS = envNumber("BENCH_SECONDS", 120);
const READERS = envNumber("BENCH_READERS", 8);
const RATE = 10_000;
const FAST_START = 4 * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), "slow-download-"));
const database = join(dir, "directory.sqlite");
copyFileSync(SOURCE, database);
const port = freePort();
const server = startPinned(
  join(ROOT, "src/index.ts"),
  "0-1",
  {
    DATABASE_PATH: database,
    HOST: "127.0.0.1",
    TRUST_PROXY: "true",
    RATE_LIMIT_MAX: "0",
    EXPORT_MAX_RUNNING: "2",
    LOG_LEVEL: "warn",
    PUBLIC_ORIGIN: "https://directory.example.org",
  },
  join(dir, "server.log"),
  port,
);
const base = `http://127.0.0.1:${port}`;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** The head of a HEAD of `target` sent with `Host: host`. */
function headWithHost(target: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect({ host: "127.0.0.1", port }, () =>
      socket.write(`HEAD ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received.slice(0, received.indexOf("\r\n\r\n"))));
  });
}

interface Read {
  status: string;
  contentLength: number | null;
  received: number;
  seconds: number;
  closedEarly: boolean;
}

/**
 * GET `target` over a raw socket as `client`: FAST_START bytes at full speed, then RATE bytes a
 * second until `slowUntil` (ms, performance.now()), then the rest at full speed.
 */
function read(target: string, client: string, slowUntil: number, gzip: boolean): Promise<Read> {
  const started = performance.now();
  return new Promise((done) => {
    let head = "";
    let headEnd = -1;
    let received = 0;
    let tail = "";
    let ended = false;
    const socket = connect({ host: "127.0.0.1", port }, () =>
      socket.write(
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Forwarded-For: ${client}\r\n${gzip ? "Accept-Encoding: gzip\r\n" : ""}\r\n`,
      ),
    );
    const finish = (closedEarly: boolean) => {
      if (ended) return;
      ended = true;
      socket.destroy();
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      done({
        status: head.slice(9, 12),
        contentLength: length === undefined ? null : Number(length),
        received,
        seconds: (performance.now() - started) / 1000,
        closedEarly,
      });
    };
    socket.on("data", (chunk: Buffer) => {
      if (headEnd === -1) {
        head += chunk.toString("latin1");
        headEnd = head.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        received = head.length - headEnd - 4;
        head = head.slice(0, headEnd);
      } else received += chunk.length;
      tail = (tail + chunk.toString("latin1", Math.max(0, chunk.length - 8))).slice(-8);
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      if (length !== undefined && received >= Number(length)) return finish(false);
      if (received > FAST_START && performance.now() < slowUntil) {
        socket.pause();
        setTimeout(() => socket.resume(), (chunk.length / RATE) * 1000);
      }
    });
    socket.on("close", () => {
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      // A streamed body ends with the chunked terminator; without it, it was cut.
      finish(length === undefined ? !tail.endsWith("0\r\n\r\n") : received < Number(length));
    });
    socket.on("error", () => finish(true));
  });
}

try {
  const readyMs = await waitUntilAnswers(server, "/health", 30 * 60_000);
  const entries = ((await (await fetch(`${base}/api/v1/stats`)).json()) as { data: { totalEndpoints: number } }).data
    .totalEndpoints;
  console.log(`ready in ${Math.round(readyMs)} ms, ${entries} entries; load ${loadavg()[0]!.toFixed(2)}`);

  // 1. The first request of each format writes its files.
  const files: Record<string, unknown>[] = [];
  for (const format of ["csv", "ndjson", "fhir", "brands"]) {
    const cpu = cpuSecondsOf(server.pid)!;
    const started = performance.now();
    const response = await fetch(`${base}/api/v1/export?format=${format}`, {
      headers: { "accept-encoding": "gzip" },
      decompress: false,
    } as RequestInit);
    const firstByteMs = performance.now() - started;
    const gzipBytes = (await response.arrayBuffer()).byteLength;
    const serverCpu = cpuSecondsOf(server.pid)! - cpu;
    const plain = await fetch(`${base}/api/v1/export?format=${format}`, {
      method: "HEAD",
      headers: { "accept-encoding": "identity" },
    });
    files.push({
      format,
      status: response.status,
      firstResponseS: Math.round(firstByteMs / 100) / 10,
      serverCpuS: Math.round(serverCpu * 10) / 10,
      fileMb: mb(Number(plain.headers.get("content-length"))),
      gzipMb: mb(gzipBytes),
      load: loadavg()[0]!.toFixed(2),
    });
  }
  console.table(files);
  const exportDir = join(`${database}.exports`, String(server.pid));
  const diskBytes = readdirSync(exportDir).reduce((sum, name) => sum + statSync(join(exportDir, name)).size, 0);
  console.log(`disk: ${mb(diskBytes)} MB in ${readdirSync(exportDir).length} files (${exportDir})`);

  // 1b. Made-up Host headers: no file (nor CPU) of their own.
  const hostCpu = cpuSecondsOf(server.pid)!;
  const hostStarted = performance.now();
  const lengths: boolean[] = [];
  for (const format of ["fhir", "brands"])
    for (const host of ["a.example", "b.example", "c.example", "d.example", `127.0.0.1:${port}`])
      lengths.push(/\r\ncontent-length: \d+/i.test(await headWithHost(`/api/v1/export?format=${format}`, host)));
  const hostDisk = readdirSync(exportDir).reduce((sum, name) => sum + statSync(join(exportDir, name)).size, 0);
  console.log(
    `made-up Hosts: 10 HEADs in ${Math.round(performance.now() - hostStarted)} ms, server CPU ${(cpuSecondsOf(server.pid)! - hostCpu).toFixed(2)} s, disk +${mb(hostDisk - diskBytes)} MB, Content-Length on ${lengths.filter(Boolean).length}/10`,
  );

  // 2. Slow readers of the download file, while /health and filtered exports are served.
  const rssBefore = memoryOf(server.pid)!.rssMb;
  const cpuBefore = cpuSecondsOf(server.pid)!;
  const slowUntil = performance.now() + SECONDS * 1000;
  const readers = Array.from({ length: READERS }, (_, i) =>
    read("/api/v1/export?format=csv", `198.51.100.${(i % 4) + 1}`, slowUntil, i % 2 === 1),
  );
  // 3. The streamed (filtered) export at the same pace.
  const streamed = read("/api/v1/export?format=csv&fhirVersion=R4", "192.0.2.200", slowUntil, false);
  const health: number[] = [];
  const filtered = new Map<number, number>();
  let maxRss = rssBefore;
  let nextFiltered = performance.now();
  while (performance.now() < slowUntil) {
    const started = performance.now();
    await (await fetch(`${base}/health`)).arrayBuffer();
    health.push(performance.now() - started);
    if (performance.now() >= nextFiltered) {
      nextFiltered += 5000;
      const response = await fetch(`${base}/api/v1/export?format=ndjson&state=WY`, {
        headers: { "x-forwarded-for": "203.0.113.9" },
      });
      await response.arrayBuffer();
      filtered.set(response.status, (filtered.get(response.status) ?? 0) + 1);
    }
    maxRss = Math.max(maxRss, memoryOf(server.pid)?.rssMb ?? 0);
    await Bun.sleep(250);
  }
  const results = await Promise.all(readers);
  const slowCpu = cpuSecondsOf(server.pid)! - cpuBefore;
  const downloaded = results.reduce((sum, r) => sum + r.received, 0);
  health.sort((a, b) => a - b);
  console.table(
    results.map((r, i) => ({
      reader: i,
      gzip: i % 2 === 1,
      status: r.status,
      contentLengthMb: r.contentLength === null ? null : mb(r.contentLength),
      receivedMb: mb(r.received),
      complete: r.contentLength !== null && r.received === r.contentLength,
      seconds: Math.round(r.seconds),
    })),
  );
  const stream = await streamed;
  console.log(
    JSON.stringify({
      entries,
      slowSeconds: SECONDS,
      readers: READERS,
      complete: results.filter((r) => r.contentLength !== null && r.received === r.contentLength).length,
      filteredExportStatuses: Object.fromEntries(filtered),
      healthP99Ms: Math.round(health[Math.floor(health.length * 0.99)] ?? Number.NaN),
      healthMaxMs: Math.round(health.at(-1) ?? Number.NaN),
      rssBeforeMb: Math.round(rssBefore),
      rssMaxMb: Math.round(maxRss),
      serverCpuS: Math.round(slowCpu * 10) / 10,
      serverCpuMsPerMb: Math.round((slowCpu * 1000) / Math.max(1, mb(downloaded))),
      streamedFilteredExport: {
        status: stream.status,
        receivedMb: mb(stream.received),
        closedEarly: stream.closedEarly,
        seconds: Math.round(stream.seconds),
      },
      loadavg: loadavg().map((l) => l.toFixed(2)),
    }),
  );
} finally {
  await stop(server);
  rmSync(dir, { recursive: true, force: true });
}
