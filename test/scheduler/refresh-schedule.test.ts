/**
 * The server keeps its directory fresh by itself: real servers (`bun src/index.ts`, the start
 * command and nothing else) on a real directory whose lists and FHIR servers are local test
 * servers (127.x, ALLOW_PRIVATE_NETWORK), with the schedule's delays shortened to seconds.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import type { Freshness } from "../../src/model/freshness";
import { ingestAll } from "../../src/pipeline/ingest";
import { farmDocuments } from "../../tools/farm/documents";
import { type Behaviour, type Farm, startFarm } from "../../tools/farm/farm";
import { writeAcmeRegistry } from "../support/acme";
import { chromiumRuns, launchChromium } from "../support/chromium";
import { runScript } from "../support/run-script";
import { type ServerProcess, startServer } from "../support/server-process";
import { countRows, removeTempDirs, tempDir } from "../support/temp-db";

let farm: Farm | null = null;
let lists: ReturnType<typeof Bun.serve> | null = null;
let servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const server of servers) killRun(server);
  servers = [];
  await farm?.stop();
  lists?.stop(true);
  farm = lists = null;
  removeTempDirs();
});

/** The refresh a stopped server left behind, if it outlived it (a SIGKILLed server's child does). */
function killRun(server: ServerProcess) {
  for (const pid of childPids(server.process.pid))
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
}

function childPids(pid: number): number[] {
  const out = Bun.spawnSync(["pgrep", "-P", String(pid)]).stdout.toString();
  return out
    .split("\n")
    .filter((l) => l !== "")
    .map(Number);
}

interface Directory {
  path: string;
  urls: string[];
  env: Record<string, string>;
}

/**
 * A directory of `behaviours.length` local FHIR servers (`perHost` base URLs each), read from a
 * local list by what `bun run ingest` runs (ingestAll, in this process: a process of its own
 * costs half a CPU second, for each of these tests): every entry listed and unprobed, as a first
 * start leaves the national one.
 */
async function localDirectory(
  behaviours: Behaviour[],
  perHost: number,
  slowMs: [number, number],
  hold?: () => Promise<void>,
): Promise<Directory> {
  farm = await startFarm(behaviours, { documents: farmDocuments(), slowMs, firstOctet: 61, hold });
  const urls = farm.hosts.flatMap((host) => Array.from({ length: perHost }, (_, n) => farm!.baseUrl(host, n)));
  const bundle = JSON.stringify({
    resourceType: "Bundle",
    type: "collection",
    entry: urls.flatMap((address, i) => [
      { resource: { resourceType: "Endpoint", id: `ep-${i}`, connectionType: { code: "hl7-fhir-rest" }, address } },
      {
        resource: {
          resourceType: "Organization",
          id: `org-${i}`,
          name: `Clinic ${i}`,
          endpoint: [{ reference: `Endpoint/ep-${i}` }],
        },
      },
    ]),
  });
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(bundle, { headers: { "content-type": "application/fhir+json" } }),
  });
  const dir = tempDir("refresh-schedule-");
  const registry = writeAcmeRegistry(join(dir, "vendors.json"), [
    { id: "acme-all", url: `http://127.0.0.1:${lists.port}/lists/all`, format: "fhir-bundle" },
  ]);
  const env = {
    DATABASE_PATH: join(dir, "directory.sqlite"),
    INGEST_REGISTRY: registry,
    ALLOW_PRIVATE_NETWORK: "true",
  };
  const db = openDatabase(env.DATABASE_PATH);
  try {
    const lists = await ingestAll(db, { registryPath: registry, allowPrivateNetwork: true });
    expect(lists.map((list) => [list.listId, list.ok])).toEqual([["acme-all", true]]);
  } finally {
    db.sqlite.close();
  }
  expect(countRows(env.DATABASE_PATH, "SELECT COUNT(*) AS n FROM probes")).toBe(0);
  return { path: env.DATABASE_PATH, urls, env };
}

