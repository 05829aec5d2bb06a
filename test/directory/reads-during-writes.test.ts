/**
 * Reads during writes: a real server under continuous client load while a real ingest
 * subprocess rewrites the same database again and again, alternating two versions of one list
 * (same URLs and NPIs, so the same ids; "Alpha …" names in one, "Bravo …" in the other). The
 * server picks each version up by polling (DATASET_POLL_MS=50). Zero errors, and no page ever
 * mixes the two versions or reports a total of neither.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportMeasurement } from "../support/measurements";
import { type ServerProcess, startServer } from "../support/server-process";

const ROOT = join(import.meta.dir, "..", "..");
const ENTRIES = 3_000;
/**
 * The load goes on until the writer has written MIN_WRITES versions, the clients have seen as
 * many and sent MIN_REQUESTS requests: what the test proves, reads across several swaps in both
 * directions, takes the swaps, not a long load between them (it once went on for 10 s or 6,000
 * requests, and saw 13 writes). On a busy machine that takes longer, up to MAX_LOAD_MS.
 */
const MIN_WRITES = 4;
const MIN_REQUESTS = 1_500;
const MAX_LOAD_MS = 25_000;
const MAX_REQUESTS = 6_000;
const CLIENTS = 12;

const dir = mkdtempSync(join(tmpdir(), "reads-during-writes-"));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function writeList(name: string, prefix: string): string {
  const items = Array.from({ length: ENTRIES }, (_, i) => ({
    URL: `https://fhir${i % 40}.meditech.test/site/${i}/r4`,
    OrganizationName: `${prefix} Clinic ${String(i).padStart(4, "0")}`,
    NPIID: `1${String(i).padStart(9, "0")}`,
    OrganizationCity: "Austin",
    OrganizationState: i % 2 === 0 ? "TX" : "CA",
  }));
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ Endpoints: items }));
  return path;
}

async function ingest(dbPath: string, file: string): Promise<number> {
  const proc = Bun.spawn(
    [
      process.execPath,
      join(ROOT, "src/pipeline/ingest/cli.ts"),
      "--vendor",
      "meditech",
      "--file",
      file,
      "--list",
      "meditech-endpoints",
    ],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_PATH: dbPath },
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`ingest failed (${code}): ${stderr}`);
  return code;
}

interface ListBody {
  success: boolean;
  data: { id: string; organizationName: string }[];
  meta: { total: number; page: number; limit: number };
}

describe("reads during writes", () => {
  test(`${CLIENTS} clients while an ingest rewrites the list ${MIN_WRITES} times or more: no error, no mixed page`, async () => {
    const dbPath = join(dir, "directory.sqlite");
    const alpha = writeList("alpha.json", "Alpha");
    const bravo = writeList("bravo.json", "Bravo");
    await ingest(dbPath, alpha);
    server = await startServer({ DATABASE_PATH: dbPath, DATASET_POLL_MS: "50", RATE_LIMIT_MAX: "0" });
    const base = server.baseUrl;

    // The writer: alternate the two versions until the readers are done.
    let readersDone = false;
    let writes = 0;
    const writer = (async () => {
      for (let i = 0; !readersDone && i < 200; i++) {
        await ingest(dbPath, i % 2 === 0 ? bravo : alpha);
        writes++;
      }
    })();

    const problems: string[] = [];
    const prefixes = new Map<string, number>();
    const etags = new Set<string>();
    let requests = 0;
    const started = performance.now();
    const shapes = [
      () => `/api/v1/endpoints?vendor=meditech&page=${1 + Math.floor(Math.random() * 30)}&limit=100`,
      () =>
        `/api/v1/endpoints?page=${1 + Math.floor(Math.random() * 60)}&limit=${[25, 50][Math.floor(Math.random() * 2)]}`,
      () => `/api/v1/endpoints?query=clinic&state=TX&page=${1 + Math.floor(Math.random() * 15)}&limit=100`,
      () =>
        `/api/v1/endpoints?query=${Math.random() < 0.5 ? "alpha" : "bravo"}&limit=100&page=${1 + Math.floor(Math.random() * 30)}`,
      () => "/api/v1/stats",
    ];
    const client = async () => {
      const more = () => {
        const elapsed = performance.now() - started;
        return (
          (writes < MIN_WRITES || etags.size < MIN_WRITES || requests < MIN_REQUESTS) &&
          elapsed < MAX_LOAD_MS &&
          requests < MAX_REQUESTS
        );
      };
      while (more()) {
        requests++;
        const target = shapes[Math.floor(Math.random() * shapes.length)]!();
        let response: Response;
        let text: string;
        try {
          response = await fetch(base + target);
          text = await response.text();
        } catch (error) {
          problems.push(`${target}: ${error}`);
          continue;
        }
        if (response.status !== 200) {
          problems.push(`${target}: ${response.status} ${text.slice(0, 200)}`);
          continue;
        }
        const etag = response.headers.get("etag");
        if (etag) etags.add(etag.slice(0, etag.indexOf("-")));
        const body = JSON.parse(text);
        if (target === "/api/v1/stats") {
          if (body.data.totalEndpoints !== ENTRIES) problems.push(`stats: totalEndpoints ${body.data.totalEndpoints}`);
          continue;
        }
        const { data, meta } = body as ListBody;
        const seen = new Set(data.map((e) => e.organizationName.split(" ")[0]!));
        if (seen.size > 1) problems.push(`${target}: one page mixes ${[...seen].join(" and ")}`);
        for (const prefix of seen) prefixes.set(prefix, (prefixes.get(prefix) ?? 0) + 1);
        const named = /query=(alpha|bravo)/.exec(target)?.[1];
        const expectedTotals = target.includes("state=TX") ? [ENTRIES / 2] : named ? [0, ENTRIES] : [ENTRIES];
        if (!expectedTotals.includes(meta.total)) problems.push(`${target}: meta.total ${meta.total}`);
        // A name filter matches one whole version or nothing: its total and its page agree.
        if (named && meta.total === ENTRIES && data.some((e) => !e.organizationName.toLowerCase().startsWith(named)))
          problems.push(`${target}: page disagrees with its filter`);
        if (named && meta.total === 0 && data.length > 0)
          problems.push(`${target}: total 0 with ${data.length} records`);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    readersDone = true;
    await writer;

    reportMeasurement(
      JSON.stringify({ requests, writes, versions: etags.size, prefixes: Object.fromEntries(prefixes) }),
    );
    expect(problems.slice(0, 10)).toEqual([]);
    expect(requests).toBeGreaterThan(500);
    // The test saw the dataset change under it many times, in both directions.
    expect(writes).toBeGreaterThanOrEqual(MIN_WRITES);
    expect(etags.size).toBeGreaterThanOrEqual(MIN_WRITES);
    expect(prefixes.get("Alpha") ?? 0).toBeGreaterThan(20);
    expect(prefixes.get("Bravo") ?? 0).toBeGreaterThan(20);
    await Bun.sleep(150);
    expect(
      server
        .output()
        .split("\n")
        .filter((line) => line.includes('"level":"error"')),
    ).toEqual([]);
  }, 60_000);
});
