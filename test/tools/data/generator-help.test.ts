import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";

/**
 * The generators of tracked inputs answer `--help` with their usage and refuse an unknown
 * option, writing nothing either way (the file they write keeps its bytes and its time).
 */
const ROOT = join(import.meta.dir, "..", "..", "..");
const GENERATORS = [
  { script: "tools/data/zip-table.ts", writes: "src/model/zip-places.tsv.gz" },
  { script: "tools/data/tld-list.ts", writes: "src/pipeline/ingest/hosts/public-tlds.txt" },
];

const stamp = (path: string) => {
  const stats = statSync(join(ROOT, path));
  return { size: stats.size, modified: stats.mtimeMs };
};

describe("data generators", () => {
  for (const { script, writes } of GENERATORS)
    test(`${script}: --help prints the usage, an unknown option exits 2, neither writes ${writes}`, () => {
      const before = stamp(writes);
      const help = Bun.spawnSync([process.execPath, script, "--help"], { cwd: ROOT });
      expect(help.exitCode).toBe(0);
      expect(help.stdout.toString()).toStartWith("Usage: bun run data:");
      expect(help.stdout.toString()).toContain(writes);
      const wrong = Bun.spawnSync([process.execPath, script, "--nonsense"], { cwd: ROOT });
      expect(wrong.exitCode).toBe(2);
      expect(wrong.stderr.toString()).toContain("Usage:");
      expect(stamp(writes)).toEqual(before);
    });
});
