import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { freshnessReader } from "../../../src/db/freshness";
import { refreshRunStatements, THIS_PROCESS } from "../../../src/db/refresh-runs";
import type { Freshness } from "../../../src/model/freshness";
import { createTestApp } from "../../support/app";
import { fixtureDb, get } from "../../support/fixture";

const NOW = new Date("2026-11-29T10:00:00.000Z");
const HOUR = 3_600_000;
const at = (ms: number) => new Date(NOW.getTime() + ms);

/** A directory whose lists were read from the three kinds of source, and the app serving it. */
function app(env: Record<string, string> = {}, startedAt = NOW.getTime() - 10 * HOUR) {
  const db = fixtureDb();
  const vendor = (db.sqlite.prepare("SELECT id FROM vendors LIMIT 1").get() as { id: string }).id;
  const list = db.sqlite.prepare(
    "INSERT INTO vendor_lists (id, vendor_id, url, format, read_from, published_url, last_scraped_at) VALUES (?, ?, ?, 'lantern-json', ?, ?, ?)",
  );
  list.run(
    "bundled-1",
    vendor,
    "https://raw.githubusercontent.com/x/a.json",
    '{"repository":"onc-healthit/lantern-back-end","path":"a.json","commit":"abc"}',
    "https://dev.example/fhir",
    "2024-04-27T00:00:00.000Z",
  );
  list.run(
    "lantern-1",
    vendor,
    "https://raw.githubusercontent.com/x/b.json",
    "https://raw.githubusercontent.com/x/b.json",
    "https://dev.example/fhir",
    "2026-11-28T04:17:00.000Z",
  );
  list.run(
    "developer-1",
    vendor,
    "https://dev.example/endpoints.json",
    "https://dev.example/endpoints.json",
    null,
    "2026-11-28T04:18:00.000Z",
  );
  list.run("never-read", vendor, "https://dev.example/other.json", null, null, null);
  const config = loadConfig({ REFRESH: "on", REFRESH_LOCK_SECONDS: "120", REFRESH_RETRY_SECONDS: "600", ...env });
  const server = createTestApp({
    db,
    config,
    clock: () => NOW,
    freshness: freshnessReader(db.sqlite, config.refresh, startedAt),
  });
  return { server, runs: refreshRunStatements(db.sqlite) };
}

async function freshness(server: ReturnType<typeof app>["server"], path = "/api/v1/freshness") {
  const { response, body } = await get(server, path);
  return { response, body: body as { success: boolean; data: Freshness; error?: { code: string } } };
}

