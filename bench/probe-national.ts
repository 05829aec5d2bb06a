/**
 * A national-size probe run on the fault farm, measured:
 * `bun bench/probe-national.ts [--urls 23000] [--kill-at 0.5] [--clients 2]`
 *
 * 1. Starts the farm (tools/farm/cli.ts, a child process): `--urls` base URLs on ~5,400 local
 *    hosts, 10 % of them silent, 5 % slow (1–8 s), 5 % hostile, 10 % of the rest https.
 * 2. Ingests its list (`bun run ingest --vendor epic --file`, ALLOW_PRIVATE_NETWORK=true).
 * 3. Starts the API server on the same database and keeps asking it for list pages and records by
 *    id (`--clients` loops) while the probe runs, and once a second for how many entries have a
 *    SMART configuration, to compare with the database: the lag until the API shows new results.
 * 4. Runs `bun run probe --json` at the default concurrency and politeness, kills it with
 *    SIGKILL once `--kill-at` of the URLs are stored (0: no kill), then runs it again.
 * 5. Reports the wall time (both runs), the probe's peak RSS, the most requests in flight at one
 *    host (counted by the farm), the API's p99 per operation, the pick-up lag, and whether every
 *    URL was probed exactly once in all: one probes row and one history record per URL.
 *
 * Targets: wall ≤ 15 min, probe RSS ≤ 300 MB, ≤ 2 in flight per host, API p99 < 50 ms.
 */

import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../src/cli/args";
import { freePort, memoryOf, type Started, stop, waitUntilAnswers } from "./lib/process";
import { fmt, loadAverages } from "./lib/report";

const { values } = parseCli({
  command: "bun run bench:probe-national",
  synopsis: ["[--urls <n>] [--kill-at <share>] [--clients <n>] [--keep]"],
  description:
    "A national-size probe run on the fault farm: ingests the farm's list, runs the probe while API clients read, kills it once --kill-at of the URLs are stored and runs it again. Targets: wall ≤ 15 min, probe RSS ≤ 300 MB, ≤ 2 requests in flight per host, API p99 < 50 ms.",
  optionHelp: [
    ["--urls <n>", "base URLs on the farm (default 23000)"],
    ["--kill-at <share>", "share of URLs stored when the first run is killed (default 0.5; 0: no kill)"],
    ["--clients <n>", "API client loops during the run (default 2)"],
    ["--keep", "keep the temporary folder"],
  ],
  options: {
    urls: { type: "string", default: "23000" },
    "kill-at": { type: "string", default: "0.5" },
    clients: { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
  },
});
const URLS = Number(values.urls);
const KILL_AT = Number(values["kill-at"]);
const ROOT = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "probe-national-"));
const dbPath = join(dir, "directory.sqlite");
const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const bun = process.execPath;
const loadBefore = loadAverages();

// 1. The farm.
const farm = Bun.spawn([bun, "tools/farm/cli.ts", "--out", dir, "--urls", String(URLS)], {
  cwd: ROOT,
  stdout: "pipe",
  stderr: "inherit",
});
const reader = farm.stdout.getReader();
let ready = "";
while (!ready.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the farm exited before it was ready");
  ready += new TextDecoder().decode(value);
}
const { control, hosts } = JSON.parse(ready) as { control: string; hosts: number };
log(`farm: ${URLS} URLs on ${hosts} hosts`);

const env = {
  ...process.env,
  DATABASE_PATH: dbPath,
  ALLOW_PRIVATE_NETWORK: "true",
  NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
  LOG_LEVEL: "warn",
};

// 2. The list.
const ingest = Bun.spawnSync(
  [bun, "src/pipeline/ingest/cli.ts", "--vendor", "epic", "--file", join(dir, "list.json")],
  { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" },
);
if (ingest.exitCode !== 0) throw new Error(`ingest failed: ${ingest.stderr.toString()}`);
log("ingested");

const readDb = <T>(query: (db: Database) => T): T => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
};
const ids = readDb((db) =>
  (db.prepare("SELECT id FROM entries ORDER BY random() LIMIT 2000").all() as { id: string }[]).map((r) => r.id),
);
const probesStored = () => readDb((db) => (db.prepare("SELECT COUNT(*) AS n FROM probes").get() as { n: number }).n);
const smartInDb = () =>
  readDb(
    (db) =>
      (
        db
          .prepare(
            "SELECT COUNT(*) AS n FROM entries e JOIN probes p ON p.url = e.url WHERE p.smart_supported = 1 AND e.status != 'removed' AND e.unusable IS NULL",
          )
          .get() as { n: number }
      ).n,
  );

// 3. The API server on the same file, and its clients.
const port = freePort();
const server: Started = {
  proc: Bun.spawn([bun, "src/index.ts"], {
    cwd: ROOT,
    // 127.0.0.1, not 0.0.0.0: the farm holds thousands of ports on other 127.x addresses.
    // The bench runs the probe itself: the server's own schedule stays off.
    env: {
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      RATE_LIMIT_MAX: "0",
      MIMALLOC_PURGE_DELAY: "1000",
      REFRESH: "off",
    },
    stdout: "ignore",
    stderr: "inherit",
  }),
  pid: 0,
  startedAt: performance.now(),
  port,
};
server.pid = server.proc.pid;
await waitUntilAnswers(server, "/api/v1/stats", 120_000);
log("server answering");

