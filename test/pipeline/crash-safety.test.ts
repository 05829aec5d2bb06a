/**
 * Crash safety: `kill -9` a real ingest and a real probe run mid-write. Afterwards the
 * database opens and passes integrity_check, the API serves the last complete data (never half
 * a list, never half a probe result), and running the same command again finishes the work.
 */

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { createTestApp } from "../support/app";
import { finished, killOnceStored, spawnScript } from "../support/run-script";
import { seedDatabase } from "../support/seed";
import { slowFhirServers } from "./probe/helpers";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "crash-safety-"));
  dirs.push(dir);
  return dir;
}

/** The exit code and everything the script wrote, once it has exited. */
async function finish(proc: ReturnType<typeof spawnScript>) {
  const { code, stdout, stderr } = await finished(proc);
  return { code, output: stdout + stderr };
}

function integrity(path: string): string {
  const db = new Database(path);
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

function scalar(path: string, sql: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return Number(Object.values(db.prepare(sql).get() as Record<string, unknown>)[0]);
  } finally {
    db.close();
  }
}

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0);

/** The API over the database file, as a fresh server process would open it. */
async function api(path: string) {
  const db = openDatabase(path);
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
  const get = async (target: string) => {
    const response = await app.handle(new Request(`http://localhost${target}`));
    return { status: response.status, body: (await response.json()) as any };
  };
  return {
    get,
    close: () => {
      app.directory.close();
      db.sqlite.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * Entries of each list version: enough that a run's write transaction outgrows SQLite's page cache
 * (2 MB) and spills into the WAL long before its commit (a full run writes ~8 MB), so that the
 * test kills it mid-transaction. Twice as many cost a CPU second per run and proved no more.
 */
const ENTRIES = 15_000;

/** A Lantern-style list of MEDITECH sites; both versions share URLs and NPIs (so ids), not names. */
function writeList(dir: string, name: string, prefix: string): string {
  const items = Array.from({ length: ENTRIES }, (_, i) => ({
    URL: `https://fhir${i % 50}.meditech.test/site/${i}/r4`,
    OrganizationName: `${prefix} Clinic ${i}`,
    NPIID: `1${String(i).padStart(9, "0")}`,
    OrganizationCity: "Austin",
    OrganizationState: "TX",
  }));
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ Endpoints: items }));
  return path;
}

