/**
 * A real server (`bun src/index.ts`) on a generated 40,000-entry dataset: at most two exports
 * in flight per client, a third gets 429 with Retry-After and the RateLimit headers; other
 * clients and other requests are served meanwhile; a slot is given back when its client goes
 * away; a filtered export pays by its rows.
 */
import { expect, test } from "bun:test";
import { EXPORT_ROWS_PER_REQUEST } from "../../../src/server/export/routes";
import { STREAMED_EXPORT as EXPORT, serveGeneratedDataset, stalledExport } from "./helpers";

const live = serveGeneratedDataset({ endpoints: 40_000, seed: 8 }, { RATE_LIMIT_MAX: "1000", TRUST_PROXY: "true" });

const get = (path: string, client: string, init: RequestInit = {}) =>
  fetch(`${live.server.baseUrl}${path}`, { ...init, headers: { "x-forwarded-for": client, ...init.headers } });

test("a client's third export while two are running → 429 with Retry-After; others are served", async () => {
  const client = "203.0.113.10";
  const first = await stalledExport(live.server.baseUrl, EXPORT, client);
  const second = await stalledExport(live.server.baseUrl, EXPORT, client);
  expect(first.head).toStartWith("HTTP/1.1 200");
  expect(second.head).toStartWith("HTTP/1.1 200");

  const third = await get(EXPORT.replace("fhir", "csv"), client);
  expect(third.status).toBe(429);
  const retryAfter = Number(third.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  expect(third.headers.get("ratelimit-limit")).toBe("1000");
  expect(third.headers.get("ratelimit-policy")).toBe("1000;w=60");
  expect(await third.json()).toEqual({
    success: false,
    error: {
      code: "TOO_MANY_REQUESTS",
      message: expect.stringContaining("At most 2 exports at a time per client"),
    },
  });
  // Each export paid by its rows (one request per EXPORT_ROWS_PER_REQUEST), the one refused a
  // slot counted once, as a request.
  const rows = (await (await get("/api/v1/endpoints?fhirVersion=R4&limit=1", "192.0.2.1")).json()) as {
    meta: { total: number };
  };
  const cost = Math.ceil(rows.meta.total / EXPORT_ROWS_PER_REQUEST);
  expect(cost).toBeGreaterThan(1);
  expect(third.headers.get("ratelimit-remaining")).toBe(String(1000 - 2 * cost - 1));

  // The same client's other requests, and another client's export, are answered meanwhile.
  expect((await get("/health", client)).status).toBe(200);
  expect((await get("/api/v1/endpoints?vendor=epic", client)).status).toBe(200);
  const other = await get("/api/v1/export?format=ndjson&vendor=epic", "198.51.100.7");
  expect(other.status).toBe(200);
  const lines = (await other.text()).trimEnd().split("\n");
  const listed = (await (await get("/api/v1/endpoints?vendor=epic&limit=1", "198.51.100.7")).json()) as {
    meta: { total: number };
  };
  expect(lines.length).toBe(listed.meta.total);

  // The client closes one download: its slot comes back once the server has noticed.
  first.socket.destroy();
  let status = 0;
  for (let attempt = 0; attempt < 200 && status !== 200; attempt++) {
    const retry = await get(EXPORT, client);
    status = retry.status;
    await retry.body?.cancel();
    if (status !== 200) await Bun.sleep(50);
  }
  expect(status).toBe(200);
  second.socket.destroy();
}, 60_000);

test("the server answers other requests between the chunks of two running exports", async () => {
  const client = "203.0.113.20";
  let running = 2;
  const exports = ["fhir", "csv"].map(async (format) => {
    const response = await get(`/api/v1/export?format=${format}&fhirVersion=R4`, client);
    expect(response.status).toBe(200);
    const bytes = (await response.arrayBuffer()).byteLength;
    running--;
    return bytes;
  });
  let answeredDuringExports = 0;
  while (running > 0) {
    const health = await get("/health", "192.0.2.1");
    expect(health.status).toBe(200);
    await health.text();
    if (running > 0) answeredDuringExports++;
    await Bun.sleep(5);
  }
  const sizes = await Promise.all(exports);
  expect(sizes.every((size) => size > 1_000_000)).toBe(true);
  expect(answeredDuringExports).toBeGreaterThan(0);
}, 60_000);
