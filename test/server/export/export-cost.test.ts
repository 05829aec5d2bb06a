/**
 * A filtered export pays for the rows it writes, against its client's rate limit, before it
 * writes any: one anonymous client exporting as fast as it may gets no more rows, nor server
 * CPU, a window than its requests' share (bench/README.md, Fairness), and the next client still
 * has its whole quota. A generated dataset of 20,000 entries, the app in process, a clock the
 * test holds inside one window.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { type Db, openDatabase } from "../../../src/db/client";
import { EXPORT_ROWS_PER_REQUEST } from "../../../src/server/export/routes";
import { MemoryRateLimitStore } from "../../../src/server/rate-limit/memory-store";
import { createTestApp } from "../../support/app";
import { generatedDatabase } from "../../support/built-once";
import { tempDir } from "../../support/temp-db";

/** Server CPU one request may take, by the rate limit's fairness (bench/README.md). */
const REQUEST_CPU_MS = 40;
const WINDOW_START = "2026-11-25T12:00:00.500Z";

let dir: string;
let path: string;
const opened: { db: Db; app: ReturnType<typeof createTestApp> }[] = [];

beforeAll(async () => {
  dir = tempDir("export-cost-");
  path = join(dir, "generated.sqlite");
  await generatedDatabase({ endpoints: 20_000, out: path });
}, 60_000);

afterAll(() => {
  for (const { app, db } of opened) {
    app.directory.close();
    db.sqlite.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The app over the dataset, anonymous clients told apart by the address our proxy appends. */
function appWithLimit(limit: number) {
  const db = openDatabase(path);
  const now = Date.parse(WINDOW_START);
  const app = createTestApp({
    db,
    config: loadConfig({ DATABASE_PATH: path, RATE_LIMIT_MAX: String(limit), TRUST_PROXY: "true", LOG_LEVEL: "error" }),
    clock: () => new Date(now),
    rateLimitStore: new MemoryRateLimitStore(),
  });
  opened.push({ db, app });
  const request = (target: string, client: string, headers: Record<string, string> = {}, method = "GET") =>
    app.handle(
      new Request(`http://localhost${target}`, { method, headers: { "x-forwarded-for": client, ...headers } }),
    );
  return { app, request };
}

/** The rows a filtered export writes: the list's total for the same filters. */
async function rowsOf(request: ReturnType<typeof appWithLimit>["request"], filters: string) {
  const response = await request(`/api/v1/endpoints?${filters}&limit=1`, "192.0.2.250");
  return ((await response.json()) as { meta: { total: number } }).meta.total;
}

const EXPORTS: { query: string; filters: string; headers: Record<string, string> }[] = [
  { query: "format=ndjson&fhirVersion=R4", filters: "fhirVersion=R4", headers: {} },
  { query: "format=fhir&access=patient", filters: "access=patient", headers: {} },
  { query: "format=csv&fhirVersion=R4", filters: "fhirVersion=R4", headers: { "accept-encoding": "gzip" } },
];

describe("a filtered export pays for its rows", () => {
  test("one client exporting all it may in a window: rows and CPU within its requests' share; the next client keeps its quota", async () => {
    const limit = 60;
    const { request } = appWithLimit(limit);
    const rows = new Map<string, number>();
    for (const { query, filters } of EXPORTS) rows.set(query, await rowsOf(request, filters));
    // Each export is broad: thousands of rows.
    for (const n of rows.values()) expect(n).toBeGreaterThan(EXPORT_ROWS_PER_REQUEST);

    let written = 0;
    let answered = 0;
    const before = process.cpuUsage();
    for (let i = 0; i < 3 * limit; i++) {
      const { query, headers } = EXPORTS[i % EXPORTS.length]!;
      const response = await request(`/api/v1/export?${query}`, "198.51.100.7", headers);
      await response.arrayBuffer();
      if (response.status === 200) {
        written += rows.get(query)!;
        answered++;
      } else expect([400, 429]).toContain(response.status);
    }
    const cpu = process.cpuUsage(before);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    expect(answered).toBeGreaterThan(0);
    // Its rows paid, at most its quota's worth were written; the CPU they took is within the share.
    expect(written).toBeLessThanOrEqual(limit * EXPORT_ROWS_PER_REQUEST);
    expect(cpuMs).toBeLessThan(limit * REQUEST_CPU_MS);

    const next = await request("/api/v1/export?format=ndjson&fhirVersion=R4", "198.51.100.8");
    await next.arrayBuffer();
    expect(next.status).toBe(200);
    const cost = Math.ceil(rows.get("format=ndjson&fhirVersion=R4")! / EXPORT_ROWS_PER_REQUEST);
    expect(Number(next.headers.get("ratelimit-remaining"))).toBe(limit - cost);
  }, 60_000);

  test("what the quota left cannot pay: 429 with Retry-After, before a row is written; HEAD and 304 pay no rows", async () => {
    const limit = 14;
    const { request } = appWithLimit(limit);
    const target = "/api/v1/export?format=ndjson&fhirVersion=R4";
    const cost = Math.ceil((await rowsOf(request, "fhirVersion=R4")) / EXPORT_ROWS_PER_REQUEST);
    expect(cost).toBe(5);
    const client = "198.51.100.20";
    const remaining = (response: Response) => Number(response.headers.get("ratelimit-remaining"));
    const first = await request(target, client);
    const etag = first.headers.get("etag")!;
    await first.arrayBuffer();
    expect(remaining(first)).toBe(limit - cost);
    const head = await request(target, client, {}, "HEAD");
    expect([head.status, remaining(head)]).toEqual([200, limit - cost - 1]);
    const unchanged = await request(target, client, { "if-none-match": etag });
    expect([unchanged.status, remaining(unchanged)]).toEqual([304, limit - cost - 2]);
    const second = await request(target, client);
    await second.arrayBuffer();
    expect([second.status, remaining(second)]).toEqual([200, limit - 2 * cost - 2]);
    // 2 left: this request is one of them, its rows would need 4 more.
    const refused = await request(target, client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("TOO_MANY_REQUESTS");
    expect(body.error.message).toContain(`costs ${cost} requests`);
  }, 60_000);

  test("an export dearer than the whole quota: 400 naming the way round (the download file, a key)", async () => {
    const { request } = appWithLimit(3);
    const response = await request("/api/v1/export?format=ndjson&fhirVersion=R4", "198.51.100.30");
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.message).toContain("unfiltered export");
    // A narrow export still costs one request.
    const narrow = await request("/api/v1/export?format=ndjson&state=WY", "198.51.100.30");
    await narrow.arrayBuffer();
    expect(narrow.status).toBe(200);
  });
});
