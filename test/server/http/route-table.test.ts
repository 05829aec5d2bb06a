import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { loadConfig } from "../../../src/config";
import { exchanges } from "../../../src/server/http/exchange";
import { jsonResponse } from "../../../src/server/http/json";
import { routeOptions } from "../../../src/server/http/route-options";
import { createTestApp } from "../../support/app";
import { fixtureDb } from "../../support/fixture";
import { requestLog } from "../../support/request-log";

/**
 * A route added to the app, and nothing else, is enough for 405s (with its Allow), metric labels
 * and rate limiting to follow it: no list of paths is kept beside the routes.
 */
function appWithThrowawayRoutes(rateLimitMax = "100") {
  const { log, logged } = requestLog("info");
  const app = createTestApp({
    log,
    db: fixtureDb(),
    config: loadConfig({ RATE_LIMIT_MAX: rateLimitMax, LOG_LEVEL: "error" }),
    clock: () => new Date("2026-11-25T12:00:10.000Z"),
  });
  app.use(
    new Elysia({ name: "throwaway" })
      .use(routeOptions)
      .use(exchanges)
      .get("/api/v1/throwaway/:name", ({ exchange, params }) => jsonResponse(exchange, 200, JSON.stringify(params)))
      .get("/api/v1/writable", ({ exchange }) => jsonResponse(exchange, 200, '"read"'))
      .post("/api/v1/writable", ({ exchange }) => jsonResponse(exchange, 200, '"written"'))
      .get("/static/:hashed", ({ exchange }) => jsonResponse(exchange, 200, "{}"), { rateLimit: false }),
  );
  const send = (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));
  return { app, send, logged };
}

describe("routes know themselves", () => {
  test("a method a new route does not take is 405 with that route's Allow; an unknown path stays 404", async () => {
    const { send } = appWithThrowawayRoutes();
    const post = await send("/api/v1/throwaway/x", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe("METHOD_NOT_ALLOWED");
    const del = await send("/api/v1/writable", { method: "DELETE" });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
    expect(((await del.json()) as { error: { message: string } }).error.message).toBe(
      "DELETE is not allowed here; use GET or POST",
    );
    expect((await send("/api/v1/writable", { method: "POST" })).status).toBe(200);
    expect((await send("/api/v1/throwaway", { method: "POST" })).status).toBe(404);
    expect((await send("/api/v1/throwaway/x/y", { method: "POST" })).status).toBe(404);
    const preflight = await send("/api/v1/writable", { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST, OPTIONS");
  });

  test("metrics label requests with the new route's pattern", async () => {
    const { send, logged } = appWithThrowawayRoutes();
    await send("/api/v1/throwaway/one");
    await send("/api/v1/throwaway/two");
    await send("/api/v1/throwaway/three", { method: "PUT" });
    await send("/static/app.0123abcd.js");
    await logged(4); // metrics are recorded with the log line, after the response is sent
    const metrics = await (await send("/metrics")).text();
    expect(metrics).toContain('http_requests_total{route="/api/v1/throwaway/:name",method="GET",status="200"} 2');
    expect(metrics).toContain('http_requests_total{route="/api/v1/throwaway/:name",method="PUT",status="405"} 1');
    expect(metrics).toContain('http_requests_total{route="/static/:hashed",method="GET",status="200"} 1');
    expect(metrics).not.toContain("unmatched");
  });

  test("the new route is rate limited, unless it says rateLimit: false", async () => {
    const { send } = appWithThrowawayRoutes("2");
    const limited = [];
    for (let i = 0; i < 3; i++) limited.push(await send(`/api/v1/throwaway/${i}`));
    expect(limited.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(limited[0]!.headers.get("ratelimit-remaining")).toBe("1");
    expect(limited[2]!.headers.get("retry-after")).not.toBeNull();
    for (let i = 0; i < 5; i++) {
      const asset = await send(`/static/app.${i}.css`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("ratelimit-limit")).toBeNull();
    }
  });

  test("the OpenAPI document marks the routes that are not rate limited", async () => {
    const { send } = appWithThrowawayRoutes();
    const doc = (await (await send("/docs/json")).json()) as {
      paths: Record<string, { get: Record<string, unknown> }>;
    };
    expect(doc.paths["/health"]?.get["x-rate-limited"]).toBe(false);
    expect(doc.paths["/api/v1/stats"]?.get["x-rate-limited"]).toBeUndefined();
  });
});
