/**
 * `bun run bench:worst`: the costliest request the request caps (src/model/request-caps.ts)
 * allow, of every parameter and route, against a server on the 1M-entry database (BENCH_DB,
 * copied to a temporary directory first: the server may write to a database it opens).
 *
 * Each shape builds a new request every time (values drawn at random from the data, so no
 * cached answer or cached per-value set serves it) with every cap used to its limit: ten
 * alternatives, ten words, values of common substrings, repeated parameters, the largest pages.
 * Per shape: BENCH_REQUESTS requests one after another (after 3 to warm up), and the server's CPU
 * time over them (`utime + stime` of /proc/<pid>/stat) divided by their number. Then 10 clients
 * send the shapes at random, one request each at a time, for BENCH_SECONDS while /health is asked
 * every 100 ms: its latency. Targets: ≤ 50 ms of server CPU per request, /health < 100 ms.
 * Knobs: BENCH_DB, BENCH_REQUESTS (20), BENCH_SECONDS (10), BENCH_SERVER_CPUS ("0").
 */
import { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REQUEST_CAPS } from "../src/model/request-caps";
import { envNumber } from "./lib/env";
import { cpuSecondsOf, freePort, memoryOf, startPinned, stop, waitUntilFhirReady } from "./lib/process";
import { fmt, median, plainTable } from "./lib/report";

const ROOT = resolve(import.meta.dir, "..");
const source = resolve(
  process.env.BENCH_DB || join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite"),
);
const requests = Math.round(envNumber("BENCH_REQUESTS", 20));
const seconds = envNumber("BENCH_SECONDS", 10);
const serverCpus = process.env.BENCH_SERVER_CPUS || "0";
const TARGET_CPU_MS = 50;
const TARGET_HEALTH_MS = 100;
const CLIENTS = 10;

const { alternatives, words, repeats, valueChars, resourceTypes, formBodyBytes } = REQUEST_CAPS;

/** What the shapes draw their values from: samples of the data. */
interface Sample {
  names: string[];
  urls: string[];
  npis: string[];
  zips: string[];
  vendors: string[];
  changesFrom: number;
  version: number;
}

function sample(db: string): Sample {
  const sqlite = new Database(db, { readonly: true });
  try {
    const column = (sql: string) => (sqlite.prepare(sql).values() as [string][]).map(([value]) => value);
    const meta = (key: string) =>
      Number((sqlite.prepare("SELECT value FROM dataset_meta WHERE key = ?").values(key) as [string][])[0]?.[0] ?? 0);
    const listed = "status != 'removed' ORDER BY random() LIMIT 2000";
    return {
      names: column(`SELECT organization_name FROM entries WHERE organization_name IS NOT NULL AND ${listed}`),
      urls: column(`SELECT url FROM entries WHERE ${listed}`),
      npis: column(`SELECT npi FROM entries WHERE npi IS NOT NULL AND ${listed}`),
      zips: column(`SELECT zip_code FROM entries WHERE zip_code IS NOT NULL AND ${listed}`),
      vendors: column("SELECT id FROM vendors"),
      changesFrom: meta("changes_from"),
      version: meta("dataset_version"),
    };
  } finally {
    sqlite.close();
  }
}

const pick = <T>(values: ArrayLike<T>): T => values[Math.floor(Math.random() * values.length)]!;
const int = (below: number) => Math.floor(Math.random() * below);
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
/** `count` distinct word prefixes of one or two letters: the widest ranges of the name index. */
function prefixes(count: number): string[] {
  const out = new Set<string>();
  while (out.size < count) out.add(pick(LETTERS) + (Math.random() < 0.5 ? "" : pick(LETTERS)));
  return [...out];
}
/** `count` distinct pieces of `texts`, `min`–`max` characters, starting within the first `within` characters. */
function pieces(texts: string[], count: number, min: number, max: number, within = 1000): string[] {
  const out = new Set<string>();
  while (out.size < count) {
    const text = pick(texts);
    const length = min + int(max - min + 1);
    if (text.length < length) continue;
    const start = int(Math.min(within, text.length - length + 1));
    out.add(text.slice(start, start + length));
  }
  return [...out];
}
/** FHIR's escaping of a comma inside one alternative. */
const alternativesOf = (values: string[]) => values.map((value) => value.replace(/[\\,]/g, "\\$&")).join(",");
const q = encodeURIComponent;
const date = () => `20${24 + int(3)}-${String(1 + int(12)).padStart(2, "0")}-${String(1 + int(28)).padStart(2, "0")}`;
const RESOURCE_TYPES = [
  "Patient",
  "Observation",
  "Condition",
  "Encounter",
  "Procedure",
  "Immunization",
  "AllergyIntolerance",
  "MedicationRequest",
  "DiagnosticReport",
  "DocumentReference",
  "CarePlan",
  "CareTeam",
  "Goal",
  "Device",
  "Location",
  "Organization",
  "Practitioner",
  "PractitionerRole",
  "Provenance",
  "Medication",
  "Coverage",
];

interface Shape {
  label: string;
  request: () => { path: string; init?: RequestInit };
}