describe("kill -9 during an ingest", () => {
  test("mid-transaction: the database is intact, the API serves the previous list whole, the next run finishes", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "directory.sqlite");
    const env = { DATABASE_PATH: dbPath };
    const ingest = (file: string) =>
      spawnScript(
        "src/pipeline/ingest/cli.ts",
        ["--vendor", "meditech", "--file", file, "--list", "meditech-endpoints"],
        env,
      );
    const alpha = writeList(dir, "alpha.json", "Alpha");
    const bravo = writeList(dir, "bravo.json", "Bravo");

    const first = await finish(ingest(alpha));
    expect(first.code).toBe(0);
    const versionBefore = scalar(dbPath, "SELECT value FROM dataset_meta WHERE key = 'dataset_version'");

    // Kill as soon as the write transaction spills pages into the WAL (a full run writes ~8 MB):
    // early enough that its commit cannot win the race on a busy machine.
    const walPath = `${dbPath}-wal`;
    const walAtStart = fileSize(walPath);
    const child = ingest(bravo);
    const deadline = performance.now() + 20_000;
    let killedAtWal = -1;
    while (performance.now() < deadline && child.exitCode === null) {
      const wal = fileSize(walPath);
      if (wal > walAtStart + 200_000) {
        child.kill("SIGKILL");
        killedAtWal = wal;
        break;
      }
      await Bun.sleep(2);
    }
    const killed = await finish(child);
    expect(killedAtWal).toBeGreaterThan(0); // it really was killed mid-write, not after finishing
    expect(child.signalCode).toBe("SIGKILL");
    expect(killed.output).not.toContain("meditech-endpoints  ok");

    expect(integrity(dbPath)).toBe("ok");
    expect(scalar(dbPath, "SELECT value FROM dataset_meta WHERE key = 'dataset_version'")).toBe(versionBefore);
    const before = await api(dbPath);
    try {
      expect((await before.get("/api/v1/stats")).body.data.totalEndpoints).toBe(ENTRIES);
      expect((await before.get("/api/v1/endpoints?vendor=meditech&query=alpha&limit=1")).body.meta.total).toBe(ENTRIES);
      expect((await before.get("/api/v1/endpoints?vendor=meditech&query=bravo&limit=1")).body.meta.total).toBe(0);
      const page = await before.get("/api/v1/endpoints?vendor=meditech&page=7&limit=100");
      expect(page.body.data.every((e: { organizationName: string }) => e.organizationName.startsWith("Alpha "))).toBe(
        true,
      );
    } finally {
      before.close();
    }

    const rerun = await finish(ingest(bravo));
    expect(rerun.code).toBe(0);
    expect(integrity(dbPath)).toBe("ok");
    const after = await api(dbPath);
    try {
      expect((await after.get("/api/v1/stats")).body.data.totalEndpoints).toBe(ENTRIES);
      expect((await after.get("/api/v1/endpoints?vendor=meditech&query=bravo&limit=1")).body.meta.total).toBe(ENTRIES);
      expect((await after.get("/api/v1/endpoints?vendor=meditech&query=alpha&limit=1")).body.meta.total).toBe(0);
    } finally {
      after.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------

const CAPABILITY = JSON.stringify({
  resourceType: "CapabilityStatement",
  fhirVersion: "4.0.1",
  software: { name: "Local" },
  rest: [{ mode: "server", resource: [{ type: "Patient" }, { type: "Observation" }] }],
});
const SMART = JSON.stringify({
  authorization_endpoint: "https://auth.example/authorize",
  token_endpoint: "https://auth.example/token",
  capabilities: ["launch-standalone"],
});

describe("kill -9 during a probe run", () => {
  // Eight slow local FHIR servers: the run takes a couple of seconds, long enough to kill.
  const servers = slowFhirServers(CAPABILITY, SMART);
  afterAll(() => {
    servers.stop();
  });

  test("mid-run: every stored result is whole, the API serves them, the next run probes only the rest", async () => {
    const URLS = 400;
    const dir = tempDir();
    const dbPath = join(dir, "directory.sqlite");
    const entries = Array.from({ length: URLS }, (_, i) => ({
      vendorId: "epic",
      url: servers.siteUrl(i),
      organizationName: `Site ${i}`,
      fhirVersion: "UNKNOWN",
    }));
    seedDatabase(dbPath, { vendors: [{ id: "epic", name: "Epic Systems" }], entries }).sqlite.close();
    const env = { DATABASE_PATH: dbPath, ALLOW_PRIVATE_NETWORK: "true" };
    const probe = () => spawnScript("src/pipeline/probe/cli.ts", ["--concurrency", "16", "--timeout", "5s"], env);

    const child = probe();
    await killOnceStored(child, dbPath, "probes", 60);
    await finish(child);
    expect(child.signalCode).toBe("SIGKILL");

    expect(integrity(dbPath)).toBe("ok");
    const probed = scalar(dbPath, "SELECT COUNT(*) FROM probes");
    expect(probed).toBeGreaterThanOrEqual(60);
    expect(probed).toBeLessThan(URLS); // killed before the end
    // No half-written result: every stored probe has both documents and the derived fields.
    expect(
      scalar(
        dbPath,
        "SELECT COUNT(*) FROM probes WHERE probe_status != 'success' OR metadata_body_id IS NULL OR smart_body_id IS NULL OR smart_supported != 1",
      ),
    ).toBe(0);

    const view = await api(dbPath);
    try {
      const list = await view.get("/api/v1/endpoints?limit=100&page=1");
      expect(list.status).toBe(200);
      expect(list.body.meta.total).toBe(URLS);
      expect((await view.get("/api/v1/endpoints?smartSupported=true&limit=1")).body.meta.total).toBe(probed);
      let success = 0;
      let unchecked = 0;
      for (const page of [1, 2, 3, 4]) {
        const { body } = await view.get(`/api/v1/endpoints?limit=100&page=${page}`);
        for (const entry of body.data as { id: string; status: string }[]) {
          const caps = (await view.get(`/api/v1/endpoints/${entry.id}/capabilities`)).body.data;
          if (caps.probeStatus === "success") {
            success++;
            expect(entry.status).toBe("verified");
            expect(caps.capabilityStatement).toEqual(JSON.parse(CAPABILITY));
            expect(caps.smartConfiguration).toEqual(JSON.parse(SMART));
            expect(caps.summary.supportedResources).toEqual(["Observation", "Patient"]);
          } else {
            unchecked++;
            expect(caps.probeStatus).toBe("unchecked");
            expect(caps.capabilityStatement).toBeNull();
            expect(entry.status).toBe("listed");
          }
        }
      }
      expect(success).toBe(probed);
      expect(unchecked).toBe(URLS - probed);
    } finally {
      view.close();
    }

    const rerun = await finish(probe());
    expect(rerun.code).toBe(0);
    // Only what the killed run had not stored is probed again.
    expect(rerun.output).toContain(`probed ${URLS - probed} URLs`);
    expect(integrity(dbPath)).toBe("ok");
    expect(scalar(dbPath, "SELECT COUNT(*) FROM probes WHERE probe_status = 'success'")).toBe(URLS);
    expect(scalar(dbPath, "SELECT COUNT(*) FROM entries WHERE status = 'verified'")).toBe(URLS);
  }, 60_000);
});
