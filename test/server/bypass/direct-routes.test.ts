import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { MemoryRateLimitStore } from "../../../src/server/rate-limit/memory-store";
import type { RateLimitStore } from "../../../src/server/rate-limit/store";
import { createTestApp } from "../../support/app";
import { fixtureDb } from "../../support/fixture";

// Two servers on the same data: one serves the by-id routes through Bun's router
// (src/server/bypass/direct-routes.ts); the other counts in a store that answers through a Promise, as
// Redis does, so it has no direct routes and answers every request through Elysia's hooks. Both
// get the same requests in the same order and read the same clock, so every status, body and
// header must be the same.
const env = { LOG_LEVEL: "error", RATE_LIMIT_MAX: "60", RATE_LIMIT_WINDOW_SECONDS: "3600" };
const clock = () => new Date("2026-11-25T12:00:10.000Z");
const DIRECT = ["/api/v1/endpoints/:id", "/api/v1/endpoints/:id/capabilities", "/api/v1/endpoints/:id/availability"];

/** Headers each side sets on its own: the date, a generated request id. */
const OWN = new Set(["date", "x-request-id"]);

/** Counts in memory, but answers through a Promise, as a Redis store does. */
function awaitedStore(): RateLimitStore {
  const memory = new MemoryRateLimitStore();
  return {
    synchronous: false,
    hit: async (client, window) => memory.hit(client, window),
    peek: async (client, window) => memory.peek(client, window),
    hitEntry: async (client, entry, window) => memory.hitEntry(client, entry, window),
  };
}

async function answer(response: Response) {
  const headers = [...response.headers].filter(([name]) => !OWN.has(name)).sort();
  return { status: response.status, headers, body: await response.text() };
}

describe("the direct routes answer exactly as the app does", () => {
  const served = createTestApp({ db: fixtureDb(), config: loadConfig(env), clock });
  const reference = createTestApp({ db: fixtureDb(), config: loadConfig(env), clock, rateLimitStore: awaitedStore() });
  let direct: string;
  let app: string;
  let ids: string[];

  beforeAll(async () => {
    served.listen({ port: 0, hostname: "127.0.0.1" });
    reference.listen({ port: 0, hostname: "127.0.0.1" });
    direct = `http://127.0.0.1:${served.server!.port}/api/v1/endpoints`;
    app = `http://127.0.0.1:${reference.server!.port}/api/v1/endpoints`;
    const list = (await (await fetch(`${direct}?limit=100`)).json()) as { data: { id: string }[] };
    await fetch(`${app}?limit=100`);
    ids = list.data.map((entry) => entry.id);
  });
  afterAll(() => {
    served.stop();
    reference.stop();
  });

  test("they are registered with Bun's router for the three by-id routes, and only with a store that answers at once", () => {
    expect(Object.keys(served.config.serve?.routes ?? {}).sort()).toEqual(DIRECT.sort());
    expect(Object.keys(reference.config.serve?.routes ?? {})).toEqual([]);
  });

  test("entries, capabilities, availability, errors, 304s, request ids, keys, and the 429 once the quota is spent", async () => {
    const unknown = "0".repeat(64);
    const requests: [string, RequestInit?][] = [];
    for (const id of ids)
      for (const suffix of ["", "/capabilities", "/availability"]) requests.push([`${id}${suffix}`]);
    requests.push(
      [`${unknown}`],
      [`${unknown}/capabilities`],
      [`${unknown}/availability`],
      ["not-an-id/availability"],
      [`${ids[0]}/capabilities?x=1`],
      [`${ids[0]}/availability?`],
      [`${ids[0]!.slice(0, 63)}%${ids[0]!.slice(63)}`],
      [`${ids[1]}`, { method: "HEAD" }],
      [`${ids[1]}/availability`, { headers: { "x-request-id": "trace-me-1" } }],
      [`${ids[2]}/capabilities`, { headers: { "if-none-match": "*" } }],
      [`${ids[2]}/capabilities`, { headers: { "accept-encoding": "gzip" } }],
      [`${ids[3]}`, { headers: { "x-api-key": "no-such-key" } }],
    );
    // Each side's first answer gives the ETag the next request sends back.
    const etag = (await fetch(`${direct}/${ids[0]}/availability`)).headers.get("etag")!;
    expect((await fetch(`${app}/${ids[0]}/availability`)).headers.get("etag")).toBe(etag);
    requests.push([`${ids[0]}/availability`, { headers: { "if-none-match": etag } }]);
    // Past the quota of 60: the last ones are 429s.
    for (let i = 0; i < 16; i++) requests.push([`${ids[i % ids.length]}/availability`]);

    let statuses = 0;
    for (const [path, init] of requests) {
      const fromDirect = await answer(await fetch(`${direct}/${path}`, init));
      const fromApp = await answer(await fetch(`${app}/${path}`, init));
      expect({ path, ...fromDirect }).toEqual({ path, ...fromApp });
      statuses |= 1 << Math.floor(fromDirect.status / 100);
    }
    // 2xx, 3xx (304), 4xx (400, 401, 404, 429) all compared.
    expect(statuses).toBe((1 << 2) | (1 << 3) | (1 << 4));
  });
});

describe("answers under concurrent clients", () => {
  test("many clients at once each get the answer to their own request (by id, and cached lists)", async () => {
    const app = createTestApp({ db: fixtureDb(), config: loadConfig({ ...env, RATE_LIMIT_MAX: "100000" }), clock });
    app.listen({ port: 0, hostname: "127.0.0.1" });
    try {
      const root = `http://127.0.0.1:${app.server!.port}/api/v1`;
      const list = (await (await fetch(`${root}/endpoints?limit=100`)).json()) as { data: { id: string }[] };
      const urls = [
        ...list.data.flatMap(({ id }) => [
          `endpoints/${id}`,
          `endpoints/${id}/capabilities`,
          `endpoints/${id}/availability`,
        ]),
        ...[1, 2, 3, 4, 5].map((page) => `endpoints?limit=2&page=${page}`),
        "vendors",
        "stats",
      ].map((path) => `${root}/${path}`);
      // Asked once each first: the lists' answers are cached from then on.
      const one = new Map<string, string>();
      for (const url of urls) one.set(url, await (await fetch(url)).text());
      const all = [...urls, ...urls, ...urls];
      const together = await Promise.all(
        all.map(async (url) => {
          const response = await fetch(url);
          return { url, status: response.status, body: await response.text() };
        }),
      );
      expect(together.length).toBeGreaterThan(30);
      for (const { url, status, body } of together)
        expect({ url, status, body }).toEqual({ url, status: 200, body: one.get(url)! });
    } finally {
      app.stop();
    }
  });
});