const latencies = { list: [] as number[], byId: [] as number[] };
let errors = 0;
let running = true;
const api = `http://127.0.0.1:${port}`;
async function timed(kind: keyof typeof latencies, path: string) {
  const t = performance.now();
  try {
    const response = await fetch(`${api}${path}`);
    await response.arrayBuffer();
    if (response.status !== 200) errors++;
  } catch {
    errors++;
  }
  latencies[kind].push(performance.now() - t);
}
const clients = Array.from({ length: Number(values.clients) }, async (_, c) => {
  for (let i = 0; running; i++) {
    if (i % 2 === c % 2) await timed("list", `/api/v1/endpoints?page=${1 + (i % 50)}&limit=25`);
    else await timed("byId", `/api/v1/endpoints/${ids[(i * 7919 + c) % ids.length]}`);
    await Bun.sleep(10);
  }
});
const pickup: { at: number; api: number; db: number }[] = [];
const watcher = (async () => {
  while (running) {
    const at = performance.now();
    try {
      const response = await fetch(`${api}/api/v1/endpoints?smartSupported=true&limit=1`);
      const body = (await response.json()) as { meta: { total: number } };
      pickup.push({ at, api: body.meta.total, db: smartInDb() });
    } catch {
      // counted by the clients
    }
    await Bun.sleep(1000);
  }
})();

// 4. The probe, killed once, then again.
let peakRssMb = 0;
async function probeRun(killAtStored: number | null) {
  const started = performance.now();
  const proc = Bun.spawn([bun, "src/pipeline/probe/cli.ts", "--json"], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = new Response(proc.stdout).text();
  let killed = false;
  let exited = false;
  proc.exited.then(() => {
    exited = true;
  });
  while (!exited) {
    const memory = memoryOf(proc.pid);
    if (memory) peakRssMb = Math.max(peakRssMb, memory.peakMb, memory.rssMb);
    if (killAtStored !== null && !killed && probesStored() >= killAtStored) {
      proc.kill("SIGKILL");
      killed = true;
    }
    await Bun.sleep(250);
  }
  await proc.exited;
  return { ms: performance.now() - started, code: proc.exitCode, killed, stdout: await output };
}
log("probe run 1");
const first = await probeRun(KILL_AT > 0 ? Math.floor(URLS * KILL_AT) : null);
const storedAfterKill = probesStored();
log(
  `run 1: ${fmt(first.ms / 1000)} s, ${first.killed ? `killed with ${storedAfterKill} stored` : `exit ${first.code}`}`,
);
const second = first.killed ? await probeRun(null) : null;
if (second) log(`run 2: ${fmt(second.ms / 1000)} s, exit ${second.code}`);
// Let the server pick up the last version.
await Bun.sleep(4000);
running = false;
await Promise.all([...clients, watcher]);

// 5. What happened.
const stats = (await (await fetch(`${control}/stats`)).json()) as {
  maxInFlightPerHost: number;
  requests: number;
  metadataAskedTimes: Record<string, number>;
};
const history = readDb(
  (db) =>
    db.prepare("SELECT length(records) / 14 AS n, COUNT(*) AS urls FROM probe_history GROUP BY n ORDER BY n").all() as {
      n: number;
      urls: number;
    }[],
);
const stored = probesStored();
let summary: Record<string, unknown> = {};
try {
  summary = JSON.parse((second ?? first).stdout);
} catch {
  log(`the last run's summary is not JSON (${(second ?? first).stdout.length} characters)`);
}
const p = (list: number[], q: number) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
let maxLagS = 0;
for (const sample of pickup) {
  const caughtUp = pickup.find((s) => s.db >= sample.api);
  const behind = pickup.filter((s) => s.at <= sample.at && s.db > sample.api);
  if (caughtUp && behind.length > 0) maxLagS = Math.max(maxLagS, (sample.at - behind[0]!.at) / 1000);
}
const last = pickup.at(-1);
const wallS = (first.ms + (second?.ms ?? 0)) / 1000;
const lines = [
  `national probe run: ${URLS} URLs on ${hosts} farm hosts (10 % silent, 5 % slow 1–8 s, 5 % hostile), default concurrency and politeness`,
  `load before ${loadBefore}, after ${loadAverages()} (2 cores, shared with other work)`,
  `wall: ${fmt(wallS)} s (run 1 ${fmt(first.ms / 1000)} s${first.killed ? `, SIGKILL at ${storedAfterKill} stored; run 2 ${fmt((second?.ms ?? 0) / 1000)} s` : ""})`,
  `probe peak RSS: ${fmt(peakRssMb)} MB`,
  `most requests in flight at one host (farm): ${stats.maxInFlightPerHost}`,
  `API during the run: list p50 ${fmt(p(latencies.list, 0.5), 1)} ms p99 ${fmt(p(latencies.list, 0.99), 1)} ms (${latencies.list.length}); by id p50 ${fmt(p(latencies.byId, 0.5), 1)} ms p99 ${fmt(p(latencies.byId, 0.99), 1)} ms (${latencies.byId.length}); errors ${errors}`,
  `pick-up: the API's count of SMART entries trailed the database's by at most ${fmt(maxLagS, 1)} s; at the end API ${last?.api} / database ${last?.db}`,
  `stored: ${stored} probes rows of ${URLS}; history records per URL: ${history.map((h) => `${h.n}×${h.urls}`).join(", ")}`,
  `farm: /metadata asked per URL: ${Object.entries(stats.metadataAskedTimes)
    .map(([n, urls]) => `${n}×${urls}`)
    .join(", ")} (0: a silent host's other URLs, not asked again; 2: in flight at the kill, or a redirect loop)`,
  `summary of the last run: ${JSON.stringify({ probed: summary.probed, success: summary.success, partial: summary.partial, failed: summary.failed, unresponsive: summary.unresponsive, errorKinds: summary.errorKinds })}`,
];
process.stdout.write(`${lines.join("\n")}\n`);

await stop(server);
farm.kill("SIGTERM");
await farm.exited;
if (!values.keep) rmSync(dir, { recursive: true, force: true });
else log(`kept ${dir}`);
