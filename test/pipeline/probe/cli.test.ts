import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { indexFileName } from "../../../src/directory/build-cli";
import { parseDuration } from "../../../src/pipeline/probe/duration";
import { ProgressReporter } from "../../../src/pipeline/probe/progress";
import { writeAcmeRegistry } from "../../support/acme";
import { runScript } from "../../support/run-script";
import { countRows } from "../../support/temp-db";
import { fixture, insertEntry, json, serve, tempDb } from "./helpers";

const REPO_ROOT = join(import.meta.dir, "../../..");
const R4 = fixture("r4-capability.json");
const SMART = fixture("smart-patient.json");

const run = (script: string, args: string[], env: Record<string, string>) =>
  runScript(script, args, { ALLOW_PRIVATE_NETWORK: "true", ...env });

const server = serve({}, (request) => {
  const path = new URL(request.url).pathname;
  if (path.startsWith("/auth/")) return json("{}", 401);
  if (path.endsWith("/metadata")) return json(R4);
  if (path.endsWith("/smart-configuration")) return json(SMART);
  return new Response("", { status: 404 });
});
afterAll(() => server.stop());

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

describe("bun run probe", () => {
  test("probes what is due, prints progress lines (not a TTY) and a summary", async () => {
    for (let i = 0; i < 5; i++) insertEntry(ctx.db, { url: `${server.url}/site${i}` });
    insertEntry(ctx.db, { url: `${server.url}/auth/x`, vendorId: "other" });
    ctx.db.sqlite.close();
    const first = await run("src/pipeline/probe/cli.ts", [], { DATABASE_PATH: ctx.path });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("probed 6 URLs");
    expect(first.stdout).toContain("5 success, 0 partial, 1 failed (0 unresponsive)");
    expect(first.stderr).toMatch(/probe: 6\/6 100%/);
    expect(first.stderr).not.toContain("\r");
    expect(countRows(ctx.path, "SELECT COUNT(*) AS n FROM probes")).toBe(6);
    expect(countRows(ctx.path, "SELECT COUNT(*) AS n FROM entries WHERE status = 'verified'")).toBe(5);

    // Fresh results are not due again; --stale-after 0 makes everything due; --vendor and --limit narrow it.
    expect((await run("src/pipeline/probe/cli.ts", [], { DATABASE_PATH: ctx.path })).stdout).toContain("probed 0 URLs");
    expect(
      (await run("src/pipeline/probe/cli.ts", ["--stale-after", "0", "--vendor", "other"], { DATABASE_PATH: ctx.path }))
        .stdout,
    ).toContain("probed 1 URLs");
    expect(
      (
        await run("src/pipeline/probe/cli.ts", ["--stale-after", "0", "--limit", "2", "--concurrency", "4"], {
          DATABASE_PATH: ctx.path,
        })
      ).stdout,
    ).toContain("probed 2 URLs");
  });

  test("usage errors exit 2", async () => {
    for (const args of [["--stale-after", "soon"], ["--limit", "0"], ["--concurrency", "x"], ["--bogus"]]) {
      const r = await run("src/pipeline/probe/cli.ts", args, { DATABASE_PATH: ctx.path });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Usage: bun run probe");
    }
    const help = await run("src/pipeline/probe/cli.ts", ["--help"], { DATABASE_PATH: ctx.path });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--stale-after");
  });

  test("a killed run keeps what it wrote; the next run carries on with the rest", async () => {
    const slow = Array.from({ length: 8 }, () =>
      serve({}, async (request) => {
        await Bun.sleep(150);
        return new URL(request.url).pathname.endsWith("/metadata") ? json(R4) : json(SMART);
      }),
    );
    try {
      const urls = slow.flatMap((s) => Array.from({ length: 6 }, (_, i) => `${s.url}/site${i}`));
      for (const url of urls) insertEntry(ctx.db, { url });
      ctx.db.sqlite.close();
      const proc = Bun.spawn([process.execPath, "src/pipeline/probe/cli.ts"], {
        cwd: REPO_ROOT,
        env: { ...process.env, ALLOW_PRIVATE_NETWORK: "true", DATABASE_PATH: ctx.path },
        stdout: "ignore",
        stderr: "ignore",
      });
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && countRows(ctx.path, "SELECT COUNT(*) AS n FROM probes") < 8) await Bun.sleep(20);
      proc.kill("SIGKILL");
      await proc.exited;
      const kept = countRows(ctx.path, "SELECT COUNT(*) AS n FROM probes");
      expect(kept).toBeGreaterThanOrEqual(8);
      expect(kept).toBeLessThan(48);
      const rest = await run("src/pipeline/probe/cli.ts", [], { DATABASE_PATH: ctx.path });
      expect(rest.code).toBe(0);
      expect(rest.stdout).toContain(`probed ${48 - kept} URLs`);
      expect(countRows(ctx.path, "SELECT COUNT(*) AS n FROM probes")).toBe(48);
    } finally {
      for (const s of slow) s.stop();
    }
  });
});

