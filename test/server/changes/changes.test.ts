/**
 * GET /api/v1/changes over a real HTTP server on 127.0.0.1 and a real SQLite file written by the
 * ingest and probe code: what two scrapes and two probes changed, paging, and bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import type { Db } from "../../../src/db/client";
import { openDatabase } from "../../../src/db/client";
import { readDatasetVersion } from "../../../src/db/dataset-meta";
import { recordProbes } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { fetchPublished } from "../../support/fixture";
import { futureWriteClaims, stderrLines } from "../../support/stderr";
import { tempDbPath } from "../../support/temp-db";
import {
  ALPHA,
  answered,
  BETA,
  DELTA,
  EPSILON,
  GAMMA,
  idOf,
  PROBE_AT,
  SECOND_AT,
  scrapeTwice,
  silent,
} from "../../support/two-scrapes";

let db: Db;
let app: ReturnType<typeof createTestApp>;
let root: string;
/** The version after the first scrape: where a client that synced then starts. */
let firstVersion: number;

const fetchJson = (path: string) => fetchPublished(app, root, path);

const versionOf = () => readDatasetVersion(db.sqlite);

beforeAll(async () => {
  db = openDatabase(tempDbPath("changes.sqlite"));
  firstVersion = await scrapeTwice(db);
  app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${app.server!.port}`;
});
afterAll(() => {
  app?.stop(true);
  app?.directory.close();
  db?.sqlite.close();
});

describe("GET /api/v1/changes", () => {
  test("without since: no changes, and the current version to start from", async () => {
    const { status, body } = await fetchJson("/api/v1/changes");
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, data: [], meta: { since: null, until: versionOf(), next: null } });
  });

  test("a second scrape of one list gives exactly its three changes: removed, moved, added", async () => {
    const { status, body } = await fetchJson(`/api/v1/changes?since=${firstVersion}`);
    expect(status).toBe(200);
    const version = versionOf();
    expect(body.meta).toEqual({ since: firstVersion, until: version, next: null });
    const byId = new Map(body.data.map((change: { id: string }) => [change.id, change]));
    expect(body.data).toHaveLength(3);
    expect(byId.get(idOf(GAMMA))).toEqual({ version, at: SECOND_AT, id: idOf(GAMMA), change: "removed" });
    expect(byId.get(idOf(EPSILON))).toEqual({ version, at: SECOND_AT, id: idOf(EPSILON), change: "added" });
    const moved = byId.get(idOf(BETA)) as { change: string; fields: Record<string, unknown> };
    expect(moved.change).toBe("changed");
    expect(moved.fields.state).toEqual({ from: "NC", to: "TX" });
    expect(moved.fields.zipCode).toEqual({ from: "27601", to: "75201" });
    expect(Object.keys(moved.fields)).not.toContain("lastUpdated");
    // What the feed says is what the API now serves.
    const record = await fetchJson(`/api/v1/endpoints/${idOf(BETA)}`);
    for (const [field, { to }] of Object.entries(moved.fields as Record<string, { to: unknown }>))
      expect(record.body.data[field]).toEqual(to);
    expect(record.body.data.lastUpdated).toBe(SECOND_AT);
  });

  test("from the start of the store, the first scrape's entries are added, oldest first", async () => {
    const { body } = await fetchJson("/api/v1/changes?since=0");
    const versions = body.data.map((change: { version: number }) => change.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(body.data.filter((c: { version: number }) => c.version === firstVersion)).toHaveLength(4);
    expect(body.data.slice(0, 4).every((c: { change: string }) => c.change === "added")).toBe(true);
  });

  test("probes that verify one entry and find another silent appear as status changes", async () => {
    const before = versionOf();
    recordProbes(
      db,
      [
        { url: ALPHA.URL, result: answered(ALPHA.URL) },
        { url: DELTA.URL, result: silent(DELTA.URL) },
      ],
      PROBE_AT,
    );
    await app.directory.refreshIfChanged();
    const { body } = await fetchJson(`/api/v1/changes?since=${before}`);
    expect(body.data).toEqual([
      expect.objectContaining({ id: idOf(ALPHA), change: "changed", at: PROBE_AT }),
      expect.objectContaining({ id: idOf(DELTA), change: "changed", at: PROBE_AT }),
    ]);
    const byId = new Map(body.data.map((c: { id: string; fields: object }) => [c.id, c.fields]));
    // Probed for the first time: the server that answered declares no authorization (unknown →
    // undeclared); the silent one's verdict stays unknown, so only its status changed.
    const verdict = (status: string) => ({ patientApps: status, providerApps: status, backendServices: status });
    const probed = { from: verdict("unknown"), to: verdict("undeclared") };
    expect(byId.get(idOf(ALPHA))).toEqual({ status: { from: "listed", to: "verified" }, verdict: probed });
    expect(byId.get(idOf(DELTA))).toEqual({ status: { from: "listed", to: "unresponsive" } });
  });

  test("paging with limit=1 through meta.next gives the same changes as one page", async () => {
    const whole = (await fetchJson("/api/v1/changes?since=0&limit=1000")).body;
    expect(whole.meta.next).toBeNull();
    const paged: unknown[] = [];
    let path: string | null = "/api/v1/changes?since=0&limit=1";
    let pages = 0;
    let until = 0;
    while (path !== null) {
      const { body } = await fetchJson(path);
      expect(body.data.length).toBeLessThanOrEqual(1);
      expect(body.meta.until).toBeGreaterThanOrEqual(until);
      until = body.meta.until;
      paged.push(...body.data);
      path = body.meta.next;
      pages++;
      expect(pages).toBeLessThan(50);
    }
    expect(paged).toEqual(whole.data);
    expect(until).toBe(whole.meta.until);
  });

  test("a page that ends inside a version says it is complete only up to the version before", async () => {
    const { body } = await fetchJson(`/api/v1/changes?since=${firstVersion - 1}&limit=2`);
    expect(body.data.map((c: { version: number }) => c.version)).toEqual([firstVersion, firstVersion]);
    expect(body.meta.until).toBe(firstVersion - 1);
    expect(body.meta.next).toMatch(new RegExp(`^/api/v1/changes\\?since=${firstVersion - 1}&after=\\d+&limit=2$`));
    // The same question gives the same answer.
    expect((await fetchJson(body.meta.next)).body).toEqual((await fetchJson(body.meta.next)).body);
  });

  test("bad input is a 400 VALIDATION_ERROR naming the parameter", async () => {
    const current = versionOf();
    for (const [query, message] of [
      ["since=-1", /^since: /],
      ["since=abc", /^since: /],
      ["since=1.5", /^since: /],
      [`since=${current + 1}`, /^since: must not be greater than the current version/],
      ["since=0&limit=0", /^limit: /],
      ["since=0&limit=1001", /^limit: /],
      ["since=0&since=1", /^since: given more than once/],
      ["since=0&page=2", /^page: unknown parameter/],
      ["after=3", /^after: only with since/],
      ["since=0&after=0", /^after: /],
    ] as const) {
      const { status, body } = await fetchJson(`/api/v1/changes?${query}`);
      expect({ query, status, code: body.error?.code }).toEqual({ query, status: 400, code: "VALIDATION_ERROR" });
      expect(body.error.message).toMatch(message);
    }
  });
});

describe("changes older than the store", () => {
  test("a write dated in the future is dated now: the changes before it are kept, and those after", async () => {
    const before = versionOf();
    const future = "2099-01-01T00:00:00.000Z";
    const warned = await stderrLines(() => recordProbes(db, [{ url: ALPHA.URL, result: silent(ALPHA.URL) }], future));
    expect(futureWriteClaims(warned)).toEqual([future]);
    recordProbes(db, [{ url: ALPHA.URL, result: answered(ALPHA.URL) }], new Date().toISOString());
    await app.directory.refreshIfChanged();
    const { status, body } = await fetchJson(`/api/v1/changes?since=${firstVersion}`);
    expect(status).toBe(200);
    const latest = (body.data as { version: number; at: string; change: string }[]).filter((c) => c.version > before);
    expect(latest.map((c) => [c.version - before, c.change])).toEqual([
      [1, "changed"],
      [2, "changed"],
    ]);
    for (const { at } of latest) expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000);
  });

  test("a write 400 days on drops the older changes: since before them is 410 CHANGES_EXPIRED pointing to the export", async () => {
    const kept = versionOf();
    // Every version so far written 401 days ago (a write's time is never ahead of the clock).
    const old = new Date(Date.now() - 401 * 86_400_000).toISOString();
    db.sqlite.prepare("UPDATE dataset_versions SET at = ?").run(old);
    const later = new Date().toISOString();
    recordProbes(db, [{ url: ALPHA.URL, result: silent(ALPHA.URL) }], later);
    await app.directory.refreshIfChanged();
    const { status, body } = await fetchJson(`/api/v1/changes?since=${kept - 1}`);
    expect(status).toBe(410);
    expect(body.error.code).toBe("CHANGES_EXPIRED");
    expect(body.error.message).toContain("/api/v1/export");
    const fromKept = await fetchJson(`/api/v1/changes?since=${kept}`);
    expect(fromKept.status).toBe(200);
    expect(fromKept.body.data).toEqual([
      {
        version: kept + 1,
        at: later,
        id: idOf(ALPHA),
        change: "changed",
        fields: {
          status: { from: "verified", to: "unresponsive" },
          // It declared no authorization; silent, what it offers is unknown.
          verdict: {
            from: { patientApps: "undeclared", providerApps: "undeclared", backendServices: "undeclared" },
            to: { patientApps: "unknown", providerApps: "unknown", backendServices: "unknown" },
          },
        },
      },
    ]);
  });
});
