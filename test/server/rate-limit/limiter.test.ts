import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { createLogger } from "../../../src/logger";
import {
  MAX_CLIENTS,
  MAX_ENTRY_COUNTERS,
  MemoryRateLimitStore,
  OVERFLOW_BUCKETS,
} from "../../../src/server/rate-limit/memory-store";
import { RedisRateLimitStore } from "../../../src/server/rate-limit/redis-store";
import { createTestApp } from "../../support/app";
import { fixtureDb } from "../../support/fixture";
import { type RedisProcess, redisAvailable, startRedis } from "../../support/redis-server";
import { type ServerProcess, startServer } from "../../support/server-process";

/** An app over the fixture dataset with its own memory store and a clock the test moves. */
function limitedApp(
  env: Record<string, string>,
  startAt = "2026-11-25T12:00:10.000Z",
  store = new MemoryRateLimitStore(),
) {
  let now = Date.parse(startAt);
  const app = createTestApp({
    db: fixtureDb(),
    config: loadConfig({ RATE_LIMIT_WINDOW_SECONDS: "60", LOG_LEVEL: "error", ...env }),
    clock: () => new Date(now),
    rateLimitStore: store,
  });
  const request = (path: string, headers: Record<string, string> = {}) =>
    app.handle(new Request(`http://localhost${path}`, { headers }));
  return {
    app,
    store,
    request,
    setNow: (iso: string) => (now = Date.parse(iso)),
    advance: (ms: number) => (now += ms),
  };
}

async function statuses(responses: Promise<Response>[]): Promise<number[]> {
  return Promise.all(
    responses.map(async (r) => {
      const response = await r;
      await response.arrayBuffer();
      return response.status;
    }),
  );
}

const count = (list: number[], status: number) => list.filter((s) => s === status).length;

