/**
 * Probe benchmark:
 * `bun bench/probe.ts [--urls 5000] [--concurrency 64] [--servers 16] [--delay 20] [--resources 100] [--inline]`
 *
 * Local servers (in a child process, so they do not share the prober's event loop or RSS)
 * answer /metadata and /.well-known/smart-configuration after `--delay` ms. Every URL has its
 * own hostname (h<i>.bench.test) so the per-host limit does not serialise the run; connectTo
 * sends each request to one of the local ports. Results are written to a temporary SQLite file
 * exactly as `bun run probe` does. Target: ≥ 500 URLs/s at concurrency 64 with RSS < 300 MB.
 *
 * `--compare [--rounds 5]`: what availability history costs. Runs alternate with and without it
 * (each into a fresh database, the same servers), and the median durations are compared.
 * Target: with history ≤ 10 % slower (`bun bench/probe.ts --compare --urls 1000`).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../src/cli/args";

const { values } = parseCli({
  command: "bun run bench:probe",
  synopsis: [
    "[--urls <n>] [--concurrency <n>] [--servers <n>] [--delay <ms>] [--resources <n>] [--inline]",
    "--compare [--rounds <n>] [--urls <n>]",
  ],
  description:
    "Probes --urls URLs served by local servers (a child process) into a temporary SQLite file as bun run probe does. Target: ≥ 500 URLs/s at concurrency 64 with RSS < 300 MB. --compare: runs with and without availability history, alternated; target: with history ≤ 10 % slower.",
  optionHelp: [
    ["--urls <n>", "URLs probed (default 5000)"],
    ["--concurrency <n>", "probes at once (default 64)"],
    ["--servers <n>", "local servers (default 16)"],
    ["--delay <ms>", "each answer's delay (default 20)"],
    ["--resources <n>", "resources in the served CapabilityStatement (default 100, about 44 KB)"],
    ["--inline", "write results in the probing thread instead of the store worker"],
    ["--compare", "compare runs with and without availability history"],
    ["--rounds <n>", "--compare: runs of each (default 5)"],
    ["--serve", "the benchmark's own server process"],
  ],
  options: {
    urls: { type: "string", default: "5000" },
    concurrency: { type: "string", default: "64" },
    servers: { type: "string", default: "16" },
    delay: { type: "string", default: "20" },
    /** Resources in the served CapabilityStatement: 6 → about 3 KB, 100 → about 44 KB (the real Epic STU3 one is 43 KB). */
    resources: { type: "string", default: "100" },
    /** Write results in the probing thread instead of the store worker. */
    inline: { type: "boolean", default: false },
    serve: { type: "boolean", default: false },
    compare: { type: "boolean", default: false },
    rounds: { type: "string", default: "5" },
  },
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { openDatabase } = await import("../src/db/client");
const { probeDue } = await import("../src/pipeline/probe");

const METADATA = JSON.stringify(
  {
    resourceType: "CapabilityStatement",
    fhirVersion: "4.0.1",
    software: { name: "Bench EHR", version: "1.0" },
    rest: [
      {
        mode: "server",
        resource: Array.from({ length: Number(values.resources) }, (_, i) => ({
          type: `Resource${i}`,
          interaction: [{ code: "read" }, { code: "search-type" }],
          searchParam: [
            { name: "patient", type: "reference" },
            { name: "date", type: "date" },
          ],
        })),
      },
    ],
  },
  null,
  2,
);
const SMART = JSON.stringify({
  authorization_endpoint: "https://auth.bench.test/authorize",
  token_endpoint: "https://auth.bench.test/token",
  capabilities: ["launch-standalone", "launch-ehr", "client-public", "permission-patient", "permission-user"],
  grant_types_supported: ["authorization_code"],
});

if (values.serve) {
  // Child: start the servers and print their ports.
  const delay = Number(values.delay);
  const ports: number[] = [];
  for (let i = 0; i < Number(values.servers); i++) {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        await Bun.sleep(delay);
        const body = new URL(request.url).pathname.endsWith("/metadata") ? METADATA : SMART;
        return new Response(body, { headers: { "content-type": "application/fhir+json" } });
      },
    });
    ports.push(server.port!);
  }
  process.stdout.write(`${JSON.stringify(ports)}\n`);
} else {
  await main();
}

