/**
 * Availability history through the real pipeline: a real FHIR server on 127.0.0.1 that is
 * stopped and started between probe runs, probe runs on a fake clock, and the API route.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { FormatRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { loadConfig } from "../../../src/config";
import type { Db } from "../../../src/db/client";
import { DAY_MS, urlKey } from "../../../src/db/history-format";
import { probeDue } from "../../../src/pipeline/probe";
import { AvailabilityResponse } from "../../../src/server/availability/schemas";
import { fixture, insertEntry, tempDb } from "../../pipeline/probe/helpers";
import { createTestApp } from "../../support/app";

const R4 = fixture("r4-capability.json");
const SMART = fixture("smart-patient.json");

/** A FHIR server on a fixed port that can go down (port closed) and come back. */
function flakyServer() {
  const start = (port = 0) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path.endsWith("/metadata"))
          return new Response(R4, { headers: { "content-type": "application/fhir+json" } });
        if (path.endsWith("/.well-known/smart-configuration"))
          return new Response(SMART, { headers: { "content-type": "application/json" } });
        return new Response("not found", { status: 404 });
      },
    });
  let server: ReturnType<typeof start> | null = start();
  const port = server.port!;
  return {
    url: (path: string) => `http://127.0.0.1:${port}/${path}`,
    up() {
      server ??= start(port);
    },
    down() {
      server?.stop(true);
      server = null;
    },
    stop() {
      server?.stop(true);
    },
  };
}

// Elysia registers TypeBox's string formats itself; a plain Value check needs date-time too.
if (!FormatRegistry.Has("date-time"))
  FormatRegistry.Set("date-time", (v) => /^\d{4}-\d\d-\d\dT/.test(v) && !Number.isNaN(Date.parse(v)));

const flaky = flakyServer();
const steady = flakyServer();
afterAll(() => {
  flaky.stop();
  steady.stop();
});

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

// Day 0 of the fake clock: its 420 days lie wholly in the past, since a write dated after the
// machine's clock is recorded at the machine's time instead (src/db/write-clock.ts), and warns.
const START = Date.parse("2024-01-01T04:00:00.000Z");
const at = (day: number) => START + day * DAY_MS;

/** One probe run at `day` (04:00 UTC, fake clock) of every URL due. */
async function runAt(db: Db, day: number, writeInWorker = true) {
  return probeDue(db, {
    now: () => new Date(at(day)),
    staleAfterMs: 0,
    allowPrivate: true,
    timeoutMs: 2_000,
    writeInWorker,
  });
}

async function availability(db: Db, id: string, init?: RequestInit) {
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
  try {
    const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/availability`, init));
    const body = response.status === 304 ? null : ((await response.json()) as any);
    // Every answer matches the documented response schema.
    if (response.status === 200) expect(Value.Errors(AvailabilityResponse, body).First()).toBeUndefined();
    return { response, body };
  } finally {
    app.directory.close();
  }
}

describe("availability of a server that goes down and comes back", () => {
  test("exact uptime, response times present, last success and failure, recent newest first; shared by entries on the URL", async () => {
    const url = flaky.url("fhir/r4");
    const id = insertEntry(ctx.db, { url });
    const twin = insertEntry(ctx.db, { url, vendorId: "other" });
    // Day by day: U = up, D = down (port closed).
    const pattern = "UUDUDDUUUU";
    const summaries = [];
    try {
      for (let day = 0; day < pattern.length; day++) {
        if (pattern[day] === "U") flaky.up();
        else flaky.down();
        summaries.push(await runAt(ctx.db, day));
      }
    } finally {
      flaky.up();
    }
    expect(summaries.map((s) => s.answered).join("")).toBe("1101001111");
    // The last run's URL answered 7 of its 10 probes within 30 days: < 90 %.
    expect(summaries.at(-1)!.uptime30d).toEqual({ high: 0, medium: 0, low: 1, never: 0 });
    expect(summaries[2]!.uptime30d).toEqual({ high: 0, medium: 0, low: 1, never: 0 });
    expect(summaries[0]!.uptime30d).toEqual({ high: 1, medium: 0, low: 0, never: 0 });

    const { response, body } = await availability(ctx.db, id);
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toBeTruthy();
    const data = body.data;
    expect(data.endpointId).toBe(id);
    expect(data.url).toBe(url);
    expect(data.lastProbed).toBe(new Date(at(9)).toISOString());
    // 1d: day 9 only. 7d: days 3–9 (day 2 is exactly 7 days old: outside). 30d and 365d: all ten.
    expect(data.uptime).toEqual({ "1d": 1, "7d": 0.7143, "30d": 0.7, "365d": 0.7 });
    expect(data.lastSuccessAt).toBe(new Date(at(9)).toISOString());
    expect(data.lastFailureAt).toBe(new Date(at(5)).toISOString());
    expect(Number.isInteger(data.responseTimeMs.median)).toBe(true);
    expect(data.responseTimeMs.p95).toBeGreaterThanOrEqual(data.responseTimeMs.median);
    expect(data.recent.map((r: { at: string }) => r.at)).toEqual(
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((d) => new Date(at(d)).toISOString()),
    );
    expect(data.recent.map((r: { outcome: string }) => (r.outcome === "success" ? "U" : "D")).join("")).toBe(
      [...pattern].reverse().join(""),
    );
    const down = data.recent[4];
    expect(down).toEqual({
      at: new Date(at(5)).toISOString(),
      outcome: "failed",
      httpStatus: null,
      smartHttpStatus: null,
      responseTimeMs: null,
      error: "refused",
    });
    const up = data.recent[0];
    expect(up).toMatchObject({ outcome: "success", httpStatus: 200, smartHttpStatus: 200, error: null });
    expect(up.responseTimeMs).toBeGreaterThanOrEqual(0);

    const shared = (await availability(ctx.db, twin)).body.data;
    expect({ ...shared, endpointId: id }).toEqual(data);
  }, 30_000);

  test("a probe exactly 24 h old is outside the 1-day window, inside the 7-day one", async () => {
    const id = insertEntry(ctx.db, { url: flaky.url("edge/r4") });
    await runAt(ctx.db, 0);
    flaky.down();
    try {
      await runAt(ctx.db, 1);
    } finally {
      flaky.up();
    }
    const data = (await availability(ctx.db, id)).body.data;
    expect(data.uptime).toEqual({ "1d": 0, "7d": 0.5, "30d": 0.5, "365d": 0.5 });
    expect(data.recent.map((r: { error: string | null }) => r.error)).toEqual(["refused", null]);
  });

  test("ETag per dataset version: 304 while nothing changed, a new one after the next probe run", async () => {
    const id = insertEntry(ctx.db, { url: steady.url("etag/r4") });
    await runAt(ctx.db, 0);
    const first = await availability(ctx.db, id);
    const etag = first.response.headers.get("etag")!;
    expect((await availability(ctx.db, id, { headers: { "if-none-match": etag } })).response.status).toBe(304);
    await runAt(ctx.db, 1);
    const second = await availability(ctx.db, id, { headers: { "if-none-match": etag } });
    expect(second.response.status).toBe(200);
    expect(second.response.headers.get("etag")).not.toBe(etag);
    expect(second.body.data.recent).toHaveLength(2);
  });

  test("an entry never probed: nulls and no recent probes; unknown id 404; any query parameter 400", async () => {
    const id = insertEntry(ctx.db, { url: "https://never.example/fhir" });
    const { response, body } = await availability(ctx.db, id);
    expect(response.status).toBe(200);
    expect(body.data).toEqual({
      endpointId: id,
      url: "https://never.example/fhir",
      lastProbed: null,
      uptime: { "1d": null, "7d": null, "30d": null, "365d": null },
      responseTimeMs: { median: null, p95: null },
      lastSuccessAt: null,
      lastFailureAt: null,
      recent: [],
    });
    const missing = await availability(ctx.db, "f".repeat(64));
    expect(missing.response.status).toBe(404);
    expect(missing.body.error.code).toBe("ENDPOINT_NOT_FOUND");
    const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
    try {
      const bad = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/availability?window=7d`));
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).error).toEqual({
        code: "VALIDATION_ERROR",
        message: "window: unknown parameter",
      });
    } finally {
      app.directory.close();
    }
  });
});

