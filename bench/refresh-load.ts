/**
 * Serving while the server refreshes its own directory: `bun run bench:refresh-load`
 * (`--help` for the options).
 *
 * 1. Starts the fault farm (tools/farm/cli.ts, a child process): `--urls` base URLs on local
 *    hosts (127.60.x.y), 10 % silent, 5 % slow, 5 % hostile, as `bench:probe-national`.
 * 2. Serves the farm's list on 127.0.0.1 and registers it (a registry of one developer), then
 *    reads it with `bun run ingest`: a directory of `--urls` unprobed entries.
 * 3. Starts the server (`bun src/index.ts`) with its refresh schedule on (REFRESH=on, first run
 *    at once): the server starts `bun run refresh` as its low-priority child process.
 * 4. Once the run asks the servers, measures in alternating rounds: the run going (busy) or held
 *    with SIGSTOP (idle: the same process, its memory and sockets, taking no CPU), each round
 *    `--clients` closed-loop clients asking list pages for half of it and records by id for the
 *    other half, while one more client asks `/health` every 20 ms throughout.
 * 5. Prints, per condition, the median rates over the rounds, busy ÷ idle, and `/health` p99.
 *
 * Targets: list and by-id rates while the run goes ≥ 70 % of the idle rates; `/health` p99 < 50 ms
 * in both. Every request goes to 127.x.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../src/cli/args";
import type { Freshness } from "../src/model/freshness";
import { freePort, memoryOf, type Started, stop, waitUntilAnswers } from "./lib/process";
import { fmt, loadAverages, median, plainTable } from "./lib/report";

const { values } = parseCli({
  command: "bun run bench:refresh-load",
  synopsis: ["[--urls 23000] [--rounds 4] [--round-seconds 10] [--clients 4] [--keep]"],
  description:
    "List and by-id rates and /health p99 of a server while its own refresh of a local fault farm runs, against the same server with the run held (alternating rounds).",
  options: {
    urls: { type: "string" },
    rounds: { type: "string" },
    "round-seconds": { type: "string" },
    clients: { type: "string" },
    keep: { type: "boolean" },
  },
  optionHelp: [
    ["--urls <n>", "base URLs of the farm (default 23000)"],
    ["--rounds <n>", "pairs of rounds, busy then idle (default 4)"],
    ["--round-seconds <n>", "length of one round: half list pages, half records by id (default 10)"],
    ["--clients <n>", "closed-loop clients during a round (default 4)"],
    ["--keep", "keep the temporary folder (database, farm files)"],
  ],
  exitStatus: [[1, "failed"]],
});
const URLS = Number(values.urls ?? 23_000);
const ROUNDS = Number(values.rounds ?? 4);
const ROUND_MS = Number(values["round-seconds"] ?? 10) * 1000;
const CLIENTS = Number(values.clients ?? 4);
const ROOT = join(import.meta.dir, "..");
const bun = process.execPath;
const dir = mkdtempSync(join(tmpdir(), "refresh-load-"));
const dbPath = join(dir, "directory.sqlite");
const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const loadBefore = loadAverages();

// 1. The farm.
const farm = Bun.spawn([bun, "tools/farm/cli.ts", "--out", dir, "--urls", String(URLS)], {
  cwd: ROOT,
  stdout: "pipe",
  stderr: "inherit",
});
// Whatever happens, the farm and the server do not outlive the bench.
const children: { kill(signal?: number | NodeJS.Signals): void }[] = [farm];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));
const reader = farm.stdout.getReader();
let ready = "";
while (!ready.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the farm exited before it was ready");
  ready += new TextDecoder().decode(value);
}
const { hosts } = JSON.parse(ready) as { hosts: number };
log(`farm: ${URLS} URLs on ${hosts} hosts`);

// 2. Its list, served and registered, read once.
const list = readFileSync(join(dir, "list.json"));
const listServer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response(list, { headers: { "content-type": "application/fhir+json" } }),
});
const registry = join(dir, "vendors.json");
writeFileSync(
  registry,
  JSON.stringify({
    vendors: [
      {
        id: "farm",
        name: "Farm EHR",
        endpointListUrl: `http://127.0.0.1:${listServer.port}/`,
        lists: [
          {
            id: "farm-all",
            url: `http://127.0.0.1:${listServer.port}/list.json`,
            format: "fhir-bundle",
            audience: null,
            fhirVersion: null,
          },
        ],
      },
    ],
  }),
);
const env = {
  ...process.env,
  DATABASE_PATH: dbPath,
  INGEST_REGISTRY: registry,
  ALLOW_PRIVATE_NETWORK: "true",
  NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
  LOG_LEVEL: "warn",
};
// Asynchronously: the list is served by this process.
const ingest = Bun.spawn([bun, "src/pipeline/ingest/cli.ts"], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
if ((await ingest.exited) !== 0) throw new Error(`ingest failed: ${await new Response(ingest.stderr).text()}`);
const db = new Database(dbPath, { readonly: true });
const ids = (db.prepare("SELECT id FROM entries ORDER BY random() LIMIT 2000").all() as { id: string }[]).map(
  (r) => r.id,
);
db.close();
log(`ingested; ${ids.length} ids sampled`);

// 3. The server, its schedule on: the first run at once, a lock long enough to outlast a held round.
const port = freePort();
const server: Started = {
  proc: Bun.spawn([bun, "src/index.ts"], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      RATE_LIMIT_MAX: "0",
      MIMALLOC_PURGE_DELAY: "1000",
      REFRESH: "on",
      REFRESH_FIRST_DELAY_SECONDS: "0",
      REFRESH_LOCK_SECONDS: "600",
    },
    stdout: "ignore",
    stderr: "inherit",
  }),
  pid: 0,
  startedAt: performance.now(),
  port,
};
server.pid = server.proc.pid;
children.push(server.proc);
const api = `http://127.0.0.1:${port}`;
await waitUntilAnswers(server, "/health", 120_000);
const freshness = async () => ((await (await fetch(`${api}/api/v1/freshness`)).json()) as { data: Freshness }).data;
for (;;) {
  const f = await freshness();
  if (f.currentRun?.phase === "probe" && (f.currentRun.urlsDone ?? 0) > 0) break;
  if (f.lastRun !== null) throw new Error(`the run ended before it was measured: ${JSON.stringify(f.lastRun)}`);
  await Bun.sleep(500);
}
const runPid = Number(
  Bun.spawnSync(["pgrep", "-P", String(server.pid)])
    .stdout.toString()
    .trim()
    .split("\n")[0],
);
if (!runPid) throw new Error("no refresh process under the server");
log(`server answering; its refresh (pid ${runPid}) asks the servers`);

// 4. Rounds.
type Condition = "busy" | "idle";
const health: Record<Condition, number[]> = { busy: [], idle: [] };
const rates: Record<Condition, { list: number[]; byId: number[] }> = {
  busy: { list: [], byId: [] },
  idle: { list: [], byId: [] },
};
let errors = 0;
let condition: Condition = "busy";
let measuring = true;
const healthLoop = (async () => {
  while (measuring) {
    const t = performance.now();
    try {
      const response = await fetch(`${api}/health`);
      await response.arrayBuffer();
      if (response.status !== 200) errors++;
    } catch {
      errors++;
    }
    health[condition].push(performance.now() - t);
    await Bun.sleep(20);
  }
})();

/** Closed-loop clients asking `path(i)` for `ms`: requests answered per second. */
async function rate(path: (i: number) => string, ms: number): Promise<number> {
  const until = performance.now() + ms;
  let answered = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; performance.now() < until; i += CLIENTS) {
        try {
          const response = await fetch(`${api}${path(i)}`);
          await response.arrayBuffer();
          if (response.status === 200) answered++;
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return answered / (ms / 1000);
}

let progress = "";
for (let round = 0; round < ROUNDS * 2; round++) {
  condition = round % 2 === 0 ? "busy" : "idle";
  process.kill(runPid, condition === "busy" ? "SIGCONT" : "SIGSTOP");
  await Bun.sleep(500);
  const list = await rate((i) => `/api/v1/endpoints?page=${1 + (i % 200)}&limit=25`, ROUND_MS / 2);
  const byId = await rate((i) => `/api/v1/endpoints/${ids[(i * 7919) % ids.length]}`, ROUND_MS / 2);
  rates[condition].list.push(list);
  rates[condition].byId.push(byId);
  const f = await freshness();
  progress = f.currentRun ? `${f.currentRun.urlsDone} of ${f.currentRun.urlsTotal}` : `ended: ${f.lastRun?.outcome}`;
  log(`round ${round + 1} ${condition}: list ${fmt(list)}/s, by id ${fmt(byId)}/s; run ${progress}`);
}
process.kill(runPid, "SIGCONT");
measuring = false;
await healthLoop;
const memory = memoryOf(server.pid);
const runMemory = memoryOf(runPid);

// 5. Report.
const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
};
const row = (c: Condition) => [
  c === "busy" ? "refresh running" : "refresh held (idle)",
  fmt(median(rates[c].list)),
  fmt(median(rates[c].byId)),
  fmt(p99(health[c]), 1),
  String(health[c].length),
];
const listRatio = median(rates.busy.list) / median(rates.idle.list);
const byIdRatio = median(rates.busy.byId) / median(rates.idle.byId);
console.log(
  [
    `refresh-load: ${URLS} URLs on ${hosts} local hosts, ${ROUNDS} pairs of ${ROUND_MS / 1000} s rounds, ${CLIENTS} clients; load ${loadBefore} → ${loadAverages()}`,
    "",
    plainTable(
      ["condition", "list req/s", "by id req/s", "/health p99 ms", "/health samples"],
      [row("busy"), row("idle")],
      ["l", "r", "r", "r", "r"],
    ),
    "",
    `busy ÷ idle: list ${(listRatio * 100).toFixed(0)} %, by id ${(byIdRatio * 100).toFixed(0)} % (target ≥ 70 %); /health p99 target < 50 ms`,
    `errors: ${errors}; server RSS ${fmt(memory?.rssMb ?? Number.NaN)} MB (peak ${fmt(memory?.peakMb ?? Number.NaN)}), refresh RSS ${fmt(runMemory?.rssMb ?? Number.NaN)} MB (peak ${fmt(runMemory?.peakMb ?? Number.NaN)}); run at ${progress}`,
  ].join("\n"),
);

await stop(server);
farm.kill("SIGTERM");
await farm.exited;
listServer.stop(true);
if (!values.keep) rmSync(dir, { recursive: true, force: true });
else log(`kept ${dir}`);