describe("GET /api/v1/freshness", () => {
  test("the lists by source, nothing run yet: the first run is due soon after the start", async () => {
    const { server } = app({ REFRESH_FIRST_DELAY_SECONDS: "30" }, NOW.getTime());
    const { response, body } = await freshness(server);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("etag")).toBeNull();
    expect(body.data).toEqual({
      refresh: "on",
      listsAsOf: "2026-11-28T04:18:00.000Z",
      lists: [
        { source: "bundled", lists: 1, newestRead: "2024-04-27T00:00:00.000Z", oldestRead: "2024-04-27T00:00:00.000Z" },
        { source: "lantern", lists: 1, newestRead: "2026-11-28T04:17:00.000Z", oldestRead: "2026-11-28T04:17:00.000Z" },
        {
          source: "developer",
          lists: 1,
          newestRead: "2026-11-28T04:18:00.000Z",
          oldestRead: "2026-11-28T04:18:00.000Z",
        },
      ],
      currentRun: null,
      lastRun: null,
      failuresInARow: 0,
      nextRunAt: "2026-11-29T10:00:30.000Z",
    });
  });

  test("a run in progress: its progress, and no next run", async () => {
    const { server, runs } = app();
    const lock = runs.acquire(THIS_PROCESS, at(-60_000), 120_000);
    expect(lock.taken).toBe(true);
    if (!lock.taken) return;
    runs.heartbeat(lock.run.id, THIS_PROCESS, at(-1_000), { phase: "probe", urlsDone: 4211, urlsTotal: 23164 });
    const { body } = await freshness(server);
    expect(body.data.currentRun).toEqual({
      startedAt: "2026-11-29T09:59:00.000Z",
      state: "running",
      phase: "probe",
      urlsDone: 4211,
      urlsTotal: 23164,
      resumes: 0,
    });
    expect(body.data.nextRunAt).toBeNull();
    // A second run is refused while this one is alive.
    expect(runs.acquire("elsewhere 1", at(0), 120_000).taken).toBe(false);
  });

  test("after a run, the next is due a day after it started; after outages, later each time", async () => {
    const { server, runs } = app();
    const me = THIS_PROCESS;
    const finish = (start: number, end: number, outcome: "ok" | "outage", detail: string | null = null) => {
      const lock = runs.acquire(me, at(start), 120_000);
      if (!lock.taken) throw new Error("lock not taken");
      runs.heartbeat(lock.run.id, me, at(end), { phase: "probe", urlsDone: 10, urlsTotal: 20 });
      runs.finish(lock.run.id, me, at(end), outcome, detail);
    };
    finish(-5 * HOUR, -4 * HOUR, "ok");
    let { body } = await freshness(server);
    expect(body.data.lastRun).toEqual({
      startedAt: "2026-11-29T05:00:00.000Z",
      finishedAt: "2026-11-29T06:00:00.000Z",
      outcome: "ok",
      urlsDone: 10,
      urlsTotal: 20,
      detail: null,
    });
    expect(body.data.nextRunAt).toBe("2026-11-30T05:00:00.000Z");
    finish(-3 * HOUR, -3 * HOUR + 60_000, "outage", "the prober lost the network");
    ({ body } = await freshness(server));
    expect(body.data.failuresInARow).toBe(1);
    expect(body.data.nextRunAt).toBe("2026-11-29T07:11:00.000Z");
    finish(-2 * HOUR, -2 * HOUR + 60_000, "outage");
    ({ body } = await freshness(server));
    expect(body.data.failuresInARow).toBe(2);
    expect(body.data.nextRunAt).toBe("2026-11-29T08:21:00.000Z");
    const metrics = await (await server.handle(new Request("http://localhost/metrics"))).text();
    expect(metrics).toContain('refresh_last_outcome{outcome="outage"} 1');
    expect(metrics).toContain('refresh_last_outcome{outcome="ok"} 0');
    expect(metrics).toContain("refresh_failures_in_a_row 2");
    expect(metrics).toContain('refresh_lists{source="lantern"} 1');
    expect(metrics).toContain(`refresh_next_run_seconds ${Date.parse("2026-11-29T08:21:00.000Z") / 1000}`);
  });

  test("a run whose owner stopped renewing is paused, then taken over and resumed", async () => {
    const { server, runs } = app();
    const lock = runs.acquire("another-host 4242", at(-10 * 60_000), 120_000);
    if (!lock.taken) throw new Error("lock not taken");
    let { body } = await freshness(server);
    expect(body.data.currentRun?.state).toBe("paused");
    const again = runs.acquire("another-host 4343", at(0), 120_000);
    expect(again).toMatchObject({ taken: true, resumed: true, run: { id: lock.run.id, resumes: 1 } });
    ({ body } = await freshness(server));
    expect(body.data.currentRun).toMatchObject({ state: "running", resumes: 1 });
  });

  test("REFRESH=off: no next run", async () => {
    const { server } = app({ REFRESH: "off" });
    const { body } = await freshness(server);
    expect(body.data).toMatchObject({ refresh: "off", nextRunAt: null });
  });

  test("any query parameter is a 400 in the envelope", async () => {
    const { server } = app();
    const { response, body } = await freshness(server, "/api/v1/freshness?x=1");
    expect(response.status).toBe(400);
    expect(body.success).toBe(false);
    expect(body.error?.code).toBe("VALIDATION_ERROR");
  });
});
