import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { createApiKey } from "../../src/db/api-keys";
import { createTestApp } from "../support/app";
import { fixtureDb } from "../support/fixture";
import { seedDatabase } from "../support/seed";
import { tempDbPath } from "../support/temp-db";

/**
 * The HTTP conventions a generic client or cache relies on, through a real server on 127.0.0.1
 * (so the direct routes by id and the cached answers are the ones answering).
 */
const db = fixtureDb();
const { key } = createApiKey(db, { name: "conventions", now: "2026-11-25T00:00:00Z" });
const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "1000" }) });
let base: string;
let ids: string[];
let total: number;

beforeAll(async () => {
  app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${app.server!.port}`;
  const list = (await (await fetch(`${base}/api/v1/endpoints?limit=100`)).json()) as {
    data: { id: string }[];
    meta: { total: number };
  };
  ids = list.data.map((entry) => entry.id);
  total = list.meta.total;
});
afterAll(() => app.stop());

const dataPaths = () => [
  "/api/v1/endpoints",
  "/api/v1/endpoints?state=MA",
  `/api/v1/endpoints/${ids[0]}`,
  `/api/v1/endpoints/${ids[1]}/capabilities`,
  `/api/v1/endpoints/${ids[2]}/availability`,
  "/api/v1/vendors",
  "/api/v1/stats",
  "/api/v1/export?format=ndjson",
];

/** Parses a Link header into rel → target. */
const links = (header: string | null) =>
  Object.fromEntries(
    (header ?? "")
      .split(/,\s*(?=<)/)
      .filter(Boolean)
      .map((link) => {
        const [, target, rel] = /^<([^>]*)>;\s*rel="([^"]+)"$/.exec(link.trim())!;
        return [rel!, target!];
      }),
  );

describe("HTTP conventions", () => {
  test("every cacheable answer varies by the key headers, first time and cached, 200 and 304", async () => {
    for (const path of dataPaths())
      for (let round = 0; round < 2; round++) {
        const response = await fetch(`${base}${path}`, { headers: { "x-api-key": key } });
        await response.arrayBuffer();
        const vary = (response.headers.get("vary") ?? "").split(/,\s*/).map((name) => name.toLowerCase());
        expect({ path, vary }).toEqual({ path, vary: expect.arrayContaining(["authorization", "x-api-key"]) });
        const again = await fetch(`${base}${path}`, { headers: { "if-none-match": response.headers.get("etag")! } });
        expect(again.status).toBe(304);
        expect(again.headers.get("vary")).toBe(response.headers.get("vary"));
      }
  });

  test("CORS exposes Content-Disposition, Allow and Link", async () => {
    for (const path of ["/api/v1/endpoints", "/api/v1/export?format=csv", "/health"]) {
      const response = await fetch(`${base}${path}`, { headers: { origin: "https://elsewhere.example" } });
      await response.arrayBuffer();
      const exposed = (response.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(["Content-Disposition", "Allow", "Link", "ETag"]));
    }
  });

  test("a 401 says how to authenticate (WWW-Authenticate), on the direct routes too", async () => {
    for (const path of ["/api/v1/vendors", `/api/v1/endpoints/${ids[0]}`]) {
      const response = await fetch(`${base}${path}`, { headers: { authorization: "Bearer wrong" } });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="endpoint-directory"/);
    }
  });

  test("the list links its first, previous, next and last pages (RFC 8288)", async () => {
    const limit = 3;
    const last = Math.ceil(total / limit);
    expect(last).toBeGreaterThan(2);
    const at = async (page: number) => {
      const response = await fetch(`${base}/api/v1/endpoints?limit=${limit}&page=${page}`);
      await response.arrayBuffer();
      return links(response.headers.get("link"));
    };
    const page = (n: number) => `/api/v1/endpoints?limit=${limit}&page=${n}`;
    expect(await at(1)).toEqual({ first: page(1), next: page(2), last: page(last) });
    expect(await at(2)).toEqual({ first: page(1), prev: page(1), next: page(3), last: page(last) });
    expect(await at(last)).toEqual({ first: page(1), prev: page(last - 1), last: page(last) });
    // Past the end: back to the last page, nothing further.
    expect(await at(last + 5)).toEqual({ first: page(1), prev: page(last), last: page(last) });
    // Following the links visits every entry once.
    const seen: string[] = [];
    let next: string | undefined = page(1);
    while (next !== undefined) {
      const response: Response = await fetch(`${base}${next}`);
      seen.push(...((await response.json()) as { data: { id: string }[] }).data.map((entry) => entry.id));
      next = links(response.headers.get("link")).next;
    }
    expect(seen.sort()).toEqual([...ids].sort());
    // The filters stay; an empty result has one page.
    const none = await fetch(`${base}/api/v1/endpoints?vendor=nobody`);
    expect(links(none.headers.get("link"))).toEqual({
      first: "/api/v1/endpoints?vendor=nobody&page=1",
      last: "/api/v1/endpoints?vendor=nobody&page=1",
    });
  });

  test("the last page linked is at most page 1000, and it links no next page", async () => {
    const entries = Array.from({ length: 1_001 }, (_, i) => ({
      vendorId: "v",
      url: `https://fhir${i}.example.org/r4`,
      organizationName: `Clinic ${String(i).padStart(4, "0")}`,
    }));
    const big = createTestApp({
      db: seedDatabase(tempDbPath(), { vendors: [{ id: "v", name: "Vendor" }], entries }),
      config: loadConfig({ RATE_LIMIT_MAX: "0" }),
    });
    const linksOf = async (page: number) =>
      links(
        (await big.handle(new Request(`http://localhost/api/v1/endpoints?limit=1&page=${page}`))).headers.get("link"),
      );
    expect((await linksOf(1)).last).toBe("/api/v1/endpoints?limit=1&page=1000");
    expect(await linksOf(1000)).toEqual({
      first: "/api/v1/endpoints?limit=1&page=1",
      prev: "/api/v1/endpoints?limit=1&page=999",
      last: "/api/v1/endpoints?limit=1&page=1000",
    });
  });

  test("Last-Modified is the dataset's refresh time; If-Modified-Since answers 304 beside the ETag", async () => {
    const stats = (await (await fetch(`${base}/api/v1/stats`)).json()) as { data: { lastUpdated: string } };
    const expected = new Date(stats.data.lastUpdated).toUTCString();
    for (const path of dataPaths()) {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      expect({ path, lastModified: response.headers.get("last-modified") }).toEqual({ path, lastModified: expected });
      const since = (date: string, extra: Record<string, string> = {}) =>
        fetch(`${base}${path}`, { headers: { "if-modified-since": date, ...extra } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        });
      expect({ path, status: await since(expected) }).toEqual({ path, status: 304 });
      const earlier = new Date(Date.parse(expected) - 1000).toUTCString();
      expect({ path, status: await since(earlier) }).toEqual({ path, status: 200 });
      expect(await since("not a date")).toBe(200);
      // An If-None-Match that does not match wins over a current If-Modified-Since (RFC 9110).
      expect(await since(expected, { "if-none-match": 'W/"other"' })).toBe(200);
    }
  });

  test("every answer carries Date, HEAD included: data, FHIR, docs, page, errors, 304", async () => {
    const paths = [
      ...dataPaths(),
      "/health",
      "/api/v1/export?format=csv",
      "/fhir/metadata",
      "/fhir/Endpoint?_count=1",
      `/fhir/Endpoint/${"0".repeat(64)}`,
      "/docs",
      "/docs/json",
      "/",
      "/api/v1/vendors?unknown=1",
      "/no/such/route",
    ];
    for (const method of ["GET", "HEAD"])
      for (const path of paths) {
        const response = await fetch(`${base}${path}`, { method });
        await response.arrayBuffer();
        const date = response.headers.get("date");
        expect({ method, path, date }).toEqual({ method, path, date: expect.stringMatching(/ GMT$/) });
        // An HTTP-date within a few seconds of now.
        expect(Math.abs(Date.parse(date!) - Date.now())).toBeLessThan(5_000);
        const etag = response.headers.get("etag");
        if (etag === null) continue;
        const again = await fetch(`${base}${path}`, { method, headers: { "if-none-match": etag } });
        expect({ method, path, status: again.status, date: again.headers.has("date") }).toEqual({
          method,
          path,
          status: 304,
          date: true,
        });
      }
  });
});
