import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../support/temp-db";

const ROOT = join(import.meta.dir, "..", "..");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");

const STATEMENTS = [
  `"select count(*) from probes"`,
  `"SELECT url FROM entries WHERE id = ?"`,
  "`delete from entries where id = ${1}`",
  "sql`UPDATE entries SET status = 'listed'`",
  `"begin immediate"`,
  `"BEGIN"`,
  `"pragma journal_mode"`,
  `"INSERT OR IGNORE INTO t VALUES (1)"`,
  `"create index if_x on t(a)"`,
];
const ENGLISH = [
  `"Select a vendor from the list"`,
  `"with --file: the list it is stored as"`,
  `"create needs --name"`,
  `"update the row set by the probe"`,
  `"Delete the key"`,
];

/**
 * The lines biome's SQL rule reports in `source`, as if it were a file of `folder`: linted in a
 * temporary folder holding the project's Biome configuration and plugin (no version control
 * there to read), so that no file appears in the repository while the other checks read it.
 */
function reportedLines(folder: string, source: string): number[] {
  const dir = tempDir("sql-lint-");
  const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8"));
  writeFileSync(join(dir, "biome.json"), JSON.stringify({ ...config, $schema: undefined, vcs: { enabled: false } }));
  for (const plugin of config.plugins as string[]) {
    mkdirSync(dirname(join(dir, plugin)), { recursive: true });
    copyFileSync(join(ROOT, plugin), join(dir, plugin));
  }
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, "probe.ts"), source);
  const run = Bun.spawnSync([BIOME, "lint", "--max-diagnostics=200", join(folder, "probe.ts")], { cwd: dir });
  const out = run.stdout.toString() + run.stderr.toString();
  return [...out.matchAll(/probe\.ts:(\d+):\d+ plugin/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
}

const source = [...STATEMENTS, ...ENGLISH]
  .map((text, i) => `export const v${i} = ${text};`)
  .concat("declare const sql: (s: TemplateStringsArray) => string;")
  .join("\n");

describe("the lint rule that keeps SQL text in src/db", () => {
  test("reports every statement outside src/db, in any case and in tagged templates, and no English", () => {
    expect(reportedLines("src/server", source)).toEqual(STATEMENTS.map((_, i) => i + 1));
  });
  test("reports nothing in src/db", () => {
    expect(reportedLines("src/db", source)).toEqual([]);
  });
});

describe("SQL runs only in src/db", () => {
  test("no file outside src/db prepares a statement or names bun:sqlite's Statement type", async () => {
    const offenders: string[] = [];
    for await (const file of new Bun.Glob("src/**/*.ts").scan({ cwd: ROOT })) {
      if (file.startsWith("src/db/")) continue;
      const text = await Bun.file(join(ROOT, file)).text();
      if (/\.prepare\(|\.query\(\s*["`]/.test(text)) offenders.push(`${file}: prepares a statement`);
      if (/import[^;]*\bStatement\b[^;]*from "bun:sqlite"/.test(text)) offenders.push(`${file}: imports Statement`);
    }
    expect(offenders).toEqual([]);
  });
});
