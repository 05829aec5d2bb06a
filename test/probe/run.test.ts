import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Db, openDatabase } from "../../src/db/client";
import { probeDue, selectDueUrls } from "../../src/probe";
import { interleaveByHost } from "../../src/probe/due";
import {
  closedPort,
  entry,
  fixture,
  insertEntry,
  json,
  PROBE_WITH_BODIES,
  probeRow,
  serve,
  silentListener,
  tempDb,
} from "./helpers";

const R4 = fixture("r4-capability.json");
const SMART = fixture("smart-patient.json");
const MB = 1024 * 1024;

const server = serve({
  "/ok/metadata": R4,
  "/ok/.well-known/smart-configuration": SMART,
  "/ok2/metadata": R4,
  "/ok2/.well-known/smart-configuration": SMART,
  "/partial/metadata": R4,
  "/auth/metadata": () => json("{}", 401),
  "/auth/.well-known/smart-configuration": () => json("{}", 401),
  "/broken/metadata": () => json("{oops"),
  "/html/metadata": () => new Response("<html></html>", { headers: { "content-type": "text/html" } }),
  "/huge/metadata": () => new Response(new Uint8Array(50 * MB).fill(0x20)),
  "/loop/metadata": () => new Response(null, { status: 302, headers: { location: "/loop/metadata" } }),
  "/private/metadata": () =>
    new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } }),
});
const silent = silentListener();
const closed = closedPort();
afterAll(() => {
  server.stop();
  silent.stop(true);
});

// Guard on, with only the local test servers' address let through.
const OPTS = { allowPrivate: false, allowAddresses: ["127.0.0.1"], timeoutMs: 800, defaultRetryDelayMs: 20 };
const NOW = new Date("2026-11-25T10:00:00.000Z");

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

describe("probeDue", () => {
  test("a run over good and bad servers probes every URL and goes on after each failure", async () => {
    const u = (p: string) => `${server.url}/${p}`;
    const ids = {
      ok: insertEntry(ctx.db, { url: u("ok") }),
      okTwin: insertEntry(ctx.db, { url: u("ok"), vendorId: "other" }),
      partial: insertEntry(ctx.db, { url: u("partial") }),
      auth: insertEntry(ctx.db, { url: u("auth"), status: "verified" }),
      broken: insertEntry(ctx.db, { url: u("broken") }),
      html: insertEntry(ctx.db, { url: u("html") }),
      huge: insertEntry(ctx.db, { url: u("huge") }),
      loop: insertEntry(ctx.db, { url: u("loop") }),
      privateRedirect: insertEntry(ctx.db, { url: u("private") }),
      closed: insertEntry(ctx.db, { url: `http://127.0.0.1:${closed}/fhir` }),
      silent: insertEntry(ctx.db, { url: `http://127.0.0.1:${silent.port}/fhir` }),
      guarded: insertEntry(ctx.db, { url: "http://10.0.0.1/fhir" }),
      removed: insertEntry(ctx.db, { url: u("ok2"), status: "removed" }),
    };
    const progress: [number, number][] = [];
    const summary = await probeDue(ctx.db, { ...OPTS, now: () => NOW, onProgress: (d, t) => progress.push([d, t]) });
    expect(summary).toMatchObject({ probed: 11, success: 1, partial: 1, failed: 9, unresponsive: 2 });
    expect(progress[0]).toEqual([0, 11]);
    expect(progress.at(-1)).toEqual([11, 11]);

    const status = (id: string) => entry(ctx.db, id).status;
    expect(status(ids.ok)).toBe("verified");
    expect(status(ids.okTwin)).toBe("verified");
    expect(status(ids.partial)).toBe("verified");
    expect(status(ids.auth)).toBe("verified"); // 401: unchanged
    for (const id of [ids.broken, ids.html, ids.huge, ids.loop, ids.privateRedirect, ids.guarded])
      expect(status(id)).toBe("listed");
    expect(status(ids.closed)).toBe("unresponsive");
    expect(status(ids.silent)).toBe("unresponsive");
    expect(status(ids.removed)).toBe("removed");
    // The URL carried only by a removed entry was not probed.
    expect(probeRow(ctx.db, u("ok2"))).toBeNull();

    const row = (p: string) => probeRow(ctx.db, u(p))!;
    expect(row("ok")).toMatchObject({
      probe_status: "success",
      metadata_body: R4,
      smart_body: SMART,
      probed_at: NOW.toISOString(),
    });
    expect(row("partial")).toMatchObject({ probe_status: "partial", smart_http_status: 404, smart_body: null });
    expect(row("huge")).toMatchObject({ probe_status: "failed", error_kind: "body_too_large", metadata_body: null });
    expect(row("loop")).toMatchObject({ error_kind: "too_many_redirects" });
    expect(row("private")).toMatchObject({ error_kind: "blocked" });
    expect(row("broken")).toMatchObject({ error_kind: "invalid_json" });
    expect(probeRow(ctx.db, "http://10.0.0.1/fhir")).toMatchObject({ error_kind: "blocked", probe_status: "failed" });
  });

  test("only due URLs: never probed, or older than staleAfter; vendor and limit", async () => {
    const a = `${server.url}/ok`;
    const b = `${server.url}/partial`;
    insertEntry(ctx.db, { url: a });
    insertEntry(ctx.db, { url: b, vendorId: "other" });
    expect(selectDueUrls(ctx.db, { now: NOW, staleAfterMs: 86_400_000 })).toEqual([a, b]);

    const earlier = new Date(NOW.getTime() - 3_600_000);
    expect((await probeDue(ctx.db, { ...OPTS, now: () => earlier, vendorId: "other" })).probed).toBe(1);
    expect(probeRow(ctx.db, a)).toBeNull();
    // b is fresh, a never probed: a comes first and alone.
    expect(selectDueUrls(ctx.db, { now: NOW, staleAfterMs: 86_400_000 })).toEqual([a]);
    expect((await probeDue(ctx.db, { ...OPTS, now: () => NOW, limit: 5 })).probed).toBe(1);
    expect((await probeDue(ctx.db, { ...OPTS, now: () => NOW })).probed).toBe(0);

    // 23 h later nothing is due; 25 h later both are; 30 minutes with staleAfter 30m too.
    const later = (h: number) => new Date(NOW.getTime() + h * 3_600_000);
    expect((await probeDue(ctx.db, { ...OPTS, now: () => later(22) })).probed).toBe(0);
    expect(selectDueUrls(ctx.db, { now: later(0.5), staleAfterMs: 30 * 60_000 - 1 })).toHaveLength(2);
    const summary = await probeDue(ctx.db, { ...OPTS, now: () => later(25), limit: 1 });
    expect(summary.probed).toBe(1);
    expect(probeRow(ctx.db, b)!.probed_at).toBe(later(25).toISOString()); // the oldest probe first
    expect(probeRow(ctx.db, a)!.probed_at).toBe(NOW.toISOString());
  });

  test("a URL whose every entry is unusable is not probed; one shared with a usable entry is", () => {
    const internal = `${server.url}/internal`;
    const shared = `${server.url}/shared`;
    insertEntry(ctx.db, { url: internal, unusable: "internal suffix" });
    insertEntry(ctx.db, { url: shared, unusable: "do not use" });
    insertEntry(ctx.db, { url: shared, vendorId: "other" });
    expect(selectDueUrls(ctx.db, { now: NOW, staleAfterMs: 86_400_000 })).toEqual([shared]);
  });

  test("an aborted run keeps what finished and the next run carries on", async () => {
    const slow = serve({}, async (request) => {
      await Bun.sleep(30);
      return new URL(request.url).pathname.endsWith("/metadata") ? json(R4) : json(SMART);
    });
    try {
      const slowUrls = Array.from({ length: 40 }, (_, i) => `${slow.url}/site${i}`);
      for (const url of slowUrls) insertEntry(ctx.db, { url });
      const controller = new AbortController();
      let done = 0;
      const summary = await probeDue(ctx.db, {
        ...OPTS,
        now: () => NOW,
        concurrency: 4,
        signal: controller.signal,
        onProgress: (d) => {
          done = d;
          if (d === 5) controller.abort();
        },
      });
      expect(summary.probed).toBe(5);
      expect(done).toBe(5);
      const stored = (ctx.db.sqlite.prepare("SELECT COUNT(*) AS n FROM probes").get() as { n: number }).n;
      expect(stored).toBe(5);
      const rest = await probeDue(ctx.db, { ...OPTS, now: () => NOW });
      expect(rest.probed).toBe(35);
      expect(rest.success).toBe(35);
    } finally {
      slow.stop();
    }
  });
});

