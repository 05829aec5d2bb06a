import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp-db";

const ROOT = join(import.meta.dir, "..", "..");
const MAKER = "./test/repo/fixtures/temp-dir-maker.ts";

/** Runs the maker file as `bun test` does with the repository's bunfig.toml, its temp dir `tmp`; the paths it printed. */
async function runMaker(tmp: string, args: string[]): Promise<{ made: string[]; output: string; code: number }> {
  const child = Bun.spawn([process.execPath, "test", ...args, MAKER], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: tmp },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const output = `${stdout}${stderr}`;
  const made = [...output.matchAll(/^made (.+)$/gm)].map((match) => match[1]!);
  return { made, output, code };
}

describe("a test file leaves no temporary directory behind", () => {
  for (const args of [[], ["--parallel=2"]]) {
    test(`bun test ${args.join(" ")}: passing and failing tests alike`, async () => {
      const tmp = tempDir("temp-dirs-test-");
      const { made, output, code } = await runMaker(tmp, args);
      // The maker ran both tests (one passes, one fails on purpose) and made three paths in `tmp`.
      expect(code, output).toBe(1);
      expect(output).toContain("1 pass");
      expect(output).toContain("1 fail");
      expect(made).toHaveLength(3);
      for (const path of made) {
        expect(path.startsWith(`${tmp}/`)).toBe(true);
        expect(existsSync(path)).toBe(false);
      }
      expect(readdirSync(tmp)).toEqual([]);
    });
  }
});