describe("rate limiter under attack", () => {
  test("exactly N allowed out of 500 concurrent requests from one client; the rest are 429 with Retry-After", async () => {
    const { request } = limitedApp({ RATE_LIMIT_MAX: "100" });
    const paths = [
      "/api/v1/stats",
      "/api/v1/vendors",
      "/api/v1/endpoints?limit=5",
      "/api/v1/endpoints/nope",
      "/api/v1/nowhere",
    ];
    const responses = await Promise.all(Array.from({ length: 500 }, (_, i) => request(paths[i % paths.length]!)));
    const allowed = responses.filter((r) => r.status !== 429);
    const rejected = responses.filter((r) => r.status === 429);
    expect(allowed).toHaveLength(100);
    expect(rejected).toHaveLength(400);
    // Each allowed request saw a distinct remaining count: no two were counted as the same hit.
    expect(new Set(allowed.map((r) => r.headers.get("ratelimit-remaining"))).size).toBe(100);
    for (const r of rejected) {
      expect(r.headers.get("retry-after")).toBe("50");
      expect(r.headers.get("ratelimit-remaining")).toBe("0");
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("TOO_MANY_REQUESTS");
    }
  });

  test("at the window boundary: the last millisecond of a window still counts against it, the first of the next starts afresh", async () => {
    const { request, setNow } = limitedApp({ RATE_LIMIT_MAX: "3" });
    setNow("2026-11-25T12:00:59.999Z");
    const last = await statuses(Array.from({ length: 5 }, () => request("/api/v1/stats")));
    expect(count(last, 200)).toBe(3);
    expect(count(last, 429)).toBe(2);
    const edge = await request("/api/v1/stats");
    expect(edge.status).toBe(429);
    expect(edge.headers.get("retry-after")).toBe("1"); // never 0, even 1 ms before the reset
    expect(edge.headers.get("ratelimit-reset")).toBe("1");

    setNow("2026-11-25T12:01:00.000Z");
    const first = await request("/api/v1/stats");
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-remaining")).toBe("2");
    expect(first.headers.get("ratelimit-reset")).toBe("60");
    const rest = await statuses(Array.from({ length: 5 }, () => request("/api/v1/stats")));
    expect(count(rest, 200)).toBe(2);
    expect(count(rest, 429)).toBe(3);
  });

  test("MemoryRateLimitStore: 1,000,000 distinct clients over 10 windows keep at most one window of counters", () => {
    const store = new MemoryRateLimitStore();
    Bun.gc(true);
    const heapBefore = process.memoryUsage().heapUsed;
    let largest = 0;
    const perWindow = 100_000;
    for (let window = 0; window < 10; window++) {
      for (let i = 0; i < perWindow; i++) {
        const n = window * perWindow + i;
        // One request per address, every address distinct (10.x.y.z and beyond).
        expect(store.hit(`ip:${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`, 1000 + window)).toBe(1);
      }
      largest = Math.max(largest, store.size);
      expect(store.size).toBe(perWindow);
    }
    expect(largest).toBe(perWindow);
    store.hit("ip:203.0.113.9", 1010);
    expect(store.size).toBe(1);
    Bun.gc(true);
    const grownMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    // A million retained counters take well over 50 MB; one window's worth was dropped.
    expect(grownMb).toBeLessThan(20);
  }, 60_000);

  test("MemoryRateLimitStore: 300,000 distinct clients in one window keep the map bounded, and every hit still counts", () => {
    const store = new MemoryRateLimitStore(100_000);
    expect(store.hit("ip:192.0.2.1", 7)).toBe(1);
    let largestCount = 0;
    for (let i = 0; i < 300_000; i++) largestCount = Math.max(largestCount, store.hit(`ip:rotated-${i}`, 7));
    // 100,000 own counters plus at most OVERFLOW_BUCKETS shared ones.
    expect(store.size).toBeLessThanOrEqual(100_000 + OVERFLOW_BUCKETS);
    // 200,000 clients beyond the cap shared the overflow counters: some counted over one.
    expect(largestCount).toBeGreaterThan(3);
    // A client counted before the flood keeps its own counter.
    expect(store.hit("ip:192.0.2.1", 7)).toBe(2);
  });

  test("TRUST_PROXY=true counts the LAST X-Forwarded-For hop (what our proxy appended); earlier hops are ignored", async () => {
    const { request } = limitedApp({ RATE_LIMIT_MAX: "2", TRUST_PROXY: "true" });
    // The client rotates what it writes itself; the proxy appends the same real address each time.
    const rotated = await statuses(
      Array.from({ length: 6 }, (_, i) => request("/api/v1/stats", { "x-forwarded-for": `10.9.8.${i}, 198.51.100.7` })),
    );
    expect(rotated).toEqual([200, 200, 429, 429, 429, 429]);
    // Another real address (last hop) has its own quota.
    expect((await request("/api/v1/stats", { "x-forwarded-for": "10.9.8.1, 198.51.100.8" })).status).toBe(200);
    expect((await request("/api/v1/stats", { "x-forwarded-for": "198.51.100.9" })).status).toBe(200);
  });

  test("through the app: 20,000 forwarded addresses each get their own quota, then the next window evicts them", async () => {
    const { request, store, advance } = limitedApp({ RATE_LIMIT_MAX: "1", TRUST_PROXY: "true" });
    const n = 20_000;
    for (let start = 0; start < n; start += 1000) {
      const batch = Array.from({ length: 1000 }, (_, k) => {
        const i = start + k;
        return request("/api/v1/stats", { "x-forwarded-for": `10.0.0.1, 198.18.${i >>> 8}.${i & 255}` });
      });
      const got = await statuses(batch);
      expect(count(got, 200)).toBe(1000);
    }
    expect(store.size).toBe(n);
    // The same address again in the same window: its quota of 1 is spent.
    expect((await request("/api/v1/stats", { "x-forwarded-for": "198.18.0.7" })).status).toBe(429);
    advance(60_000);
    expect((await request("/api/v1/stats", { "x-forwarded-for": "198.18.0.7" })).status).toBe(200);
    expect(store.size).toBe(1);
  });

  test("TRUST_PROXY=fly trusts Fly-Client-IP only; X-Forwarded-For is not an identity there", async () => {
    const { request } = limitedApp({ RATE_LIMIT_MAX: "2", TRUST_PROXY: "fly" });
    const viaXff = await statuses(
      Array.from({ length: 5 }, (_, i) => request("/api/v1/stats", { "x-forwarded-for": `203.0.113.${i}` })),
    );
    expect(count(viaXff, 200)).toBe(2);
    const viaFly = await statuses(
      Array.from({ length: 5 }, (_, i) => request("/api/v1/stats", { "fly-client-ip": `203.0.113.${i}` })),
    );
    expect(count(viaFly, 200)).toBe(5);
  });
});