async function main() {
  const urlCount = Number(values.urls);
  const concurrency = Number(values.concurrency);
  const child = Bun.spawn(
    [
      process.execPath,
      import.meta.path,
      "--serve",
      "--servers",
      String(values.servers),
      "--delay",
      String(values.delay),
      "--resources",
      String(values.resources),
    ],
    {
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("server process ended early");
    text += new TextDecoder().decode(value);
  }
  const ports = JSON.parse(text.trim()) as number[];

  const dir = mkdtempSync(join(tmpdir(), "probe-bench-"));
  try {
    if (values.compare) await compare(dir, ports, urlCount, concurrency);
    else await single(dir, ports, urlCount, concurrency);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh database with `urlCount` entries, one URL each. */
function freshDatabase(path: string, urlCount: number) {
  const db = openDatabase(path);
  db.sqlite
    .prepare("INSERT INTO vendors (id, name, endpoint_list_url) VALUES ('bench', 'Bench', 'https://bench.test')")
    .run();
  const insert = db.sqlite.prepare(
    "INSERT INTO entries (id, vendor_id, url, last_updated) VALUES (?1, 'bench', ?2, '2026-01-01T00:00:00.000Z')",
  );
  db.sqlite.transaction(() => {
    for (let i = 0; i < urlCount; i++) insert.run(i.toString(16).padStart(64, "0"), `https://h${i}.bench.test/fhir/r4`);
  })();
  return db;
}

/** Sends h<i>.bench.test to one of the local ports. */
function connectToPorts(ports: number[]) {
  return (url: URL) => {
    const i = Number(/^h(\d+)\./.exec(url.hostname)?.[1] ?? 0);
    return new URL(`http://127.0.0.1:${ports[i % ports.length]}/${url.hostname}${url.pathname}`);
  };
}

async function compare(dir: string, ports: number[], urlCount: number, concurrency: number) {
  const rounds = Number(values.rounds);
  const times: Record<"with" | "without", number[]> = { with: [], without: [] };
  /** CPU ms of this process (all threads) per run: steadier than wall time on a shared machine. */
  const cpuMs: Record<"with" | "without", number[]> = { with: [], without: [] };
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so a neighbour's load does not favour one side.
    const order: ("with" | "without")[] = round % 2 === 0 ? ["with", "without"] : ["without", "with"];
    for (const side of order) {
      const path = join(dir, `compare-${round}-${side}.sqlite`);
      const db = freshDatabase(path, urlCount);
      const cpuBefore = process.cpuUsage();
      const summary = await probeDue(db, {
        concurrency,
        allowPrivate: true,
        connectTo: connectToPorts(ports),
        timeoutMs: 10_000,
        writeInWorker: !values.inline,
        history: side === "with",
      });
      const cpu = process.cpuUsage(cpuBefore);
      db.sqlite.close();
      if (summary.success !== urlCount) throw new Error(`${side}: ${summary.success} of ${urlCount} succeeded`);
      times[side].push(summary.durationMs);
      cpuMs[side].push(Math.round((cpu.user + cpu.system) / 1000));
      console.log(`round ${round + 1} ${side} history: ${summary.durationMs} ms, CPU ${cpuMs[side].at(-1)} ms`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const withMs = median(times.with);
  const withoutMs = median(times.without);
  const slower = (withMs / withoutMs - 1) * 100;
  const cpuMore = (median(cpuMs.with) / median(cpuMs.without) - 1) * 100;
  console.log(
    JSON.stringify(
      {
        urls: urlCount,
        concurrency,
        rounds,
        medianWithMs: withMs,
        medianWithoutMs: withoutMs,
        slowerPercent: Math.round(slower * 10) / 10,
        medianCpuWithMs: median(cpuMs.with),
        medianCpuWithoutMs: median(cpuMs.without),
        moreCpuPercent: Math.round(cpuMore * 10) / 10,
        times,
      },
      null,
      2,
    ),
  );
  const ok = slower <= 10;
  console.log(ok ? "PASS: with history ≤ 10 % slower" : "FAIL: with history more than 10 % slower");
  process.exitCode = ok ? 0 : 1;
}

async function single(dir: string, ports: number[], urlCount: number, concurrency: number) {
  const db = freshDatabase(join(dir, "bench.sqlite"), urlCount);
  const connectTo = connectToPorts(ports);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 25);
  const cpuBefore = process.cpuUsage();
  const summary = await probeDue(db, {
    concurrency,
    allowPrivate: true,
    connectTo,
    timeoutMs: 10_000,
    writeInWorker: !values.inline,
  });
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);

  const verified = (
    db.sqlite.prepare("SELECT COUNT(*) AS n FROM entries WHERE status = 'verified'").get() as { n: number }
  ).n;
  const perSecond = summary.probed / (summary.durationMs / 1000);
  const result = {
    urls: urlCount,
    concurrency,
    servers: ports.length,
    serverDelayMs: Number(values.delay),
    metadataBytes: METADATA.length,
    writes: values.inline ? "inline" : "worker",
    ...summary,
    verifiedEntries: verified,
    urlsPerSecond: Math.round(perSecond),
    peakRssMB: Math.round(peakRss / 1024 / 1024),
    /** CPU time of the probing process (all its threads) during the run. */
    cpuUserMs: Math.round(cpu.user / 1000),
    cpuSystemMs: Math.round(cpu.system / 1000),
  };
  console.log(JSON.stringify(result, null, 2));
  const ok = summary.success === urlCount && perSecond >= 500 && peakRss < 300 * 1024 * 1024;
  console.log(ok ? "PASS: ≥ 500 URLs/s and RSS < 300 MB" : "FAIL: below target");
  db.sqlite.close();
  process.exitCode = ok ? 0 : 1;
}