/** The schedule on, its delays in seconds. */
const SCHEDULE = {
  REFRESH: "on",
  REFRESH_FIRST_DELAY_SECONDS: "0",
  REFRESH_LOCK_SECONDS: "2",
  REFRESH_EVERY_SECONDS: "3600",
  RATE_LIMIT_MAX: "0",
};

async function freshness(server: ServerProcess): Promise<Freshness> {
  const response = await fetch(`${server.baseUrl}/api/v1/freshness`);
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return ((await response.json()) as { data: Freshness }).data;
}

/**
 * Asks the freshness answer every `everyMs` until `until` holds of it (at most `timeoutMs`); every
 * answer seen. 50 ms catches a run in the middle; a run's outcome, which stays, is waited for
 * at OUTCOME_POLL_MS (each answer costs the server and the test a little CPU: these tests wait
 * for a minute in all).
 */
async function watch(server: ServerProcess, until: (f: Freshness) => boolean, everyMs = 50, timeoutMs = 45_000) {
  const seen: Freshness[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const f = await freshness(server);
    seen.push(f);
    if (until(f)) return seen;
    await Bun.sleep(everyMs);
  }
  throw new Error(`not reached in ${timeoutMs} ms; last answer: ${JSON.stringify(seen.at(-1))}`);
}

const OUTCOME_POLL_MS = 250;

const statuses = (path: string) =>
  new Database(path, { readonly: true })
    .prepare("SELECT status, COUNT(*) AS n FROM entries GROUP BY status ORDER BY status")
    .all() as { status: string; n: number }[];