/** The forwarded header of the `i`-th address of 198.18.0.0/15, as our proxy appends it. */
const forwarded = (i: number) => ({
  "x-forwarded-for": `10.0.0.1, 198.${18 + (i >>> 16)}.${(i >>> 8) & 255}.${i & 255}`,
});
/** A well-formed entry id (known or not, an entry's parts are grouped by it). */
const entryId = (i: number) => i.toString(16).padStart(64, "0");

/** Sends `requests` in batches of 1,000, each answered before the next batch. */
async function flood(requests: (() => Promise<Response>)[]) {
  for (let start = 0; start < requests.length; start += 1000)
    await statuses(requests.slice(start, start + 1000).map((send) => send()));
}

/** How much of its quota each of `n` new clients (addresses from `first` on) has on its first request. */
async function firstRemaining(request: ReturnType<typeof limitedApp>["request"], first: number, n: number) {
  const responses = await Promise.all(
    Array.from({ length: n }, (_, k) => request("/api/v1/stats", forwarded(first + k))),
  );
  return responses.map((r) => Number(r.headers.get("ratelimit-remaining") ?? -1));
}

describe("a flood of addresses and entries behind a trusted proxy", () => {
  const LIMIT = 20;
  const CAPACITY = 2_000;

  test("the documented capacity, reached: 200,000 clients, 3,400 of them reading 60 entries each, then 300 new ones", () => {
    const store = new MemoryRateLimitStore();
    expect(MAX_CLIENTS).toBe(200_000);
    for (let i = 0; i < MAX_CLIENTS - 300; i++) {
      const client = `ip:${i}`;
      store.hit(client, 9);
      if (i < 3_400) for (let e = 0; e < 60; e++) store.hitEntry(client, entryId(e), 9);
    }
    expect(store.size).toBe(MAX_CLIENTS - 300);
    for (let i = 0; i < 300; i++) expect(store.hit(`ip:new-${i}`, 9)).toBe(1);
    expect(store.size).toBe(MAX_CLIENTS);
    expect(store.entryCounters).toBe(MAX_ENTRY_COUNTERS);
  });

  test("up to the store's capacity, every client has a counter of its own: entries read take no client's place", async () => {
    const store = new MemoryRateLimitStore(CAPACITY);
    const { request } = limitedApp({ RATE_LIMIT_MAX: String(LIMIT), TRUST_PROXY: "true" }, undefined, store);
    // 1,700 addresses each read LIMIT distinct entries, then one more request (a 429).
    const flooders = CAPACITY - 300;
    await flood(
      Array.from({ length: flooders * (LIMIT + 1) }, (_, n) => {
        const client = Math.floor(n / (LIMIT + 1));
        const part = n % (LIMIT + 1);
        return () => request(`/api/v1/endpoints/${entryId(client * 100 + part)}`, forwarded(client));
      }),
    );
    expect(store.size).toBe(flooders);
    expect(store.entryCounters).toBe(flooders * LIMIT);
    // 300 new clients, the store now exactly full: each starts with its whole quota.
    expect(new Set(await firstRemaining(request, flooders, 300))).toEqual(new Set([LIMIT - 1]));
    expect(store.size).toBe(CAPACITY);
    // The flood's clients are still counted: their quota stays spent.
    expect((await request("/api/v1/stats", forwarded(7))).status).toBe(429);
  }, 60_000);

  test("beyond it, addresses chosen to reach every shared counter of an unkeyed hash leave new clients their quota", async () => {
    const store = new MemoryRateLimitStore(1_000);
    const { request } = limitedApp({ RATE_LIMIT_MAX: String(LIMIT), TRUST_PROXY: "true" }, undefined, store);
    await flood(Array.from({ length: 1_000 }, (_, i) => () => request("/api/v1/stats", forwarded(i))));
    // An attacker who knows the hash picks one address per shared counter (4,096 of them, as the
    // store once had) and spends each one's quota.
    const chosen: number[] = [];
    const reached = new Set<bigint>();
    for (let i = 1_000; reached.size < 4096; i++) {
      const address = forwarded(i)["x-forwarded-for"].split(", ")[1]!;
      const bucket = Bun.hash.wyhash(`ip:${address}`) % 4096n;
      if (reached.has(bucket)) continue;
      reached.add(bucket);
      chosen.push(i);
    }
    await flood(
      chosen.flatMap((i) => Array.from({ length: LIMIT + 1 }, () => () => request("/api/v1/stats", forwarded(i)))),
    );
    const remaining = await firstRemaining(request, 200_000, 300);
    // A new client shares a counter with one of 4,096 spent addresses with odds of about 6 %.
    expect(remaining.filter((r) => r === LIMIT - 1).length).toBeGreaterThan(255);
  }, 60_000);
});

