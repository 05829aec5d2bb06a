import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./helpers";

const dir = mkdtempSync(join(tmpdir(), "national-ingest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("ingest --bundled reads every bundled list; the summary names each list's source and the state and fhirVersion coverage", async () => {
  const child = Bun.spawn([process.execPath, join(ROOT, "src/pipeline/ingest/cli.ts"), "--bundled"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_PATH: join(dir, "d.sqlite") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  expect(output).toMatch(/\[137\/137\] /);
  // The table's last columns are repaired, unusable and the source; Foothold's two published URLs without a
  // scheme were repaired; athenahealth's eleven practices named "do not use", "DELETE", "… Inactive" are
  // unusable, each reported with its reason.
  expect(output).toMatch(
    /foothold-technology\s+foothold-technology-lantern\s+ok\s+2\s+0\s+0\s+0\s+0\s+2\s+0\s+bundled/,
  );
  expect(output).toMatch(/athenahealth\s+athenahealth-r4\s+ok\s+\d+\s+0\s+0\s+0\s+\d+\s+\d+\s+11\s+bundled/);
  expect(output).toContain(
    "athenahealth-r4: https://api.platform.athenahealth.com/fhir/r4 (**DO NOT USE**): the organization name says not to use it",
  );
  const coverage =
    /(\d+) entries in the directory: state known for (\d+) \(([\d.]+) %\), fhirVersion for (\d+) \(([\d.]+) %\)/.exec(
      output,
    );
  expect(coverage).not.toBeNull();
  expect(Number(coverage![1])).toBeGreaterThan(40_000);
  expect(Number(coverage![3])).toBeGreaterThanOrEqual(40);
  expect(Number(coverage![5])).toBeGreaterThanOrEqual(85);
  const usage = Bun.spawnSync(
    [process.execPath, join(ROOT, "src/pipeline/ingest/cli.ts"), "--bundled", "--vendor", "epic"],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_PATH: join(dir, "d.sqlite") },
    },
  );
  expect(usage.exitCode).toBe(2);
}, 180_000);
