/**
 * The list's lookup filters: `bun run bench:lookup-filters [<database.sqlite>] [--requests 4000] [--served]`.
 *
 * 1. Build: the lookup indexes (src/directory/lookups.ts) of the dataset, timed as a snapshot
 *    builds them when it opens, and the heap they add.
 * 2. Budget: each filter's work units (DirectorySearch.cost, the request's whole cost at the
 *    default page) for every sampled value, its largest against WORK.budget.
 * 3. Rate: the list route's work for an answer not kept yet (parse, budget, search, records,
 *    JSON), called in process for each new filter against the unfiltered list, rounds alternated
 *    in the same run; each request another value (another NPI, host, URL, city or ZIP; the
 *    unfiltered list another page). The target: each filter at 80 % of the unfiltered rate or
 *    better, here and served (4).
 *    The unfiltered list reads pages 1 to 1000 (the route's last page), the first 25,000 entries,
 *    which stay in the caches from round to round while a filter's entries lie all over the list;
 *    a second baseline, not a request the route takes, reads pages spread over the whole list, and
 *    each shape's rate is printed against both.
 *    Each shape's CPU time is printed beside its wall-clock time: on a busy machine a round may
 *    wait for a core, which only the wall clock counts. A last row, `near 25, neighbours' page`,
 *    is near's own work with a page of the unfiltered list's records written instead of its own:
 *    what near costs apart from writing entries that lie all over the list.
 * 4. Served (`--served`): the same shapes from a real server on a copy of the database, each
 *    answer built (none of the answers it keeps), its CPU time per answer: the rate it can serve
 *    each at, HTTP and all (the search and the records are only part of it: `near`'s extra over
 *    the unfiltered list has been larger served than in process).
 *
 * The database defaults to the 1M generated one (BENCH_DB, as bench:fhir).
 */
import { Database } from "bun:sqlite";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";