describe("a real server without TRUST_PROXY", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({
      DATABASE_PATH: fixtureDb().path,
      RATE_LIMIT_MAX: "5",
      RATE_LIMIT_WINDOW_SECONDS: "3600",
      TRUST_PROXY: "",
    });
  }, 30_000);
  afterAll(() => server?.stop());

  test("rotating X-Forwarded-For, Fly-Client-IP and X-Real-IP does not escape the quota of the socket address", async () => {
    const got: number[] = [];
    for (let i = 0; i < 12; i++) {
      const response = await fetch(`${server.baseUrl}/api/v1/stats`, {
        headers: {
          "x-forwarded-for": `198.51.100.${i}`,
          "fly-client-ip": `203.0.113.${i}`,
          "x-real-ip": `192.0.2.${i}`,
          forwarded: `for=192.0.2.${i}`,
        },
      });
      await response.arrayBuffer();
      got.push(response.status);
      if (i < 5) expect(response.headers.get("ratelimit-remaining")).toBe(String(4 - i));
    }
    expect(got).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
  });
});

describe.skipIf(!redisAvailable && !process.env.REDIS_TEST_URL)(
  "the shared (Redis) store under 500 concurrent requests",
  () => {
    let redis: RedisProcess | undefined;
    let url: string;
    beforeAll(async () => {
      if (process.env.REDIS_TEST_URL) url = process.env.REDIS_TEST_URL;
      else {
        redis = await startRedis();
        url = redis.url;
      }
    }, 30_000);
    afterAll(() => redis?.stop());

    test("three instances sharing one Redis allow exactly N of 500 concurrent requests, and say nothing of Redis being down", async () => {
      const warnings: string[] = [];
      const log = createLogger("warn", { write: (line) => warnings.push(line), flush: () => {} });
      const prefix = `hardening-${crypto.randomUUID()}`;
      const stores = [0, 1, 2].map(() => new RedisRateLimitStore(url, log, prefix));
      const apps = stores.map((store) =>
        createTestApp({
          db: fixtureDb(),
          config: loadConfig({ RATE_LIMIT_MAX: "120", RATE_LIMIT_WINDOW_SECONDS: "600", LOG_LEVEL: "error" }),
          rateLimitStore: store,
          log,
        }),
      );
      try {
        const responses = await Promise.all(
          Array.from({ length: 500 }, (_, i) => apps[i % 3]!.handle(new Request("http://localhost/api/v1/stats"))),
        );
        const got = await statuses(responses.map((r) => Promise.resolve(r)));
        expect(count(got, 200)).toBe(120);
        expect(count(got, 429)).toBe(380);
        expect(warnings).toEqual([]); // every hit was counted in Redis, none fell back to a local count
      } finally {
        for (const store of stores) store.close();
      }
    });
  },
);