describe("retention on a fake clock across 420 days", () => {
  test("raw probes 30 days, daily figures 400 days, a URL no longer probed is rolled up then dropped", async () => {
    const a = insertEntry(ctx.db, { url: steady.url("daily/r4") });
    const b = insertEntry(ctx.db, { url: flaky.url("gone/r4") });
    const sizes = (url: string) =>
      ctx.db.sqlite
        .prepare("SELECT length(records) / 14 AS n, length(days) / 4 AS d FROM probe_history WHERE url_key = ?1")
        .get(urlKey(url)) as { n: number; d: number | null } | null;
    // A answers every day except each tenth; B answers its first five days, then leaves the list.
    for (let day = 0; day < 420; day++) {
      if (day === 5) ctx.db.sqlite.prepare("UPDATE entries SET status = 'removed' WHERE id = ?1").run(b);
      if (day % 10 === 0) steady.down();
      try {
        await runAt(ctx.db, day, false);
      } finally {
        steady.up();
      }
      if (day === 100) {
        // B: raw records rolled up by the run's sweep, five days of figures left.
        expect(sizes(flaky.url("gone/r4"))).toEqual({ n: 0, d: 5 });
        const gone = (await availability(ctx.db, b)).body.data;
        expect(gone.recent).toEqual([]);
        expect(gone.uptime).toEqual({ "1d": null, "7d": null, "30d": null, "365d": 1 });
        expect(gone.lastSuccessAt).toBe(new Date(at(4)).toISOString());
        expect(gone.lastProbed).toBe(new Date(at(4)).toISOString());
      }
    }
    // Raw: today and the 30 days before (days 389–419); figures: the 370 days before those.
    expect(sizes(steady.url("daily/r4"))).toEqual({ n: 31, d: 370 });
    const data = (await availability(ctx.db, a)).body.data;
    // 30d: days 390–419 (day 389 is exactly 30 days old), down on 390, 400, 410.
    // 365d: days 55–419 (raw 389–419, whole days 55–388), 36 of them a tenth day.
    expect(data.uptime).toEqual({ "1d": 1, "7d": 1, "30d": 0.9, "365d": Math.round((329 / 365) * 10_000) / 10_000 });
    expect(data.recent).toHaveLength(20);
    expect(data.lastFailureAt).toBe(new Date(at(410)).toISOString());
    // B: nothing within 400 days: its row is gone; lastProbed still comes from its probe.
    expect(sizes(flaky.url("gone/r4"))).toBeNull();
    const gone = (await availability(ctx.db, b)).body.data;
    expect(gone.lastProbed).toBe(new Date(at(4)).toISOString());
    expect(gone.uptime["365d"]).toBeNull();
    expect(gone.lastSuccessAt).toBeNull();
  }, 120_000);
});
