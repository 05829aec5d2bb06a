/** `data:generate-1m --history-days`: history the route can be measured on, deterministic, with the shapes real hosts have. */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { generateDataset } from "../../../tools/generate/generator";
import { createTestApp } from "../../support/app";

const dir = mkdtempSync(join(tmpdir(), "generated-history-"));
const a = join(dir, "a.sqlite");
const b = join(dir, "b.sqlite");
beforeAll(() => {
  generateDataset({ endpoints: 6_000, out: a, seed: 3, historyDays: 400 });
  generateDataset({ endpoints: 6_000, out: b, seed: 3, historyDays: 400 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scalar = (db: Database, sql: string) => Number(Object.values(db.prepare(sql).get() as object)[0]);

test("every probed URL has 400 days of history, the same bytes for the same seed", () => {
  const one = new Database(a, { readonly: true });
  const two = new Database(b, { readonly: true });
  try {
    expect(scalar(one, "SELECT COUNT(*) FROM probe_history")).toBe(scalar(one, "SELECT COUNT(*) FROM probes"));
    // 31 raw records (today and 30 days before) and 369–370 days of figures each (probes are up to 7 days old).
    expect(scalar(one, "SELECT MIN(length(records) / 14) FROM probe_history")).toBeGreaterThanOrEqual(24);
    expect(scalar(one, "SELECT MAX(length(records) / 14) FROM probe_history")).toBe(31);
    expect(scalar(one, "SELECT MIN(length(days) / 4) FROM probe_history")).toBeGreaterThanOrEqual(360);
    const dump = (db: Database) =>
      Bun.hash(JSON.stringify(db.prepare("SELECT * FROM probe_history ORDER BY url_key").values())).toString();
    expect(dump(one)).toBe(dump(two));
  } finally {
    one.close();
    two.close();
  }
});

test("through the route: the newest record is the probe, and hosts differ (steady, slow, with outages, down)", async () => {
  const db = openDatabase(a);
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
  try {
    const ids = db.sqlite
      .prepare("SELECT e.id FROM entries e JOIN probes p ON p.url = e.url GROUP BY e.url")
      .values() as [string][];
    let high = 0;
    let low = 0;
    let never = 0;
    let slow = 0;
    for (const [id] of ids) {
      const get = async (suffix: string) =>
        ((await (await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}${suffix}`))).json()) as any)
          .data;
      const data = await get("/availability");
      const caps = await get("/capabilities");
      expect(data.lastProbed).toBe(caps.lastProbed);
      expect(data.recent[0].at).toBe(caps.lastProbed);
      expect(data.recent[0].outcome).toBe(caps.probeStatus);
      const u = data.uptime["365d"];
      if (u >= 0.99) high++;
      else if (u === 0) never++;
      else if (u < 0.9) low++;
      if (data.responseTimeMs.median > 2000) slow++;
    }
    expect(high).toBeGreaterThan(ids.length * 0.3);
    expect(low).toBeGreaterThan(0);
    expect(never).toBeGreaterThan(0);
    expect(slow).toBeGreaterThan(0);
  } finally {
    app.directory.close();
    db.sqlite.close();
  }
}, 60_000);
