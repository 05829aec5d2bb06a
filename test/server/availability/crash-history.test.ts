/**
 * `kill -9` during a real probe run: the history written so far matches the probes table row for
 * row (same transactions), and the next run adds exactly what the killed one did not store.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeRecord, RECORD_BYTES, urlKey } from "../../../src/db/history-format";
import { slowFhirServers } from "../../pipeline/probe/helpers";
import { killOnceStored, spawnScript } from "../../support/run-script";
import { seedDatabase } from "../../support/seed";

const dir = mkdtempSync(join(tmpdir(), "crash-history-"));
const CAPABILITY = JSON.stringify({ resourceType: "CapabilityStatement", fhirVersion: "4.0.1", rest: [] });
const SMART = JSON.stringify({ token_endpoint: "https://auth.example/token", capabilities: ["launch-standalone"] });
const servers = slowFhirServers(CAPABILITY, SMART);
afterAll(() => {
  servers.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Every probes row with its history: [url, probed_at, records]. */
function rows(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const probes = db.prepare("SELECT url, probed_at AS probedAt FROM probes").all() as {
      url: string;
      probedAt: string;
    }[];
    const history = db.prepare("SELECT last_at AS lastAt, records FROM probe_history WHERE url_key = ?1");
    const historyRows = (db.prepare("SELECT COUNT(*) AS n FROM probe_history").get() as { n: number }).n;
    return {
      historyRows,
      probes: probes.map((p) => ({
        ...p,
        history: history.get(urlKey(p.url)) as { lastAt: number; records: Uint8Array } | null,
      })),
    };
  } finally {
    db.close();
  }
}

test("kill -9 mid-run: one history record per stored probe, none without one; the rerun adds the rest", async () => {
  const URLS = 400;
  const dbPath = join(dir, "directory.sqlite");
  const entries = Array.from({ length: URLS }, (_, i) => ({
    vendorId: "epic",
    url: servers.siteUrl(i),
    organizationName: `Site ${i}`,
  }));
  seedDatabase(dbPath, { vendors: [{ id: "epic", name: "Epic Systems" }], entries }).sqlite.close();
  const probe = () =>
    spawnScript("src/pipeline/probe/cli.ts", ["--concurrency", "16", "--timeout", "5s"], {
      DATABASE_PATH: dbPath,
      ALLOW_PRIVATE_NETWORK: "true",
    });

  const child = probe();
  await killOnceStored(child, dbPath, "probe_history", 60);
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");

  const killed = rows(dbPath);
  expect(killed.probes.length).toBeGreaterThanOrEqual(60);
  expect(killed.probes.length).toBeLessThan(URLS);
  expect(killed.historyRows).toBe(killed.probes.length);
  for (const p of killed.probes) {
    expect(p.history).not.toBeNull();
    expect(p.history!.records.length).toBe(RECORD_BYTES);
    expect(p.history!.lastAt).toBe(Date.parse(p.probedAt));
    expect(decodeRecord(p.history!.records, 0)).toMatchObject({
      at: Date.parse(p.probedAt),
      outcome: "success",
      up: true,
    });
  }

  const rerun = probe();
  const output = await new Response(rerun.stdout).text();
  expect(await rerun.exited).toBe(0);
  expect(output).toContain(`probed ${URLS - killed.probes.length} URLs`);
  expect(output).toContain(`answered (CapabilityStatement): ${URLS - killed.probes.length} of`);
  expect(output).toContain(`≥ 99 % ${URLS - killed.probes.length}, 90–99 % 0, < 90 % 0, never 0`);
  const after = rows(dbPath);
  expect(after.historyRows).toBe(URLS);
  for (const p of after.probes) {
    expect(p.history!.records.length).toBe(RECORD_BYTES);
    expect(p.history!.lastAt).toBe(Date.parse(p.probedAt));
  }
}, 60_000);