describe("where results are written", () => {
  const rows = (db: Db) =>
    db.sqlite
      .prepare(`${PROBE_WITH_BODIES} ORDER BY url`)
      .all()
      .map((r) => ({ ...(r as object), duration_ms: 0, metadata_body_id: 0, smart_body_id: 0 }));

  test("the store worker and the inline writer store the same rows", async () => {
    const other = tempDb();
    try {
      for (const db of [ctx.db, other.db])
        for (const p of ["ok", "partial", "auth", "broken"]) insertEntry(db, { url: `${server.url}/${p}` });
      await probeDue(ctx.db, { ...OPTS, now: () => NOW, writeInWorker: true });
      await probeDue(other.db, { ...OPTS, now: () => NOW, writeInWorker: false });
      expect(rows(ctx.db)).toHaveLength(4);
      expect(rows(ctx.db)).toEqual(rows(other.db));
    } finally {
      other.cleanup();
    }
  });

  test("an in-memory database is written inline", async () => {
    const db = openDatabase(":memory:");
    try {
      db.sqlite.prepare("INSERT INTO vendors (id, name, endpoint_list_url) VALUES ('epic', 'Epic', 'x')").run();
      insertEntry(db, { url: `${server.url}/ok` });
      const summary = await probeDue(db, { ...OPTS, now: () => NOW });
      expect(summary.success).toBe(1);
      expect(probeRow(db, `${server.url}/ok`)).toMatchObject({ probe_status: "success", metadata_body: R4 });
    } finally {
      db.sqlite.close();
    }
  });
});

test("interleaveByHost spreads one host's URLs among the others", () => {
  const urls = ["https://a/1", "https://a/2", "https://a/3", "https://b/1", "https://c/1", "https://c/2"];
  expect(interleaveByHost(urls)).toEqual([
    "https://a/1",
    "https://b/1",
    "https://c/1",
    "https://a/2",
    "https://c/2",
    "https://a/3",
  ]);
});
