/**
 * `bun bench/fhir.ts`: /fhir against the JSON API on the same filter, in the same minutes, on
 * the 1M-entry database (BENCH_DB, copied to a temporary directory first: the server may write
 * to a database it opens). Pairs: `Organization?address-state=OH&_count=25` (and with
 * `_include=Organization:endpoint`) against `endpoints?state=OH&limit=25`, and a random Endpoint
 * read against a random get by id; `Endpoint?_count=25` and `Endpoint?_lastUpdated=gt2026-11-13`
 * (changed in the data's last week: 58 % of the Endpoints) against the unfiltered list. Each pair
 * is measured in alternating rounds; the target is a FHIR throughput of at least half the JSON
 * route's, and the server's RSS after the run within 600 MB. Knobs: BENCH_DB, BENCH_SECONDS (5), BENCH_ROUNDS (2), BENCH_CONNECTIONS (50),
 * BENCH_SERVER_CPUS ("0"), BENCH_LOAD_CPUS ("1").
 */
import { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import { envNumber } from "./lib/env";
import { freePort, memoryOf, startPinned, stop, waitUntilFhirReady } from "./lib/process";
import { fmt, loadAverages, TARGETS } from "./lib/report";
import { REPORT_LUA, runWrk, type WrkResult } from "./lib/wrk";

parseCli({
  command: "bun run bench:fhir",
  synopsis: [""],
  description:
    "/fhir against the JSON API on the same filter, in alternating rounds, on a copy of the 1M-entry database. Target: FHIR throughput at least half the JSON route's, server RSS within 600 MB.",
  options: {},
  optionHelp: [],
  environment:
    "BENCH_DB, BENCH_SECONDS (5), BENCH_ROUNDS (2), BENCH_CONNECTIONS (50), BENCH_SERVER_CPUS (0), BENCH_LOAD_CPUS (1).",
});

const ROOT = resolve(import.meta.dir, "..");
const source = resolve(
  process.env.BENCH_DB || join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite"),
);
const seconds = Math.round(envNumber("BENCH_SECONDS", 5));
const rounds = Math.max(1, Math.round(envNumber("BENCH_ROUNDS", 2)));
const connections = Math.round(envNumber("BENCH_CONNECTIONS", 50));
const serverCpus = process.env.BENCH_SERVER_CPUS || "0";
const loadCpus = process.env.BENCH_LOAD_CPUS || "1";
/** FHIR throughput at least this share of the JSON route's on the same filter. */
const MIN_RATIO = 0.5;

/** Each request is a random path from the file passed after `--`, formatted once in init. */
const RANDOM_PATH_LUA = `
local requests = {}
init = function(args)
  for line in io.lines(args[1]) do requests[#requests + 1] = wrk.format("GET", line) end
  math.randomseed(os.time())
end
request = function()
  return requests[math.random(#requests)]
end
`;

interface Pair {
  label: string;
  json: string;
  fhir: string;
}

const PAIRS: Pair[] = [
  {
    label: "Organization?address-state=OH&_count=25",
    json: "/api/v1/endpoints?state=OH&limit=25",
    fhir: "/fhir/Organization?address-state=OH&_count=25",
  },
  {
    label: "… &_include=Organization:endpoint",
    json: "/api/v1/endpoints?state=OH&limit=25",
    fhir: "/fhir/Organization?address-state=OH&_count=25&_include=Organization:endpoint",
  },
  { label: "read (random)", json: "random:json", fhir: "random:fhir" },
  { label: "Endpoint?_count=25 (no filter)", json: "/api/v1/endpoints?limit=25", fhir: "/fhir/Endpoint?_count=25" },
  {
    label: "Endpoint?_lastUpdated=gt2026-11-13&_count=25",
    json: "/api/v1/endpoints?limit=25",
    fhir: "/fhir/Endpoint?_lastUpdated=gt2026-11-13&_count=25",
  },
];

/** 20,000 random listed entries: their JSON get-by-id paths and their Endpoint read paths. */
function writePaths(db: string, dir: string): { json: string; fhir: string } {
  const sqlite = new Database(db, { readonly: true });
  try {
    const rows = sqlite
      .prepare("SELECT id, url FROM entries WHERE status != 'removed' ORDER BY random() LIMIT 20000")
      .values() as [string, string][];
    const json = join(dir, "json-paths.txt");
    const fhir = join(dir, "fhir-paths.txt");
    writeFileSync(json, `${rows.map(([id]) => `/api/v1/endpoints/${id}`).join("\n")}\n`);
    writeFileSync(fhir, `${rows.map(([, url]) => `/fhir/Endpoint/${Bun.SHA256.hash(url, "hex")}`).join("\n")}\n`);
    return { json, fhir };
  } finally {
    sqlite.close();
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "bench-fhir-"));
  try {
    const db = join(dir, "bench.sqlite");
    console.log(`copying ${source} to ${db}`);
    copyFileSync(source, db);
    const paths = writePaths(db, dir);
    const report = join(dir, "report.lua");
    const random = join(dir, "random.lua");
    writeFileSync(report, REPORT_LUA);
    writeFileSync(random, RANDOM_PATH_LUA + REPORT_LUA);
    const server = startPinned(
      join(ROOT, "src/index.ts"),
      serverCpus,
      {
        DATABASE_PATH: db,
        HOST: "127.0.0.1",
        RATE_LIMIT_MAX: "100000000",
        RATE_LIMIT_WINDOW_SECONDS: "60",
        INDEX_DIR: join(dir, "index"),
        LOG_LEVEL: "warn",
      },
      join(dir, "server.log"),
      freePort(),
    );
    try {
      const { readyMs, fhirMs, rssMb } = await waitUntilFhirReady(server);
      console.log(
        `server ready in ${fmt(readyMs)} ms; FHIR index built on the first /fhir request in ${fmt(fhirMs)} ms; RSS ${fmt(rssMb)} MB`,
      );
      console.log(`load average before: ${loadAverages()}`);
      const measure = (path: string, secs: number): Promise<WrkResult> => {
        const randomKind = path.startsWith("random:") ? (path.slice(7) as "json" | "fhir") : null;
        return runWrk({
          url: `http://127.0.0.1:${server.port}${randomKind === null ? path : "/"}`,
          seconds: secs,
          connections,
          threads: 1,
          cpus: loadCpus,
          script: randomKind === null ? report : random,
          scriptArgs: randomKind === null ? undefined : [paths[randomKind]],
        });
      };
      const problems: string[] = [];
      for (const pair of PAIRS) {
        let json: WrkResult | null = null;
        let fhir: WrkResult | null = null;
        for (let round = 0; round < rounds; round++) {
          await measure(pair.json, 1);
          const j = await measure(pair.json, seconds);
          await measure(pair.fhir, 1);
          const f = await measure(pair.fhir, seconds);
          for (const [name, r] of [
            ["json", j],
            ["fhir", f],
          ] as const)
            if (r.non2xx > 0 || Object.values(r.socketErrors).some((n) => n > 0))
              problems.push(
                `${pair.label} ${name}: ${r.non2xx} non-2xx, socket errors ${JSON.stringify(r.socketErrors)}`,
              );
          if (json === null || j.rps > json.rps) json = j;
          if (fhir === null || f.rps > fhir.rps) fhir = f;
        }
        const ratio = fhir!.rps / json!.rps;
        console.log(
          `${pair.label}: FHIR ${fmt(fhir!.rps)} req/s (p50 ${fmt(fhir!.p50, 2)} ms, p99 ${fmt(fhir!.p99, 2)} ms, ${fmt(fhir!.bytes / fhir!.requests)} B) vs JSON ${fmt(json!.rps)} req/s (p50 ${fmt(json!.p50, 2)} ms, p99 ${fmt(json!.p99, 2)} ms): ${fmt(ratio * 100, 1)} %`,
        );
        if (ratio < MIN_RATIO)
          problems.push(`${pair.label}: ${fmt(ratio * 100, 1)} % of the JSON route (target ≥ ${MIN_RATIO * 100} %)`);
      }
      await Bun.sleep(1500); // the allocator returns freed memory after 1 s
      const rss = memoryOf(server.pid)?.rssMb ?? Number.NaN;
      console.log(
        `RSS after the run: ${fmt(rss)} MB (target ≤ ${TARGETS.rssMb}); load average after: ${loadAverages()}`,
      );
      if (!(rss <= TARGETS.rssMb)) problems.push(`RSS ${fmt(rss)} MB over ${TARGETS.rssMb} MB`);
      if (problems.length > 0) {
        console.log(`MISSED:\n- ${problems.join("\n- ")}`);
        process.exitCode = 1;
      } else console.log("all FHIR targets met");
    } finally {
      await stop(server);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