describe("bun run refresh", () => {
  test("ingests, then probes even though a list failed, and exits 1", async () => {
    const orgs = ["a", "b", "c"];
    const bundle = JSON.stringify({
      resourceType: "Bundle",
      type: "collection",
      entry: orgs.flatMap((key) => [
        {
          resource: {
            resourceType: "Endpoint",
            id: `ep-${key}`,
            connectionType: { code: "hl7-fhir-rest" },
            address: `${server.url}/fhir/${key}`,
          },
        },
        {
          resource: {
            resourceType: "Organization",
            id: `org-${key}`,
            name: `Clinic ${key.toUpperCase()}`,
            endpoint: [{ reference: `Endpoint/ep-${key}` }],
          },
        },
      ]),
    });
    const lists = serve({ "/lists/good": () => json(bundle), "/lists/bad": () => json("oops", 500) });
    try {
      const registry = writeAcmeRegistry(join(dirname(ctx.path), "vendors.json"), [
        { id: "acme-good", url: `${lists.url}/lists/good`, format: "fhir-bundle", audience: "patient" },
        { id: "acme-bad", url: `${lists.url}/lists/bad`, format: "fhir-bundle", audience: "provider" },
      ]);
      ctx.db.sqlite.close();
      const r = await run("src/pipeline/refresh/cli.ts", [], {
        DATABASE_PATH: ctx.path,
        INGEST_REGISTRY: registry,
        INDEX_IN_PROCESS_BELOW: "0",
      });
      expect(r.code).toBe(1);
      // The server's index file of the version refresh wrote, so a server only has to load it.
      const version = countRows(
        ctx.path,
        "SELECT CAST(value AS INTEGER) AS n FROM dataset_meta WHERE key = 'dataset_version'",
      );
      expect(existsSync(join(`${ctx.path}.index`, indexFileName(version)))).toBe(true);
      expect(r.stdout).toContain("== ingest");
      expect(r.stdout).toContain("== probe");
      expect(r.stdout).toContain("probed 3 URLs");
      expect(r.stderr).toContain("acme/acme-bad");
      expect(
        countRows(ctx.path, "SELECT COUNT(*) AS n FROM entries WHERE status = 'verified' AND fhir_version = 'R4'"),
      ).toBe(3);
    } finally {
      lists.stop();
    }
  });
});

describe("CLI pieces", () => {
  test.each([
    ["30m", 1_800_000],
    ["24h", 86_400_000],
    ["7d", 604_800_000],
    ["90s", 90_000],
    ["1.5h", 5_400_000],
    ["0", 0],
  ])("duration %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each(["", "10", "5x", "-1h", "h"])("not a duration: %p", (text) => {
    expect(() => parseDuration(text)).toThrow();
  });

  test("a progress bar on a terminal, redrawn in place", () => {
    const out: string[] = [];
    const progress = new ProgressReporter({ isTTY: true, columns: 100, write: (t: string) => out.push(t) }, "probe", 0);
    progress.update(5, 10);
    progress.update(10, 10);
    progress.finish();
    expect(out[0]).toMatch(/^\rprobe \[#+-+\] 5\/10 50%/);
    expect(out.at(-1)).toBe("\n");
  });
});
