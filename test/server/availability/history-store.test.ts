/** The stored history, written through recordProbes with chosen results and read through the route. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import {
  DAY_MS,
  decodeDay,
  decodeRecord,
  encodeRecord,
  type HistoryRecord,
  rollUp,
} from "../../../src/db/history-format";
import { recordProbes } from "../../../src/pipeline/probe";
import { pruneHistory } from "../../../src/pipeline/probe/history";
import type { StorableResult } from "../../../src/pipeline/probe/record";
import { bareSummary, datasetVersion, insertEntry, tempDb } from "../../pipeline/probe/helpers";
import { createTestApp } from "../../support/app";
import { futureWriteClaims, stderrLines } from "../../support/stderr";

const SUMMARY = bareSummary("R4");

/** A result: `meta` = /metadata's status and time (ok when 200), `smart` likewise. */
function result(meta: number | null, ms: number, smart: number | null = meta): StorableResult {
  const metaOk = meta === 200;
  const smartOk = smart === 200;
  return {
    probeStatus: metaOk && smartOk ? "success" : metaOk || smartOk ? "partial" : "failed",
    entryStatus: metaOk ? "verified" : meta === null ? "unresponsive" : null,
    errorKind: metaOk ? null : meta === null ? "dns" : "http_status",
    durationMs: ms,
    summary: SUMMARY,
    access: null,
    metadata: {
      ok: metaOk,
      httpStatus: meta,
      body: metaOk ? '{"resourceType":"CapabilityStatement"}' : null,
      errorKind: metaOk ? null : meta === null ? "dns" : "http_status",
      durationMs: ms,
    },
    smart: { ok: smartOk, httpStatus: smart, body: smartOk ? '{"token_endpoint":"x"}' : null, durationMs: ms },
  };
}

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

