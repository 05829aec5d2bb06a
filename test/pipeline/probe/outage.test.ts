import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { OUTAGE_DEFAULTS, type ProbeResult } from "../../../src/model/probe";
import { uptimes30d } from "../../../src/pipeline/probe/history";
import { OutageWatch } from "../../../src/pipeline/probe/outage";
import type { ProbeRecord } from "../../../src/pipeline/probe/record";
import { farmDocuments } from "../../../tools/farm/documents";
import { type Farm, startFarm } from "../../../tools/farm/farm";
import { runScript } from "../../support/run-script";
import { countRows } from "../../support/temp-db";
import { documentResult, insertEntry, tempDb } from "./helpers";

const HOSTS = 30;
const PER_HOST = 2;

let farm: Farm | null = null;
let canary: ReturnType<typeof Bun.serve> | null = null;
let ctx: ReturnType<typeof tempDb> | null = null;
afterEach(async () => {
  await farm?.stop();
  canary?.stop(true);
  ctx?.cleanup();
  farm = canary = ctx = null;
});

/** 30 slow-ish hosts with 2 URLs each, all probed once and verified; a canary server. */
async function verifiedFarm() {
  farm = await startFarm(Array(HOSTS).fill("slow"), { documents: farmDocuments(), slowMs: [80, 160], firstOctet: 41 });
  canary = Bun.serve({ hostname: "127.0.3.1", port: 0, fetch: () => new Response("ok") });
  ctx = tempDb();
  const urls = farm.hosts.flatMap((h) => Array.from({ length: PER_HOST }, (_, n) => farm!.baseUrl(h, n)));
  for (const url of urls) insertEntry(ctx.db, { url });
  ctx.db.sqlite.close();
  const env = {
    DATABASE_PATH: ctx.path,
    ALLOW_PRIVATE_NETWORK: "true",
    PROBE_CANARY_URLS: `http://127.0.3.1:${canary.port}/`,
    PROBE_OUTAGE_WINDOW_SECONDS: "30",
    PROBE_OUTAGE_MIN_HOSTS: "5",
  };
  const first = await runScript("src/pipeline/probe/cli.ts", [], env);
  expect(first.code).toBe(0);
  expect(countRows(ctx.path, "SELECT COUNT(*) AS n FROM entries WHERE status = 'verified'")).toBe(urls.length);
  return { urls, env, path: ctx.path };
}

/** The URLs' 30-day uptimes, and how many history records each URL has. */
function history(path: string, urls: string[]) {
  const db = new Database(path, { readonly: true });
  try {
    return uptimes30d(db, urls, new Date());
  } finally {
    db.close();
  }
}

/** Runs `bun run probe --stale-after 0` and calls `during` once it has asked the farm for `after` documents. */
async function probeAgain(env: Record<string, string>, after: number, during: () => Promise<void>) {
  const asked = () => farm!.hosts.reduce((sum, h) => sum + h.requests, 0);
  const before = asked();
  const run = runScript(
    "src/pipeline/probe/cli.ts",
    ["--stale-after", "0", "--concurrency", "8", "--timeout", "2s"],
    env,
  );
  const deadline = Date.now() + 20_000;
  while (asked() - before < after && Date.now() < deadline) await Bun.sleep(5);
  await during();
  return run;
}