function shapes(data: Sample): Shape[] {
  const get = (path: string) => () => ({ path });
  const fhirName = () => alternativesOf(Array.from({ length: alternatives }, () => prefixes(words).join(" ")));
  return [
    {
      label: `list query: ${words} one- or two-letter words, limit 100`,
      request: () => get(`/api/v1/endpoints?query=${q(prefixes(words).join(" "))}&limit=100&page=${1 + int(5)}`)(),
    },
    {
      label: `list: every filter, ${resourceTypes} hasResource types, limit 100`,
      request: () =>
        get(
          `/api/v1/endpoints?query=${q(prefixes(words).join(" "))}&vendor=${pick(data.vendors)}&state=CA&fhirVersion=R4&access=patient&smartSupported=true&hasResource=${RESOURCE_TYPES.slice(0, resourceTypes).join(",")}&limit=100&page=${1 + int(1000)}`,
        )(),
    },
    {
      label: `export (ndjson): query of ${words} words, every filter`,
      request: () =>
        get(
          `/api/v1/export?format=ndjson&query=${q(prefixes(words).join(" "))}&state=${pick(["CA", "TX", "NY", "OH"])}&hasResource=${RESOURCE_TYPES.slice(0, 3).join(",")}`,
        )(),
    },
    {
      label: "changes: a page of 1,000 from a random version",
      request: () =>
        get(`/api/v1/changes?since=${data.changesFrom + int(data.version - data.changesFrom)}&limit=1000`)(),
    },
    {
      label: `FHIR name: ${alternatives} alternatives of ${words} words`,
      request: () => get(`/fhir/Organization?name=${q(fhirName())}&_count=500`)(),
    },
    {
      label: `FHIR name:contains: ${alternatives} common pieces of names`,
      request: () =>
        get(`/fhir/Organization?name:contains=${q(alternativesOf(pieces(data.names, alternatives, 4, 6)))}`)(),
    },
    {
      label: `FHIR name:contains: ${alternatives} single characters and pairs`,
      request: () => get(`/fhir/Organization?name:contains=${q(alternativesOf(prefixes(alternatives)))}`)(),
    },
    {
      label: `FHIR name:exact: ${alternatives} names, ${valueChars} characters at most`,
      request: () =>
        get(`/fhir/Organization?name:exact=${q(alternativesOf(pieces(data.names, alternatives, 1, 3)))}`)(),
    },
    {
      label: `FHIR address:contains: ${alternatives} pieces of the URLs' common heads`,
      request: () =>
        get(`/fhir/Endpoint?address:contains=${q(alternativesOf(pieces(data.urls, alternatives, 4, 8, 12)))}`)(),
    },
    {
      label: `FHIR address (prefix): ${alternatives} heads of URLs`,
      request: () => get(`/fhir/Endpoint?address=${q(alternativesOf(pieces(data.urls, alternatives, 1, 12, 1)))}`)(),
    },
    {
      label: `FHIR address-postalcode, -city (word rule): ${alternatives} one- or two-character values each`,
      request: () =>
        get(
          `/fhir/Organization?address-postalcode=${alternativesOf(Array.from({ length: alternatives }, (_, i) => `${i}${Math.random() < 0.5 ? "" : int(10)}`))}&address-city=${alternativesOf(prefixes(alternatives))}`,
        )(),
    },
    {
      label: `FHIR identifier: ${alternatives} NPIs, ${repeats} times`,
      request: () =>
        get(
          `/fhir/Organization?${Array.from({ length: repeats }, () => `identifier=${alternativesOf(Array.from({ length: alternatives }, () => pick(data.npis)))}`).join("&")}`,
        )(),
    },
    {
      label: `FHIR _lastUpdated: ${alternatives} dates, ${repeats} times`,
      request: () =>
        get(
          `/fhir/Organization?${Array.from({ length: repeats }, () => `_lastUpdated=${alternativesOf(Array.from({ length: alternatives }, () => `${pick(["gt", "lt", "ge", "le", ""])}${date()}`))}`).join("&")}`,
        )(),
    },
    {
      label: `FHIR Endpoint status, fhir-version, connection-type: ${alternatives} each`,
      request: () => {
        const codes = (known: string[]) =>
          alternativesOf([
            ...known,
            ...Array.from({ length: alternatives - known.length }, () => prefixes(1)[0]! + int(1000)),
          ]);
        return get(
          `/fhir/Endpoint?status=${codes(["active", "error"])}&fhir-version=${codes(["4.0.1", "1.0.2", "3.0.2", "4.3.0", "5.0.0"])}&connection-type=${codes(["hl7-fhir-rest"])}&_lastUpdated=gt${date()}`,
        )();
      },
    },
    {
      label: "FHIR _include=Organization:endpoint, _count 500",
      request: () =>
        get(
          `/fhir/Organization?name=${pick(LETTERS)}&_include=Organization:endpoint&_count=500&_offset=${int(5000)}`,
        )(),
    },
    {
      label: "FHIR _revinclude=Endpoint:organization, _count 500 (developers)",
      request: () =>
        get(`/fhir/Organization?_revinclude=Endpoint:organization&_count=${1 + int(500)}&_offset=${int(30)}`)(),
    },
    {
      label: `FHIR POST _search: a ${formBodyBytes}-byte form body at the caps`,
      request: () => {
        const parts = [
          `name:contains=${q(alternativesOf(pieces(data.names, alternatives, 4, 6)))}`,
          `name=${q(fhirName())}`,
          `address-postalcode=${alternativesOf(Array.from({ length: alternatives }, (_, i) => String(i)))}`,
          `identifier=${alternativesOf(Array.from({ length: alternatives }, () => pick(data.npis)))}`,
          `_lastUpdated=gt${date()}`,
        ];
        // Filled to the cap with a parameter the search ignores.
        let body = `${parts.join("&")}&padding=`;
        body += "x".repeat(Math.max(0, formBodyBytes - body.length));
        return {
          path: "/fhir/Organization/_search",
          init: {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: body.slice(0, formBodyBytes),
          },
        };
      },
    },
  ];
}

