import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import type { Db } from "../../../src/db/client";
import { MemoryRateLimitStore } from "../../../src/server/rate-limit/memory-store";
import type { RateLimitStore } from "../../../src/server/rate-limit/store";
import { createTestApp } from "../../support/app";
import { fixtureDb, get } from "../../support/fixture";

// An entry kept out of the listings still answers by id with the spec's record, and says why in
// `meta.unusable`; the direct routes (src/server/bypass/direct-routes.ts) answer it exactly as
// the app's hooks do. Two servers on the same data, over real HTTP on 127.0.0.1.
const URL_OF_ENTRY = "https://fhir.mgh.example/api/FHIR/R4";
const DETAIL = "the URL is a document (.html, .pdf), not a FHIR server's base";
const env = { LOG_LEVEL: "error", RATE_LIMIT_MAX: "0" };
const clock = () => new Date("2026-11-25T12:00:10.000Z");

function unusableFixture(): Db {
  const db = fixtureDb();
  db.sqlite
    .prepare("UPDATE entries SET unusable = 'web-page', unusable_detail = ? WHERE url = ?")
    .run(DETAIL, URL_OF_ENTRY);
  return db;
}

function awaitedStore(): RateLimitStore {
  const memory = new MemoryRateLimitStore();
  return {
    synchronous: false,
    hit: async (client, window) => memory.hit(client, window),
    peek: async (client, window) => memory.peek(client, window),
    hitEntry: async (client, entry, window) => memory.hitEntry(client, entry, window),
  };
}

describe("an unusable entry by id", () => {
  const served = createTestApp({ db: unusableFixture(), config: loadConfig(env), clock });
  const reference = createTestApp({
    db: unusableFixture(),
    config: loadConfig(env),
    clock,
    rateLimitStore: awaitedStore(),
  });
  let direct: string;
  let app: string;
  let id: string;
  let usable: string;

  beforeAll(() => {
    served.listen({ port: 0, hostname: "127.0.0.1" });
    reference.listen({ port: 0, hostname: "127.0.0.1" });
    direct = `http://127.0.0.1:${served.server!.port}/api/v1/endpoints`;
    app = `http://127.0.0.1:${reference.server!.port}/api/v1/endpoints`;
    const db = served.directory.current;
    id = db.read(
      (sqlite) => sqlite.prepare("SELECT id FROM entries WHERE url = ?").values(URL_OF_ENTRY)[0]![0],
    ) as string;
    usable = db.read(
      (sqlite) => sqlite.prepare("SELECT id FROM entries WHERE url != ? LIMIT 1").values(URL_OF_ENTRY)[0]![0],
    ) as string;
  });
  afterAll(() => {
    served.stop();
    reference.stop();
  });

  test("the record, capabilities, availability and source say why in meta.unusable; the direct routes answer the same", async () => {
    for (const suffix of ["", "/capabilities", "/availability", "/source"]) {
      const fast = await fetch(`${direct}/${id}${suffix}`, { headers: { "accept-encoding": "identity" } });
      const slow = await fetch(`${app}/${id}${suffix}`, { headers: { "accept-encoding": "identity" } });
      const text = await fast.text();
      expect([suffix, fast.status, text]).toEqual([suffix, 200, await slow.text()]);
      const body = JSON.parse(text);
      expect([suffix, body.meta]).toEqual([suffix, { unusable: { reason: "web-page", detail: DETAIL } }]);
      expect(body.data.endpointId ?? body.data.id).toBe(id);
    }
    const record = (await (await fetch(`${direct}/${id}`)).json()) as { data: Record<string, unknown> };
    expect(Object.keys(record.data)).toContain("status");
    expect(record.data.url).toBe(URL_OF_ENTRY);
  });

  test("a listed entry's answers have no meta", async () => {
    for (const suffix of ["", "/capabilities", "/availability", "/source"]) {
      const body = (await (await fetch(`${direct}/${usable}${suffix}`)).json()) as object;
      expect([suffix, "meta" in body]).toEqual([suffix, false]);
    }
  });

  test("the answers are ones the OpenAPI document allows, and the entry is not listed", async () => {
    for (const suffix of ["", "/capabilities", "/availability", "/source"]) {
      const { status, body } = await get(served, `/api/v1/endpoints/${id}${suffix}`);
      expect([suffix, status, body.meta.unusable.reason]).toEqual([suffix, 200, "web-page"]);
    }
    const list = await get(served, "/api/v1/endpoints?limit=100");
    expect(list.body.data.map((r: { id: string }) => r.id)).not.toContain(id);
  });
});