const { values, positionals, fail } = parseCli({
  command: "bun run bench:lookup-filters",
  synopsis: ["[<database.sqlite>] [--requests <n>] [--served]"],
  description:
    "The list's lookup filters (npi, host, url, city, near) against the unfiltered list: index build, work units, in-process rate, and with --served the rate a real server answers each at. The database defaults to BENCH_DB, else the 1M generated one.",
  options: { requests: { type: "string", default: "4000" }, served: { type: "boolean", default: false } },
  optionHelp: [
    ["--requests <n>", "answers timed per shape (default 4000, at least 10)"],
    [
      "--served",
      "also from a real server on a copy of the database: its CPU per answer (BENCH_SERVER_CPUS, default 0)",
    ],
  ],
  allowPositionals: true,
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { loadConfig } = await import("../src/config");
const { beginRead, closeReader, openDatabase } = await import("../src/db/client");
const { buildDirectoryData } = await import("../src/directory/build-data");
const { openDirectory } = await import("../src/directory/directory");
const { buildLookupTables, EntryLookups, hostOf } = await import("../src/directory/lookups");
const { Stepped } = await import("../src/directory/stepped");
const { WORK } = await import("../src/model/request-caps");
const { zipPlaces } = await import("../src/model/zip-places");
const { toEndpointFilter } = await import("../src/server/endpoints/filter");
const { dataPageText } = await import("../src/server/http/json");
const { cpuSecondsOf, withServedCopy } = await import("./lib/process");
const ROOT = resolve(import.meta.dir, "..");
const path =
  positionals[0] ?? process.env.BENCH_DB ?? join(ROOT, "bench", "data", "endpoints-1000000-seed1-history400.sqlite");
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 10) fail("--requests must be a whole number ≥ 10");

// 1. Build.
const reader = new Database(path, { readonly: true });
beginRead(reader);
const data = buildDirectoryData(reader);
closeReader(reader);
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
/** Values per shape served (section 4): with VARIANTS, more distinct URLs than a server keeps answers. */
const SERVED_VALUES = 300;
const domainOf = (host: string) => host.split(".").slice(-2).join(".");
/** `count` values of each new filter, spread over the list, as queries. */
const sampleQueries = (count: number): Record<string, string[]> => ({
  npi: spread((o) => (columns.npi[o]! > 0 ? `npi=${columns.npi[o]}` : null), count),
  "host (a host)": spread((o) => `host=${hostOf(strings.urls[columns.url[o]!]!)}`, count),
  "host (a domain)": spread((o) => `host=${domainOf(hostOf(strings.urls[columns.url[o]!]!)!)}`, count),
  url: spread((o) => `url=${encodeURIComponent(strings.urls[columns.url[o]!]!)}`, count),
  city: spread(
    (o) => (columns.city[o]! >= 0 ? `city=${encodeURIComponent(strings.cities[columns.city[o]!]!)}` : null),
    count,
  ),
  "near, 25 miles": spread((o) => {
    const zip = columns.zipCode[o]! >= 0 ? strings.zipCodes[columns.zipCode[o]!]!.slice(0, 5) : "";
    return zipPlaces().has(zip) ? `near=${zip}` : null;
  }, count),
  "near, 100 miles": spread((o) => {
    const zip = columns.zipCode[o]! >= 0 ? strings.zipCodes[columns.zipCode[o]!]!.slice(0, 5) : "";
    return zipPlaces().has(zip) ? `near=${zip}&radius=100` : null;
  }, count),
  "near, 25 miles, by name": spread((o) => {
    const zip = columns.zipCode[o]! >= 0 ? strings.zipCodes[columns.zipCode[o]!]!.slice(0, 5) : "";
    return zipPlaces().has(zip) ? `near=${zip}&sort=name` : null;
  }, count),
});
const samples = sampleQueries(SAMPLES);

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
/** A query's parameters and filter, as the route reads them; null when it is over the work budget (the route's 400). */
const parsed = (query: string) => {
  const params = Object.fromEntries(new URLSearchParams(query)) as Parameters<typeof toEndpointFilter>[0];
  const filter = toEndpointFilter(params);
  return snapshot.search.cost(filter, 25) > WORK.budget ? null : { params, filter };
};
const listAnswer = (query: string) => {
  const request = parsed(query);
  if (request === null) return "";
  const { params, filter } = request;
  const page = Number(params.page ?? 1);
  const { total, records, wide, bases, ready, distance } = snapshot.list(
    filter,
    (page - 1) * 25,
    25,
    params.sort === "relevance" ? "relevance" : undefined,
  );
  return dataPageText(records, wide, { total, page, limit: 25, bases, ready, distance });
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
/**
 * A diagnostic beside the shapes, not a request the route takes: near at 25 miles doing all its
 * own work (parse, budget, search, distances, the answer's text) but writing the records of a page
 * of the unfiltered list (neighbours, in the caches) instead of its own 25 entries from all over
 * the list. Its distance from the unfiltered list is near's own cost; the rest of near's is writing
 * scattered entries.
 */
const NEIGHBOURS = "near 25, neighbours' page";
const unfilteredFilter = toEndpointFilter({});
let neighbourPage = 0;
const nearWithNeighbours = (query: string) => {
  const request = parsed(query);
  if (request === null) return "";
  const { filter } = request;
  const { total, ordinals } = snapshot.search.search(filter, 0, 25);
  const { near } = filter;
  const distance = snapshot.search.lookups
    .milesOfEach(ordinals, near!.latitude, near!.longitude)
    .map((miles) => Math.round((miles ?? 0) * 100) / 100);
  neighbourPage = (neighbourPage + 1) % 1000;
  const { records, wide, bases, ready } = snapshot.list(unfilteredFilter, neighbourPage * 25, 25);
  return dataPageText(records, wide, { total, page: 1, limit: 25, bases, ready, distance });
};
if (samples["near, 25 miles"]!.length > 0) shapes.push([NEIGHBOURS, samples["near, 25 miles"]!]);
const answerOf = (name: string) => (name === NEIGHBOURS ? nearWithNeighbours : listAnswer);
const ROUNDS = 8;
const perRound = Math.ceil(requests / ROUNDS);
const micros = new Map(shapes.map(([name]) => [name, 0]));
// CPU time beside the wall clock: on a shared machine a round can wait for a core, which the
// wall clock counts and the process's CPU time does not.
const cpuMicros = new Map(shapes.map(([name]) => [name, 0]));
const records = new Map(shapes.map(([name]) => [name, 0]));
for (const [name, queries] of shapes) for (const query of queries.slice(0, 20)) answerOf(name)(query); // warm-up
for (let round = 0; round < ROUNDS; round++)
  for (const [name, queries] of shapes) {
    // Each shape's turn starts with the heap collected: its time counts the collections of its
    // own garbage, not of the garbage the shape before it left.
    Bun.gc(true);
    started = performance.now();
    const cpu = process.cpuUsage();
    let bytes = 0;
    const answer = answerOf(name);
    for (let i = 0; i < perRound; i++) bytes += answer(queries[(round * perRound + i) % queries.length]!).length;
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
// The served section's values, read before the bench's own copy of the data is let go.
const servedSamples = values.served ? sampleQueries(SERVED_VALUES) : {};
directory.close();
db.sqlite.close();

// 4. Served: the same shapes from a real server, each request's answer built (none kept).
if (values.served) await served();
process.exit(0);

/**
 * The rate a server answers each shape at, from its CPU time per answer: a copy of the database
 * served by src/index.ts pinned to BENCH_SERVER_CPUS (as bench:http runs it, the limiter counting
 * and never refusing), CLIENTS requests in flight at a time from this process. A server keeps up
 * to 1,000 answers per version (src/server/http/answers.ts), so each shape cycles through more
 * distinct URLs than that: its values, each also with `page=1`, `limit=25` or both, which asks
 * for the same page; no URL comes round again before 1,000 others, so every answer is built.
 */
async function served() {
  // The same request in other words: the default page and limit said, before or after the filter.
  const VARIANTS = ["", "page=1", "limit=25", "page=1&limit=25", "limit=25&page=1"];
  const CLIENTS = 8;
  const pages = Array.from({ length: 1000 }, (_, i) => `page=${i + 1}`);
  const servedShapes: [string, string[]][] = [
    [UNFILTERED, [...pages, ...pages.map((page) => `${page}&limit=25`), ...pages.map((page) => `limit=25&${page}`)]],
    ...Object.entries(servedSamples).map(([name, queries]): [string, string[]] => [
      name,
      VARIANTS.flatMap((variant) =>
        variant === "" ? queries : [...queries.map((q) => `${q}&${variant}`), ...queries.map((q) => `${variant}&${q}`)],
      ),
    ]),
  ];
  for (const [name, urls] of servedShapes)
    if (new Set(urls).size <= 1000)
      throw new Error(`${name}: ${new Set(urls).size} distinct URLs, not more than the server keeps`);
  const serverCpus = process.env.BENCH_SERVER_CPUS || "0";
  await withServedCopy(
    {
      source: path,
      script: join(ROOT, "src/index.ts"),
      cpus: serverCpus,
      env: { RATE_LIMIT_MAX: "100000000", RATE_LIMIT_WINDOW_SECONDS: "60" },
      readyTimeoutMs: 300_000,
    },
    async (server) => {
      const base = `http://127.0.0.1:${server.port}/api/v1/endpoints?`;
      const next = new Map(servedShapes.map(([name]) => [name, 0]));
      /** `count` requests of one shape, CLIENTS at a time, continuing its cycle of URLs; the server's CPU seconds and the wall seconds they took. */
      const send = async (name: string, urls: string[], count: number, encoding: string) => {
        let sent = 0;
        const failed: string[] = [];
        const cpu = cpuSecondsOf(server.pid)!;
        const started = performance.now();
        const client = async () => {
          while (sent < count) {
            sent++;
            const at = next.get(name)!;
            next.set(name, at + 1);
            const response = await fetch(`${base}${urls[at % urls.length]}`, {
              headers: { "accept-encoding": encoding },
            });
            await response.arrayBuffer();
            if (response.status !== 200) failed.push(`${response.status} ${urls[at % urls.length]}`);
          }
        };
        await Promise.all(Array.from({ length: CLIENTS }, client));
        if (failed.length > 0) throw new Error(`${name}: ${failed.length} answers not 200, first ${failed[0]}`);
        return { cpu: cpuSecondsOf(server.pid)! - cpu, wall: (performance.now() - started) / 1000 };
      };
      // Uncompressed, as bench:http's load asks; then compressed, as browsers and most HTTP
      // clients ask (the server then compresses every answer it builds, the larger share of its work).
      for (const encoding of ["identity", "gzip, br"]) {
        for (const [name, urls] of servedShapes) await send(name, urls, 300, encoding); // warm-up
        const cpuSeconds = new Map(servedShapes.map(([name]) => [name, 0]));
        const wallSeconds = new Map(servedShapes.map(([name]) => [name, 0]));
        const perShape = Math.ceil(requests / ROUNDS);
        for (let round = 0; round < ROUNDS; round++)
          for (const [name, urls] of servedShapes) {
            const { cpu, wall } = await send(name, urls, perShape, encoding);
            cpuSeconds.set(name, cpuSeconds.get(name)! + cpu);
            wallSeconds.set(name, wallSeconds.get(name)! + wall);
          }
        const answers = perShape * ROUNDS;
        console.log(
          `\n${answers} answers each, Accept-Encoding: ${encoding}, from a server pinned to CPU ${serverCpus}, ${CLIENTS} in flight, ${ROUNDS} alternated rounds, none kept (load ${loadavg()[0]!.toFixed(1)}):`,
        );
        console.log(
          `  ${"".padEnd(26)} ${"server CPU µs".padStart(13)} ${"% of unfiltered".padStart(15)} ${"answers/s".padStart(10)} ${"% of unfiltered".padStart(15)}`,
        );
        for (const [name] of servedShapes) {
          const cpu = cpuSeconds.get(name)!;
          const wall = wallSeconds.get(name)!;
          console.log(
            `  ${name.padEnd(26)} ${((cpu / answers) * 1e6).toFixed(1).padStart(13)} ${percent(cpuSeconds.get(UNFILTERED)!, cpu).padStart(15)} ${(answers / wall).toFixed(0).padStart(10)} ${percent(wallSeconds.get(UNFILTERED)!, wall).padStart(15)}`,
          );
        }
      }
      console.log(
        "  (rates: the unfiltered list's server CPU per answer over the shape's; answers/s: the wall clock, which a busy machine also slows)",
      );
    },
  );
}
