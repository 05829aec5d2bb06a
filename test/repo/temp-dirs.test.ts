import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { runScript } from "../support/run-script";
import { tempDir } from "../support/temp-db";

const MAKER = "./test/repo/fixtures/temp-dir-maker.ts";

/** Runs the maker file as `bun test` does with the repository's bunfig.toml, its temp dir `tmp`; the paths it printed. */
async function runMaker(tmp: string, args: string[]): Promise<{ made: string[]; output: string; code: number }> {
  const { code, stdout, stderr } = await runScript("test", [...args, MAKER], { TMPDIR: tmp });
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