interface Measured {
  label: string;
  cpuMs: number;
  medianMs: number;
  statuses: string;
}

async function send(port: number, shape: Shape): Promise<{ status: number; ms: number }> {
  const { path, init } = shape.request();
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}${path}`, init);
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

async function measure(port: number, pid: number, shape: Shape): Promise<Measured> {
  for (let i = 0; i < 3; i++) await send(port, shape);
  const statuses = new Map<number, number>();
  const times: number[] = [];
  const before = cpuSecondsOf(pid)!;
  for (let i = 0; i < requests; i++) {
    const { status, ms } = await send(port, shape);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    times.push(ms);
  }
  const cpuMs = ((cpuSecondsOf(pid)! - before) * 1000) / requests;
  return {
    label: shape.label,
    cpuMs,
    medianMs: median(times),
    statuses: [...statuses].map(([status, count]) => `${count}×${status}`).join(" "),
  };
}

/** /health latencies while CLIENTS clients send the shapes at random for `seconds`. */
async function healthUnderLoad(port: number, all: Shape[]): Promise<{ health: number[]; sent: number }> {
  const until = performance.now() + seconds * 1000;
  let sent = 0;
  const clients = Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < until) {
      await send(port, pick(all));
      sent++;
    }
  });
  const health: number[] = [];
  const prober = (async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      await response.arrayBuffer();
      health.push(performance.now() - started);
      await Bun.sleep(100);
    }
  })();
  await Promise.all([...clients, prober]);
  return { health, sent };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "bench-worst-"));
  try {
    const db = join(dir, "bench.sqlite");
    console.log(`copying ${source} to ${db}`);
    copyFileSync(source, db);
    const data = sample(db);
    const server = startPinned(
      join(ROOT, "src/index.ts"),
      serverCpus,
      { DATABASE_PATH: db, HOST: "127.0.0.1", RATE_LIMIT_MAX: "0", INDEX_DIR: join(dir, "index"), LOG_LEVEL: "warn" },
      join(dir, "server.log"),
      freePort(),
    );
    try {
      const { readyMs, fhirMs, rssMb } = await waitUntilFhirReady(server);
      console.log(`server ready in ${fmt(readyMs)} ms; FHIR index built in ${fmt(fhirMs)} ms; RSS ${fmt(rssMb)} MB`);
      console.log(`load average before: ${load()}`);
      const all = shapes(data);
      const rows: Measured[] = [];
      for (const shape of all) {
        const row = await measure(server.port, server.pid, shape);
        rows.push(row);
        console.log(`${row.label}: ${row.cpuMs.toFixed(1)} ms CPU/request (${row.statuses})`);
      }
      const { health, sent } = await healthUnderLoad(server.port, all);
      const worst = Math.max(...rows.map((row) => row.cpuMs));
      console.log("");
      console.log(
        plainTable(
          ["shape", "server CPU ms/request", "median ms", "statuses"],
          rows.map((row) => [row.label, row.cpuMs.toFixed(1), row.medianMs.toFixed(1), row.statuses]),
          ["l", "r", "r", "l"],
        ),
      );
      console.log("");
      console.log(
        `costliest: ${worst.toFixed(1)} ms of server CPU per request (target ≤ ${TARGET_CPU_MS}): ${worst <= TARGET_CPU_MS ? "met" : "MISSED"}`,
      );
      const p99 = [...health].sort((a, b) => a - b)[Math.floor(health.length * 0.99)] ?? Number.NaN;
      const max = Math.max(...health);
      console.log(
        `/health with ${CLIENTS} clients sending them for ${seconds} s (${fmt(sent)} requests): median ${median(health).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms over ${health.length} probes (target < ${TARGET_HEALTH_MS}): ${max < TARGET_HEALTH_MS ? "met" : "MISSED"}`,
      );
      console.log(`RSS after: ${fmt(memoryOf(server.pid)?.rssMb ?? Number.NaN)} MB; load average after: ${load()}`);
    } finally {
      await stop(server);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
