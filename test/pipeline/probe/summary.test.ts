/** What a run says at the end: `bun run probe` (and `--json`) over a small fault farm. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ProbeRunSummary } from "../../../src/pipeline/probe/summary";
import { farmDocuments } from "../../../tools/farm/documents";
import { type Behaviour, type Farm, startFarm } from "../../../tools/farm/farm";
import { runScript } from "../../support/run-script";
import { insertEntry, tempDb } from "./helpers";

const BEHAVIOURS: Behaviour[] = ["ok", "ok", "silent", "slow", "tls-ok", "expired-cert", "status-500"];
let farm: Farm;
let ctx: ReturnType<typeof tempDb>;
let env: Record<string, string>;
const url = (i: number) => farm.baseUrl(farm.hosts[i]!);
const host = (i: number) => new URL(url(i)).host;

beforeAll(async () => {
  farm = await startFarm(BEHAVIOURS, { documents: farmDocuments(), slowMs: [400, 500], firstOctet: 44 });
  ctx = tempDb();
  BEHAVIOURS.forEach((_, i) => {
    // The first server was unresponsive and the silent one verified: both change in this run.
    const status = i === 0 ? "unresponsive" : i === 2 ? "verified" : "listed";
    insertEntry(ctx.db, { url: url(i), status });
  });
  ctx.db.sqlite.close();
  const ca = join(dirname(ctx.path), "farm-ca.pem");
  writeFileSync(ca, farm.certificates!.ca);
  env = { DATABASE_PATH: ctx.path, ALLOW_PRIVATE_NETWORK: "true", NODE_EXTRA_CA_CERTS: ca };
});

afterAll(async () => {
  await farm.stop();
  ctx.cleanup();
});

test("--json: counts by outcome and error kind, newly unresponsive and verified, slowest hosts, expiring certificates", async () => {
  const run = await runScript("src/pipeline/probe/cli.ts", ["--json", "--timeout", "1s"], env);
  expect(run.code).toBe(0);
  const summary = JSON.parse(run.stdout) as ProbeRunSummary;
  expect(summary).toMatchObject({ probed: 7, success: 4, partial: 0, failed: 3, unresponsive: 2, answered: 4 });
  expect(summary.errorKinds).toEqual({ timeout: 1, certificate_expired: 1, http_status: 1 });
  expect(summary.newlyUnresponsive).toEqual([url(2), url(5)].sort());
  expect(summary.newlyVerified).toEqual([url(0), url(1), url(3), url(4)].sort());
  expect(summary.slowestHosts[0]).toMatchObject({ host: host(3), urls: 1 });
  expect(summary.slowestHosts[0]!.slowestMs).toBeGreaterThanOrEqual(400);
  expect(summary.slowestHosts.map((h) => h.host)).not.toContain(host(2));
  expect(summary.certificatesExpiringSoon).toEqual([
    { host: host(5), expiresAt: expect.any(String), issuer: "Farm Test CA", verified: false },
  ]);
  expect(summary.uptime30d).toEqual({ high: 4, medium: 0, low: 0, never: 3 });
});

test("the text summary says the same; a second run changes no status, so nothing is new", async () => {
  const run = await runScript("src/pipeline/probe/cli.ts", ["--stale-after", "0", "--timeout", "1s"], env);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("probed 7 URLs");
  expect(run.stdout).toContain("4 success, 0 partial, 3 failed (2 unresponsive)");
  expect(run.stdout).toContain("by error kind: certificate_expired 1, http_status 1, timeout 1");
  expect(run.stdout).toContain("newly unresponsive: 0\n  none");
  expect(run.stdout).toContain("newly verified: 0\n  none");
  expect(run.stdout).toMatch(
    new RegExp(`slowest hosts \\(slowest /metadata answer\\):\\n  ${host(3).replace(/\./g, "\\.")} \\d+ms`),
  );
  expect(run.stdout).toContain(`certificates expiring within 30 days: 1\n  ${host(5)} `);
});
