/**
 * The list's lookup filters: `bun run bench:lookup-filters [<database.sqlite>] [--requests 4000]`.
 *
 * 1. Build: the lookup indexes (src/directory/lookups.ts) of the dataset, timed as a snapshot
 *    builds them when it opens, and the heap they add.
 * 2. Budget: each filter's work units (DirectorySearch.cost, the request's whole cost at the
 *    default page) for every sampled value, its largest against WORK.budget.
 * 3. Rate: the list route's work for an answer not kept yet (parse, budget, search, records,
 *    JSON), called in process for each new filter against the unfiltered list, rounds alternated
 *    in the same run; each request another value (another NPI, host, URL, city or ZIP; the
 *    unfiltered list another page). HTTP adds the same cost to every shape, so the served ratio is
 *    nearer 100 % than this one. The target: each filter at 80 % of the unfiltered rate or better.
 *    The unfiltered list reads pages 1 to 1000 (the route's last page), the first 25,000 entries,
 *    which stay in the caches from round to round while a filter's entries lie all over the list;
 *    a second baseline, not a request the route takes, reads pages spread over the whole list, and
 *    each shape's rate is printed against both.
 *    Each shape's CPU time is printed beside its wall-clock time: on a busy machine a round may
 *    wait for a core, which only the wall clock counts.
 *
 * The database defaults to the 1M generated one (BENCH_DB, as bench:fhir).
 */
import { Database } from "bun:sqlite";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";