describe("a prober outage is not a directory outage", () => {
  test("every server stops mid-run (the canary too): the run stops, exits 3, and no status or uptime changes", async () => {
    const { urls, env, path } = await verifiedFarm();
    const startedAt = new Date().toISOString();
    const run = await probeAgain(env, 80, async () => {
      await farm!.stop();
      canary!.stop(true);
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("the prober lost the network");
    expect(run.stderr).toContain("no canary answered");
    expect(run.stdout).not.toContain("probed");

    expect(countRows(path, "SELECT COUNT(*) AS n FROM entries WHERE status = 'verified'")).toBe(urls.length);
    expect(countRows(path, "SELECT COUNT(*) AS n FROM probes WHERE error_kind IS NOT NULL")).toBe(0);
    expect(history(path, urls)).toEqual(urls.map(() => 1));
    // What the run could not vouch for keeps its old probe, so the next run finds it due first.
    const notRecorded = countRows(path, "SELECT COUNT(*) AS n FROM probes WHERE probed_at < ?", startedAt);
    expect(notRecorded).toBeGreaterThan(0);
    expect(notRecorded).toBeLessThan(urls.length);
  }, 60_000);

  test("one server really down: exactly its URLs become unresponsive, with one failed probe each", async () => {
    const { urls, env, path } = await verifiedFarm();
    const down = farm!.hosts[7]!;
    await farm!.stopHost(down);
    const run = await probeAgain(env, 0, async () => {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`probed ${urls.length} URLs`);
    const downUrls = urls.filter((u) => u.startsWith(down.origin));
    expect(downUrls).toHaveLength(PER_HOST);
    expect(countRows(path, "SELECT COUNT(*) AS n FROM entries WHERE status = 'unresponsive'")).toBe(PER_HOST);
    for (const url of downUrls) {
      expect(countRows(path, "SELECT COUNT(*) AS n FROM entries WHERE url = ? AND status = 'unresponsive'", url)).toBe(
        1,
      );
      expect(countRows(path, "SELECT COUNT(*) AS n FROM probes WHERE url = ? AND error_kind = 'refused'", url)).toBe(1);
    }
    // Two probes each: the first up, the second down; every other URL stays at 100 %.
    expect(history(path, urls)).toEqual(urls.map((u) => (downUrls.includes(u) ? 0.5 : 1)));
  }, 60_000);
});

describe("a set of hosts going down is recorded as down", () => {
  /** Stops 20 of the 30 hosts, probes again with the environment `change` makes, and checks that their 40 URLs are recorded down. */
  async function twentyHostsDown(change: (env: Record<string, string>) => Record<string, string>) {
    const { urls, path, env: first } = await verifiedFarm();
    const env = change(first);
    const down = farm!.hosts.slice(0, 20);
    for (const host of down) await farm!.stopHost(host);
    const run = await probeAgain(env, 0, async () => {});
    expect(run.stderr).not.toContain("the prober lost the network");
    expect(run.code).toBe(0);
    const downUrls = urls.filter((u) => down.some((h) => u.startsWith(`${h.origin}/`)));
    expect(downUrls).toHaveLength(20 * PER_HOST);
    expect(countRows(path, "SELECT COUNT(*) AS n FROM entries WHERE status = 'unresponsive'")).toBe(downUrls.length);
    expect(countRows(path, "SELECT COUNT(*) AS n FROM entries WHERE status = 'verified'")).toBe(
      urls.length - downUrls.length,
    );
  }

  test("20 hosts that were up refuse connections and no canary is configured (the default): their URLs become unresponsive", async () => {
    // The default rule: no canary, at least 20 failing hosts.
    await twentyHostsDown((env) => ({ DATABASE_PATH: env.DATABASE_PATH!, ALLOW_PRIVATE_NETWORK: "true" }));
  }, 90_000);

  test("the configured canary is unreachable: the hosts that still answer vouch for the network", async () => {
    await twentyHostsDown((env) => ({ ...env, PROBE_CANARY_URLS: "http://127.0.3.9:9/" }));
  }, 90_000);
});

describe("the outage rule's counting (OutageWatch)", () => {
  const down = (url: string) =>
    ({
      url,
      result: {
        entryStatus: "unresponsive",
        metadata: documentResult({ errorKind: "refused" }),
        smart: documentResult({ errorKind: "refused" }),
      },
    }) as unknown as ProbeRecord & { result: ProbeResult };
  const up = (url: string) =>
    ({
      url,
      result: {
        entryStatus: "verified",
        metadata: documentResult({ ok: true, httpStatus: 200 }),
        smart: documentResult({ ok: true, httpStatus: 200 }),
      },
    }) as unknown as ProbeRecord & { result: ProbeResult };
  const rule = { ...OUTAGE_DEFAULTS, minHosts: 4, windowMs: 1000, canaryUrls: ["http://127.0.3.2/"] };

  function watch(canaryAnswers: boolean, answeredBefore = true, over: Partial<typeof rule> = {}) {
    const written: string[] = [];
    let now = 0;
    const lost: unknown[] = [];
    const w = new OutageWatch(
      { ...rule, ...over },
      (r) => written.push(r.url),
      () => answeredBefore,
      async () => canaryAnswers,
      (e) => lost.push(e),
      { clock: () => now, graceMs: 0 },
    );
    return { w, written, lost, tick: (ms: number) => (now += ms) };
  }

  test("a canary answers: the failures are real and are all written", async () => {
    const { w, written, lost } = watch(true);
    for (let i = 0; i < 6; i++) w.add(down(`http://h${i}.test/`));
    await w.close();
    expect(lost).toEqual([]);
    expect(written).toHaveLength(6);
  });

  test("no canary answers: nothing held is written and the watch reports the loss", async () => {
    const { w, written, lost, tick } = watch(false);
    w.add(up("http://ok.test/"));
    tick(10);
    for (let i = 0; i < 6; i++) w.add(down(`http://h${i}.test/`));
    await w.close();
    expect(written).toEqual(["http://ok.test/"]);
    expect(lost).toHaveLength(1);
    expect(w.lost?.message).toContain("the prober lost the network");
  });

  test("failures of hosts that were already down, or of too few hosts, or a small share, are written", async () => {
    for (const [answeredBefore, hosts, ups] of [
      [false, 6, 0],
      [true, 3, 0],
      [true, 6, 10],
    ] as const) {
      const { w, written, lost } = watch(false, answeredBefore);
      for (let i = 0; i < ups; i++) w.add(up(`http://up${i}.test/`));
      for (let i = 0; i < hosts; i++) w.add(down(`http://h${i}.test/`));
      await w.close();
      expect(lost).toEqual([]);
      expect(written).toHaveLength(hosts + ups);
    }
  });

  test("failures spread over more than a window are not counted together", async () => {
    const { w, written, lost, tick } = watch(false);
    for (let i = 0; i < 6; i++) {
      w.add(down(`http://h${i}.test/`));
      tick(400);
    }
    await w.close();
    expect(lost).toEqual([]);
    expect(written).toHaveLength(6);
  });
});