describe("the server refreshes its directory by itself", () => {
  test("started on an unprobed directory, it asks every server: progress, then the outcome, on the API and the page", async () => {
    // The run is held in its middle until the page has shown it: the slow servers answer ten
    // requests, then none until released (on a busy machine the whole run could otherwise end
    // before the page is loaded), or for 7 s at most from the first request held, well within
    // the probe's 10 s timeout.
    let answered = 0;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = () => {
      if (++answered === 11) setTimeout(release, 7_000);
      return answered <= 10 ? Promise.resolve() : released;
    };
    const dir = await localDirectory([...Array(30).fill("slow"), ...Array(6).fill("closed")], 2, [400, 1200], hold);
    const server = await startServer({ ...dir.env, ...SCHEDULE });
    servers.push(server);
    // The start does not wait for the run: it answers at once, nothing asked yet.
    const first = await freshness(server);
    expect(first.refresh).toBe("on");
    expect(first.lists).toEqual([
      expect.objectContaining({ source: "developer", lists: 1 }) as unknown as Freshness["lists"][number],
    ]);
    expect(first.lastRun).toBeNull();

    const { context, profileDir } = chromiumRuns
      ? await launchChromium("refresh-schedule", { width: 1200, height: 900 })
      : { context: null, profileDir: "" };
    try {
      const seen = await watch(
        server,
        (f) => (f.currentRun?.urlsDone ?? 0) > 0 && f.currentRun!.urlsDone < (f.currentRun!.urlsTotal ?? 0),
      );
      const running = seen.at(-1)!.currentRun!;
      expect(running.state).toBe("running");
      expect(running.phase).toBe("probe");
      expect(running.urlsTotal).toBe(dir.urls.length);
      if (context) {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(`${server.baseUrl}/`);
        await page.locator("#freshness", { hasText: /asking servers now: \d+ of 72/ }).waitFor();
        expect(await page.textContent("#freshness")).toContain("results appear as they come");
      }
      release();
      const done = await watch(server, (f) => f.lastRun !== null, OUTCOME_POLL_MS);
      const last = done.at(-1)!;
      expect(last.currentRun).toBeNull();
      expect(last.lastRun).toMatchObject({ outcome: "ok", urlsDone: dir.urls.length, urlsTotal: dir.urls.length });
      expect(Date.parse(last.nextRunAt!)).toBeGreaterThan(Date.parse(last.lastRun!.startedAt) + 3_500_000);
      // The lists were read again by the run, from the developer's list.
      expect(Date.parse(last.listsAsOf!)).toBeGreaterThan(Date.parse(first.listsAsOf!));
      // Every entry was asked: the slow servers verified, the closed ones unresponsive.
      expect(statuses(dir.path)).toEqual([
        { status: "unresponsive", n: 12 },
        { status: "verified", n: 60 },
      ]);
      if (context) {
        const page = context.pages()[0]!;
        await page.goto(`${server.baseUrl}/?query=clinic`);
        await page.locator("#freshness", { hasText: /servers last asked/ }).waitFor();
        expect(await page.textContent("#freshness")).toMatch(
          /^Lists (as of|dated \d+ \w+ \d{4} to) \d+ \w+ \d{4} \(the developers' own lists\) · servers last asked .* · next check /,
        );
      }
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      expect(metrics).toContain('refresh_last_outcome{outcome="ok"} 1');
      expect(metrics).toContain("refresh_running 0");
    } finally {
      release();
      await context?.close();
      if (profileDir) removeTempDirs();
    }
  }, 90_000);

  test("killed mid-run and started again, it resumes: no URL asked twice", async () => {
    const dir = await localDirectory(Array(40).fill("slow"), 2, [600, 1500]);
    const first = await startServer({ ...dir.env, ...SCHEDULE });
    servers.push(first);
    await watch(first, (f) => (f.currentRun?.urlsDone ?? 0) >= 20);
    // Server and run die at once, as on a machine's crash.
    const children = childPids(first.process.pid);
    expect(children.length).toBe(1);
    first.process.kill("SIGKILL");
    for (const pid of children) process.kill(pid, "SIGKILL");
    await first.process.exited;
    const stored = new Database(dir.path, { readonly: true })
      .prepare("SELECT url FROM probes")
      .all()
      .map((r) => (r as { url: string }).url);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThan(dir.urls.length);

    const second = await startServer({ ...dir.env, ...SCHEDULE });
    servers.push(second);
    const done = await watch(second, (f) => f.lastRun !== null, OUTCOME_POLL_MS);
    const last = done.at(-1)!;
    expect(last.lastRun!.outcome).toBe("ok");
    // The resumed run asked only what the killed one had not stored, and nothing it had.
    expect(last.lastRun!.urlsTotal).toBe(dir.urls.length - stored.length);
    for (const url of stored) expect([url, farm!.metadataRequests.get(url)]).toEqual([url, 1]);
    expect(countRows(dir.path, "SELECT COUNT(*) AS n FROM refresh_runs")).toBe(1);
    expect(countRows(dir.path, "SELECT resumes AS n FROM refresh_runs")).toBe(1);
    expect(countRows(dir.path, "SELECT COUNT(*) AS n FROM probes")).toBe(dir.urls.length);
  }, 90_000);

  test("two servers on one database run one refresh", async () => {
    const dir = await localDirectory(Array(30).fill("slow"), 2, [200, 600]);
    // A lock of 10 s, not 2: on a busy machine the run (at nice 10) can miss 2 s of heartbeats,
    // and the other server then rightly takes it over and asks some URLs again. That takeover is
    // tested above; here, that two servers start one run.
    const schedule = { ...dir.env, ...SCHEDULE, REFRESH_LOCK_SECONDS: "10" };
    const [a, b] = await Promise.all([startServer(schedule), startServer(schedule)]);
    servers.push(a!, b!);
    await watch(a!, (f) => f.lastRun !== null, OUTCOME_POLL_MS);
    const fromB = await freshness(b!);
    expect(fromB.lastRun?.outcome).toBe("ok");
    expect(countRows(dir.path, "SELECT COUNT(*) AS n FROM refresh_runs")).toBe(1);
    expect([...farm!.metadataRequests.values()].every((n) => n === 1)).toBe(true);
    expect(farm!.metadataRequests.size).toBe(dir.urls.length);
  }, 90_000);

  test("a hand-run refresh takes the same lock: refused while the server's run runs", async () => {
    const dir = await localDirectory(Array(20).fill("slow"), 2, [800, 1600]);
    const server = await startServer({ ...dir.env, ...SCHEDULE });
    servers.push(server);
    await watch(server, (f) => f.currentRun?.state === "running");
    const byHand = await runScript("src/pipeline/refresh/cli.ts", [], { ...dir.env, REFRESH_LOCK_SECONDS: "2" });
    expect(byHand.code).toBe(4);
    expect(byHand.stderr).toContain("another run holds the lock");
    await watch(server, (f) => f.lastRun !== null, OUTCOME_POLL_MS);
    expect(countRows(dir.path, "SELECT COUNT(*) AS n FROM refresh_runs")).toBe(1);
  }, 90_000);

  test("with every host refusing, nothing is recorded and the next try waits longer each time", async () => {
    const dir = await localDirectory(Array(24).fill("ok"), 1, [0, 0]);
    const canary = Bun.serve({ hostname: "127.0.3.7", port: 0, fetch: () => new Response("ok") });
    const canaryUrl = `http://127.0.3.7:${canary.port}/`;
    canary.stop(true);
    const env = {
      ...dir.env,
      ...SCHEDULE,
      REFRESH_EVERY_SECONDS: "4",
      REFRESH_RETRY_SECONDS: "3",
      PROBE_CANARY_URLS: canaryUrl,
      PROBE_OUTAGE_WINDOW_SECONDS: "1",
      PROBE_OUTAGE_MIN_HOSTS: "5",
    };
    const server = await startServer(env);
    servers.push(server);
    await watch(server, (f) => f.lastRun?.outcome === "ok", OUTCOME_POLL_MS);
    expect(statuses(dir.path)).toEqual([{ status: "verified", n: 24 }]);
    const probedAt = () =>
      new Database(dir.path, { readonly: true }).prepare("SELECT url, probed_at FROM probes ORDER BY url").all();
    const before = probedAt();
    // The network goes: every host and the canary refuse.
    await farm!.stop();
    farm = null;
    const one = (await watch(server, (f) => f.lastRun?.outcome === "outage", OUTCOME_POLL_MS)).at(-1)!;
    expect(one.failuresInARow).toBe(1);
    expect(one.lastRun!.detail).toContain("lost the network");
    expect(Date.parse(one.nextRunAt!) - Date.parse(one.lastRun!.finishedAt)).toBe(3_000);
    const two = (await watch(server, (f) => f.failuresInARow === 2, OUTCOME_POLL_MS)).at(-1)!;
    expect(Date.parse(two.lastRun!.startedAt)).toBeGreaterThanOrEqual(Date.parse(one.nextRunAt!));
    expect(Date.parse(two.nextRunAt!) - Date.parse(two.lastRun!.finishedAt)).toBe(6_000);
    // Nothing of either run was recorded: every entry still verified, every probe as it was.
    expect(statuses(dir.path)).toEqual([{ status: "verified", n: 24 }]);
    expect(probedAt()).toEqual(before);
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toContain('refresh_last_outcome{outcome="outage"} 1');
    expect(metrics).toContain("refresh_failures_in_a_row 2");
  }, 90_000);
});

describe("datasets the schedule leaves alone", () => {
  test("REFRESH=off: no run, and the answer says so", async () => {
    const dir = await localDirectory(Array(4).fill("ok"), 1, [0, 0]);
    const server = await startServer({ ...dir.env, ...SCHEDULE, REFRESH: "off" });
    servers.push(server);
    await Bun.sleep(2_500);
    const f = await freshness(server);
    expect(f).toMatchObject({ refresh: "off", currentRun: null, lastRun: null, nextRunAt: null });
    expect(farm!.metadataRequests.size).toBe(0);
  }, 30_000);

  test("a generated dataset is never refreshed", async () => {
    const dir = await localDirectory(Array(4).fill("ok"), 1, [0, 0]);
    const db = new Database(dir.path);
    db.prepare("INSERT INTO dataset_meta (key, value) VALUES ('generated_by', 'data:sample')").run();
    db.close();
    const server = await startServer({ ...dir.env, ...SCHEDULE });
    servers.push(server);
    await Bun.sleep(2_500);
    expect(await freshness(server)).toMatchObject({ refresh: "generated", currentRun: null, nextRunAt: null });
    expect(farm!.metadataRequests.size).toBe(0);
  }, 30_000);
});