const { values, positionals, fail } = parseCli({
  command: "bun run bench:lookup-filters",
  synopsis: ["[<database.sqlite>] [--requests <n>]"],
  description:
    "The list's lookup filters (npi, host, url, city, near) against the unfiltered list: index build, work units, in-process rate. The database defaults to BENCH_DB, else the 1M generated one.",
  options: { requests: { type: "string", default: "4000" } },
  optionHelp: [["--requests <n>", "answers timed per shape (default 4000, at least 10)"]],
  allowPositionals: true,
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { loadConfig } = await import("../src/config");
const { beginRead, openDatabase } = await import("../src/db/client");
const { buildDirectoryData } = await import("../src/directory/build-data");
const { openDirectory } = await import("../src/directory/directory");
const { buildLookupTables, EntryLookups, hostOf } = await import("../src/directory/lookups");
const { Stepped } = await import("../src/directory/stepped");
const { WORK } = await import("../src/model/request-caps");
const { zipPlaces } = await import("../src/model/zip-places");
const { toEndpointFilter } = await import("../src/server/endpoints/filter");
const ROOT = resolve(import.meta.dir, "..");
const path =
  positionals[0] ?? process.env.BENCH_DB ?? join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite");
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 10) fail("--requests must be a whole number ≥ 10");

// 1. Build.
const reader = new Database(path, { readonly: true });
beginRead(reader);
const data = buildDirectoryData(reader);
reader.exec("COMMIT");
reader.close();
zipPlaces(); // read once per process: not the snapshot's cost
Bun.gc(true);
const heapBefore = process.memoryUsage().heapUsed;
let started = performance.now();
const first = new EntryLookups(data, new Stepped(buildLookupTables(data)).drain()); // near's tables too
const firstMs = performance.now() - started;
started = performance.now();
const again = new EntryLookups(data, new Stepped(buildLookupTables(data)).drain());
const againMs = performance.now() - started;
Bun.gc(true);
const heapAfter = process.memoryUsage().heapUsed;
if (first === again) throw new Error("two builds gave one object"); // keeps both alive until measured
console.log(
  `lookup indexes of ${data.listed} listed entries: ${firstMs.toFixed(0)} ms (the ZIP table's cities included), ${againMs.toFixed(0)} ms for the next version; about ${((heapAfter - heapBefore) / 2 ** 20).toFixed(0)} MB more heap (two sets alive) (load ${loadavg()[0]!.toFixed(1)})`,
);

// Sampled values: spread over the list, distinct.
const { columns, strings, listed } = data;
const spread = <T>(pick: (ordinal: number) => T | null, count: number): T[] => {
  const out = new Set<T>();
  for (let k = 0; k < listed && out.size < count; k += Math.max(1, Math.floor(listed / (count * 4)))) {
    const value = pick(k);
    if (value !== null) out.add(value);
  }
  return [...out];
};
const SAMPLES = 200;
const domainOf = (host: string) => host.split(".").slice(-2).join(".");
const samples: Record<string, string[]> = {
  npi: spread((o) => (columns.npi[o]! > 0 ? `npi=${columns.npi[o]}` : null), SAMPLES),
  "host (a host)": spread((o) => `host=${hostOf(strings.urls[columns.url[o]!]!)}`, SAMPLES),
  "host (a domain)": spread((o) => `host=${domainOf(hostOf(strings.urls[columns.url[o]!]!)!)}`, SAMPLES),
  url: spread((o) => `url=${encodeURIComponent(strings.urls[columns.url[o]!]!)}`, SAMPLES),
  city: spread(
    (o) => (columns.city[o]! >= 0 ? `city=${encodeURIComponent(strings.cities[columns.city[o]!]!)}` : null),
    SAMPLES,
  ),
  "near, 25 miles": spread((o) => {
    const zip = columns.zipCode[o]! >= 0 ? strings.zipCodes[columns.zipCode[o]!]!.slice(0, 5) : "";
    return zipPlaces().has(zip) ? `near=${zip}` : null;
  }, SAMPLES),
  "near, 100 miles": spread((o) => {
    const zip = columns.zipCode[o]! >= 0 ? strings.zipCodes[columns.zipCode[o]!]!.slice(0, 5) : "";
    return zipPlaces().has(zip) ? `near=${zip}&radius=100` : null;
  }, SAMPLES),
  "near, 25 miles, by name": spread((o) => {
    const zip = columns.zipCode[o]! >= 0 ? strings.zipCodes[columns.zipCode[o]!]!.slice(0, 5) : "";
    return zipPlaces().has(zip) ? `near=${zip}&sort=name` : null;
  }, SAMPLES),
};

const config = loadConfig({ DATABASE_PATH: path, RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" });
const db = openDatabase(path);
const directory = openDirectory(db, config);

// 2. Budget.
console.log(`\nwork units at limit=25 (budget ${WORK.budget.toLocaleString("en-US")}):`);
const search = directory.current.search;
for (const [name, queries] of Object.entries(samples)) {
  if (queries.length === 0) continue;
  const costs = queries.map((query) => {
    const params = Object.fromEntries(new URLSearchParams(query));
    return search.cost(toEndpointFilter(params as Parameters<typeof toEndpointFilter>[0]), 25);
  });
  const over = costs.filter((units) => units > WORK.budget).length;
  console.log(
    `  ${name.padEnd(26)} ${queries.length} values: largest ${Math.max(...costs).toLocaleString("en-US")}, median ${costs.sort((a, b) => a - b)[costs.length >> 1]!.toLocaleString("en-US")}${over > 0 ? `, ${over} over the budget (400)` : ""}`,
  );
}

// 3. Rate: what the route does for a list request whose answer is not kept yet (parse, budget,
// search, records, JSON), called directly: the route's kept answers would otherwise answer a
// repeated URL, and HTTP adds the same cost to every shape. The unfiltered list reads a page of its
// own each time; a filter another value each time.
const snapshot = directory.current;
const listAnswer = (query: string) => {
  const params = Object.fromEntries(new URLSearchParams(query)) as Parameters<typeof toEndpointFilter>[0];
  const filter = toEndpointFilter(params);
  if (snapshot.search.cost(filter, 25) > WORK.budget) return "";
  const page = Number(params.page ?? 1);
  const { total, records, bases, ready, distance } = snapshot.list(
    filter,
    (page - 1) * 25,
    25,
    params.sort === "relevance" ? "relevance" : undefined,
  );
  return JSON.stringify({ success: true, data: records, meta: { total, page, limit: 25, bases, ready, distance } });
};
// Two filters the list already had, for scale: their pages are scattered over the list too.
const existing: [string, string[]][] = [
  [
    "state (an existing filter)",
    spread(
      (o) => (columns.state[o]! >= 0 ? `state=${strings.states[columns.state[o]!]}&page=${1 + (o % 40)}` : null),
      SAMPLES,
    ),
  ],
  [
    "query (an existing filter)",
    spread((o) => {
      const name = columns.organizationName[o]! >= 0 ? strings.organizationNames[columns.organizationName[o]!]! : "";
      const word = /[A-Za-z]{4,}/.exec(name)?.[0];
      return word === undefined ? null : `query=${word.toLowerCase()}`;
    }, SAMPLES),
  ],
];
const UNFILTERED = "unfiltered";
const SPREAD = "unfiltered, pages spread";
const lastPage = Math.ceil(listed / 25);
const shapes: [string, string[]][] = [
  [UNFILTERED, Array.from({ length: 1000 }, (_, i) => `page=${i + 1}`)],
  // Past page 1000 the route answers 400: this baseline is called in process only.
  [SPREAD, Array.from({ length: 1000 }, (_, i) => `page=${1 + Math.floor((i * lastPage) / 1000)}`)],
  ...existing,
  ...Object.entries(samples).filter(([, queries]) => queries.length > 0),
];
const ROUNDS = 8;
const perRound = Math.ceil(requests / ROUNDS);
const micros = new Map(shapes.map(([name]) => [name, 0]));
// CPU time beside the wall clock: on a shared machine a round can wait for a core, which the
// wall clock counts and the process's CPU time does not.
const cpuMicros = new Map(shapes.map(([name]) => [name, 0]));
const records = new Map(shapes.map(([name]) => [name, 0]));
for (const [, queries] of shapes) for (const query of queries.slice(0, 20)) listAnswer(query); // warm-up
for (let round = 0; round < ROUNDS; round++)
  for (const [name, queries] of shapes) {
    started = performance.now();
    const cpu = process.cpuUsage();
    let bytes = 0;
    for (let i = 0; i < perRound; i++) bytes += listAnswer(queries[(round * perRound + i) % queries.length]!).length;
    const used = process.cpuUsage(cpu);
    micros.set(name, micros.get(name)! + (performance.now() - started) * 1000);
    cpuMicros.set(name, cpuMicros.get(name)! + used.user + used.system);
    records.set(name, records.get(name)! + bytes);
  }
console.log(
  `\n${perRound * ROUNDS} list answers each (limit 25), in process, ${ROUNDS} alternated rounds (load ${loadavg()[0]!.toFixed(1)}):`,
);
const percent = (base: number, value: number) => `${((base / value) * 100).toFixed(0).padStart(4)} %`;
console.log(
  `  ${"".padEnd(26)} ${"µs/answer".padStart(9)} ${"% of unfiltered".padStart(15)} ${"% of spread".padStart(12)}   CPU µs ${"% of unfiltered".padStart(15)} ${"% of spread".padStart(12)}  bytes`,
);
for (const [name] of shapes) {
  const wall = micros.get(name)!;
  const cpu = cpuMicros.get(name)!;
  console.log(
    `  ${name.padEnd(26)} ${(wall / (perRound * ROUNDS)).toFixed(1).padStart(9)} ${percent(micros.get(UNFILTERED)!, wall).padStart(15)} ${percent(micros.get(SPREAD)!, wall).padStart(12)} ${(cpu / (perRound * ROUNDS)).toFixed(1).padStart(8)} ${percent(cpuMicros.get(UNFILTERED)!, cpu).padStart(15)} ${percent(cpuMicros.get(SPREAD)!, cpu).padStart(12)}  ${Math.round(records.get(name)! / (perRound * ROUNDS))}`,
  );
}
console.log(
  `  (rates: the unfiltered list's µs per answer over the shape's; "spread": pages 1 to ${lastPage} of the whole list, in process only, the route's last page being 1000)`,
);
process.exit(0);
