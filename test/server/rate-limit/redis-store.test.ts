import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { createLogger } from "../../../src/logger";
import { RedisRateLimitStore } from "../../../src/server/rate-limit/redis-store";
import { createTestApp } from "../../support/app";
import { fixtureDb, get } from "../../support/fixture";
import { type RedisProcess, redisRuns, startRedis } from "../../support/redis-server";

// CI installs redis-server and starts one (.ci/run, REDIS_TEST_URL); elsewhere the tests need it installed.
const skip = !redisRuns;
let redis: RedisProcess | undefined;
let sharedUrl: string;
const warnings: string[] = [];
const log = createLogger("warn", { write: (line) => warnings.push(line), flush: () => {} });

beforeAll(async () => {
  if (skip) return;
  if (process.env.REDIS_TEST_URL) sharedUrl = process.env.REDIS_TEST_URL;
  else {
    redis = await startRedis();
    sharedUrl = redis.url;
  }
});
afterAll(async () => {
  await redis?.stop();
});

function instance(store: RedisRateLimitStore, max: number) {
  return createTestApp({
    db: fixtureDb(),
    config: loadConfig({ RATE_LIMIT_MAX: String(max), RATE_LIMIT_WINDOW_SECONDS: "600" }),
    rateLimitStore: store,
    log,
  });
}

describe.skipIf(skip)("rate limits shared through Redis", () => {
  test("two instances on one Redis share a quota of N: across 200 concurrent requests exactly N succeed", async () => {
    const prefix = `test-${crypto.randomUUID()}`;
    const stores = [new RedisRateLimitStore(sharedUrl, log, prefix), new RedisRateLimitStore(sharedUrl, log, prefix)];
    const apps = stores.map((store) => instance(store, 37));
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => apps[i % 2]!.handle(new Request("http://localhost/api/v1/stats"))),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(37);
    expect(statuses.filter((s) => s === 429)).toHaveLength(163);
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get("ratelimit-remaining")));
    expect(new Set(remaining).size).toBe(37);
    for (const store of stores) store.close();
  });

  test("Redis stopped mid-run: requests are still answered, counted locally, and /health stays 200", async () => {
    const own = await startRedis();
    const store = new RedisRateLimitStore(own.url, log, `test-${crypto.randomUUID()}`);
    const app = instance(store, 1000);
    for (let i = 0; i < 5; i++) expect((await get(app, "/api/v1/stats")).status).toBe(200);
    await own.stop();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const { status, response } = await get(app, "/api/v1/stats");
      expect(status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBe("1000");
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await get(app, "/health")).status).toBe(200);
    expect(warnings.filter((line) => line.includes("redis unavailable"))).toHaveLength(1);
    store.close();
  });
});
