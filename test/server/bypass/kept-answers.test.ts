/**
 * A repeated request for a data URL is answered from the answer built for the current dataset
 * version, before routing: it must be indistinguishable from the first answer (body, ETag,
 * headers), still be rate limited, logged and counted, and never outlive its dataset version.
 */
import { expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { markDatasetChanged } from "../../../src/db/dataset-meta";
import { createTestApp } from "../../support/app";
import { fixtureDb } from "../../support/fixture";
import { requestLog } from "../../support/request-log";

function appWithLog(env: Record<string, string> = {}) {
  const { log, requests, logged } = requestLog();
  const db = fixtureDb();
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "5", ...env }), log });
  return { app, db, requests, logged };
}

const PER_REQUEST = new Set(["x-request-id", "ratelimit-remaining", "ratelimit-reset", "date"]);
const stableHeaders = (response: Response) => [...response.headers].filter(([name]) => !PER_REQUEST.has(name));

test.each(["/api/v1/endpoints?state=TX&limit=2", "/api/v1/vendors", "/api/v1/stats"])(
  "%s: the repeat equals the first answer, and is logged and counted",
  async (path) => {
    const { app, requests, logged } = appWithLog();
    const first = await app.handle(new Request(`http://localhost${path}`));
    const again = await app.handle(new Request(`http://localhost${path}`));
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(await first.text());
    expect(stableHeaders(again)).toEqual(stableHeaders(first));
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(Number(again.headers.get("ratelimit-remaining"))).toBe(Number(first.headers.get("ratelimit-remaining")) - 1);
    await logged(2);
    const lines = requests().filter((line) => line.path === path.split("?")[0]);
    expect(lines.map((line) => [line.status, line.route])).toEqual([
      [200, path.split("?")[0]],
      [200, path.split("?")[0]],
    ]);
    const metrics = await (await app.handle(new Request("http://localhost/metrics"))).text();
    expect(metrics).toContain(`http_requests_total{route="${path.split("?")[0]}",method="GET",status="200"} 2`);
  },
);

test("a cached URL is still rate limited", async () => {
  const { app } = appWithLog({ RATE_LIMIT_MAX: "2" });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await app.handle(new Request("http://localhost/api/v1/stats"))).status);
  expect(statuses).toEqual([200, 200, 429, 429]);
});

test("compressed and plain answers of one URL are cached apart, each equal to a fresh build", async () => {
  const { app } = appWithLog({ RATE_LIMIT_MAX: "100" });
  const path = "http://localhost/api/v1/endpoints?limit=100";
  const plain = await (await app.handle(new Request(path))).text();
  for (let i = 0; i < 2; i++) {
    const zipped = await app.handle(new Request(path, { headers: { "accept-encoding": "gzip" } }));
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(plain);
  }
  expect(await (await app.handle(new Request(path))).text()).toBe(plain);
});

test("after a refresh writes a new dataset version, the same URL answers from the new version", async () => {
  const { app, db } = appWithLog({ RATE_LIMIT_MAX: "100" });
  const path = "http://localhost/api/v1/endpoints?state=NH";
  const before = (await (await app.handle(new Request(path))).json()) as { data: { organizationName: string }[] };
  expect(before.data.map((e) => e.organizationName)).toEqual(["Valley Regional"]);
  db.sqlite.run(
    "UPDATE entries SET organization_name = 'Valley Regional Hospital' WHERE organization_name = 'Valley Regional'",
  );
  markDatasetChanged(db.sqlite, "2026-11-26T00:00:00.000Z");
  expect(await app.directory.refreshIfChanged()).toBe(true);
  const after = (await (await app.handle(new Request(path))).json()) as { data: { organizationName: string }[] };
  expect(after.data.map((e) => e.organizationName)).toEqual(["Valley Regional Hospital"]);
});

test("HEAD of a cached URL: the GET's status and headers, no body", async () => {
  const { app } = appWithLog();
  const get = await app.handle(new Request("http://localhost/api/v1/stats"));
  const head = await app.handle(new Request("http://localhost/api/v1/stats", { method: "HEAD" }));
  expect(head.status).toBe(200);
  expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
  expect(await head.text()).toBe("");
});