async function availability(id: string) {
  const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
  try {
    const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/availability`));
    return ((await response.json()) as any).data;
  } finally {
    app.directory.close();
  }
}

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

describe("what a probe stores", () => {
  test("up means /metadata returned a CapabilityStatement; times and statuses as probed; median and p95 of the successes", async () => {
    const url = "https://fhir.example/r4";
    const id = insertEntry(ctx.db, { url });
    const probes: [StorableResult, number][] = [
      [result(200, 400), 0],
      [result(200, 100, 404), 1], // partial, /metadata fine: up
      [result(503, 20, 200), 2], // partial, only SMART: down
      [result(200, 300), 3],
      [result(null, 9000), 4], // no response: no response time
      [result(200, 1000), 5],
      [result(200, 200), 6],
    ];
    for (const [r, hour] of probes) recordProbes(ctx.db, [{ url, result: r }], iso(T0 + hour * 3_600_000));
    const data = await availability(id);
    expect(data.uptime).toEqual({ "1d": 0.7143, "7d": 0.7143, "30d": 0.7143, "365d": 0.7143 });
    // Successes 400, 100, 300, 1000, 200 → sorted 100 200 300 400 1000.
    expect(data.responseTimeMs).toEqual({ median: 300, p95: 1000 });
    expect(data.lastSuccessAt).toBe(iso(T0 + 6 * 3_600_000));
    expect(data.lastFailureAt).toBe(iso(T0 + 4 * 3_600_000));
    expect(data.recent.slice(2, 5)).toEqual([
      {
        at: iso(T0 + 4 * 3_600_000),
        outcome: "failed",
        httpStatus: null,
        smartHttpStatus: null,
        responseTimeMs: null,
        error: "dns",
      },
      {
        at: iso(T0 + 3 * 3_600_000),
        outcome: "success",
        httpStatus: 200,
        smartHttpStatus: 200,
        responseTimeMs: 300,
        error: null,
      },
      {
        at: iso(T0 + 2 * 3_600_000),
        outcome: "partial",
        httpStatus: 503,
        smartHttpStatus: 200,
        responseTimeMs: 20,
        error: "http_status",
      },
    ]);
    expect(data.recent[5]).toMatchObject({
      outcome: "partial",
      httpStatus: 200,
      smartHttpStatus: 404,
    });
  });

  test("more than 20 probes: the newest 20, newest first", async () => {
    const url = "https://many.example/r4";
    const id = insertEntry(ctx.db, { url });
    for (let i = 0; i < 45; i++) recordProbes(ctx.db, [{ url, result: result(200, i) }], iso(T0 + i * 60_000));
    const data = await availability(id);
    expect(data.recent.map((r: { responseTimeMs: number }) => r.responseTimeMs)).toEqual(
      Array.from({ length: 20 }, (_, i) => 44 - i),
    );
    expect(data.responseTimeMs).toEqual({ median: 22, p95: 42 });
  });
});

describe("the packed form", () => {
  const record = (at: number, up: boolean, ms: number | null): HistoryRecord => ({
    at,
    outcome: up ? "success" : "failed",
    up,
    error: up ? null : "timeout",
    httpStatus: up ? 200 : null,
    smartHttpStatus: up ? 200 : null,
    responseTimeMs: ms,
  });
  const pack = (records: HistoryRecord[]) => {
    const bytes = new Uint8Array(records.length * 14);
    records.forEach((r, i) => {
      bytes.set(encodeRecord(r), i * 14);
    });
    return bytes;
  };

  test("a record round-trips; times past 65.5 s saturate", () => {
    const r = record(Date.parse("2099-12-31T23:59:59.999Z"), true, 65_000);
    expect(decodeRecord(pack([r]), 0)).toEqual(r);
    expect(decodeRecord(pack([record(0, true, 1e9)]), 0).responseTimeMs).toBe(65_534);
  });

  test("roll-up: days past 30 become daily figures (median and p95 within 2.3 %), past 400 they go", () => {
    const now = Date.parse("2026-06-30T10:00:00.000Z");
    const day = (n: number) => Math.floor(now / DAY_MS) * DAY_MS - n * DAY_MS + 3_600_000;
    const records = [
      ...[120, 80, 1000, 95].map((ms, i) => record(day(40) + i, true, ms)),
      record(day(40) + 9, false, null),
      record(day(500), true, 50), // older than 400 days: dropped
      record(day(30), true, 77), // the oldest day kept raw
      record(day(0), false, null),
    ];
    const rolled = rollUp(
      { lastAt: day(0), lastUpAt: day(30), lastDownAt: day(0), records: pack(records), firstDay: null, days: null },
      now,
    )!;
    expect(rolled.records.length).toBe(2 * 14);
    expect(rolled.firstDay).toBe(Math.floor(day(40) / DAY_MS));
    const f = decodeDay(rolled.days!, 0);
    expect(f.probes).toBe(5);
    expect(f.up).toBe(4);
    // Times 80 95 120 1000: median 108 (mean of the middle two), p95 1000.
    expect(Math.abs(f.medianMs! - 108) / 108).toBeLessThan(0.023);
    expect(Math.abs(f.p95Ms! - 1000) / 1000).toBeLessThan(0.023);
    expect(rollUp(rolled, now)).toBe(rolled); // nothing more to do today
    // 371 days on, the figures of days 40 and 30 are older than 400 days and go; day 0's probe is a figure now.
    const later = rollUp(rolled, now + 371 * DAY_MS)!;
    expect(later.records.length).toBe(0);
    expect(later.firstDay).toBe(Math.floor(day(0) / DAY_MS));
    expect(decodeDay(later.days!, 0)).toEqual({ probes: 1, up: 0, medianMs: null, p95Ms: null });
    expect(later.lastUpAt).toBeNull();
    expect(later.lastDownAt).toBe(day(0));
    // After 431 days nothing is left: the row goes.
    expect(rollUp(rolled, now + 431 * DAY_MS)).toBeNull();
  });
});

describe("pruning by the probe run", () => {
  test("a URL not probed any more is rolled up, the dataset version moves, and a second sweep the same day does nothing", async () => {
    const url = "https://stale.example/r4";
    insertEntry(ctx.db, { url });
    recordProbes(ctx.db, [{ url, result: result(200, 10) }], iso(T0));
    const version = datasetVersion(ctx.db);
    expect(pruneHistory(ctx.db.sqlite, new Date(T0 + 10 * DAY_MS))).toEqual({ changed: 0, deleted: 0 });
    expect(datasetVersion(ctx.db)).toBe(version);
    expect(pruneHistory(ctx.db.sqlite, new Date(T0 + 40 * DAY_MS))).toEqual({ changed: 1, deleted: 0 });
    expect(datasetVersion(ctx.db)).toBe(version + 1);
    expect(pruneHistory(ctx.db.sqlite, new Date(T0 + 40 * DAY_MS + 3_600_000))).toEqual({ changed: 0, deleted: 0 });
    // 420 days on is past this machine's clock: the version it writes is dated now, and says so.
    let pruned: ReturnType<typeof pruneHistory> | undefined;
    const warned = await stderrLines(() => {
      pruned = pruneHistory(ctx.db.sqlite, new Date(T0 + 420 * DAY_MS));
    });
    expect(pruned).toEqual({ changed: 0, deleted: 1 });
    expect(futureWriteClaims(warned).every((claimed) => claimed !== null)).toBe(true);
    expect(datasetVersion(ctx.db)).toBe(version + 2);
  });
});
