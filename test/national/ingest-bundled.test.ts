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
  expect(output).toMatch(/\[136\/136\] /);
  // The table's last column is the source; Foothold's two published URLs without a scheme were repaired.
  expect(output).toMatch(/foothold-technology\s+foothold-technology-lantern\s+ok\s+2\s+0\s+0\s+0\s+0\s+2\s+bundled/);
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
