import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { createLogger } from "../../../src/logger";
import { createTestApp } from "../../support/app";
import { fixtureDb, get } from "../../support/fixture";

function appWithLog() {
  const lines: string[] = [];
  const log = createLogger("info", { write: (line) => lines.push(line), flush: () => {} });
  const app = createTestApp({
    db: fixtureDb(),
    config: loadConfig({ RATE_LIMIT_MAX: "2" }),
    log,
    clock: () => new Date("2026-11-21T10:00:00.000Z"),
  });
  return { app, requests: () => lines.map((l) => JSON.parse(l)).filter((l) => l.message === "request") };
}

describe("request logs", () => {
  test("one JSON line per request with request id, method, path, status, duration and a hashed client", async () => {
    const { app, requests } = appWithLog();
    const { response } = await get(app, "/api/v1/endpoints?state=MA", { headers: { "x-request-id": "trace-1" } });
    await get(app, "/nope");
    await Bun.sleep(5);
    const [first, second] = requests();
    expect(first).toMatchObject({
      level: "info",
      requestId: "trace-1",
      method: "GET",
      path: "/api/v1/endpoints",
      route: "/api/v1/endpoints",
      status: 200,
    });
    expect(response.headers.get("x-request-id")).toBe("trace-1");
    expect(typeof first.durationMs).toBe("number");
    expect(first.client).toMatch(/^ip:[0-9a-f]{12}$/);
    expect(second).toMatchObject({ path: "/nope", status: 404 });
    expect(requests()).toHaveLength(2);
  });
});

describe("GET /metrics", () => {
  test("Prometheus text: requests by route and status, latency histogram, rejections, dataset size and age", async () => {
    const { app } = appWithLog();
    await get(app, "/api/v1/stats");
    await get(app, "/api/v1/stats");
    await get(app, "/api/v1/stats");
    await Bun.sleep(5);
    const response = await app.handle(new Request("http://localhost/metrics"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain('http_requests_total{route="/api/v1/stats",method="GET",status="200"} 2');
    expect(text).toContain('http_requests_total{route="/api/v1/stats",method="GET",status="429"} 1');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{route="\/api\/v1\/stats",le="\+Inf"\} 3/);
    expect(text).toContain("rate_limit_rejections_total 1");
    // The fixture's entries that are listed (its removed one is not counted).
    expect(text).toContain("dataset_entries 11");
    expect(text).toContain("dataset_age_seconds 3600");
  });

  test("made-up methods are counted under one OTHER label, never under their own names", async () => {
    const { app } = appWithLog();
    for (const method of ["PROPFIND", "MKCOL", "UNLOCK"])
      await app.handle(new Request("http://localhost/api/v1/stats", { method }));
    await Bun.sleep(5);
    const text = await (await app.handle(new Request("http://localhost/metrics"))).text();
    const series = text
      .split("\n")
      .filter((line) => line.startsWith("http_requests_total{") && line.includes('method="OTHER"'));
    expect(series.reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0)).toBe(3);
    expect(text).not.toContain("PROPFIND");
  });
});
