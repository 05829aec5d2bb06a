import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_REGISTRY_PATH, loadConfig } from "../../src/config";
import { runScript } from "../support/run-script";

/** Every command-line tool of the project, as it is run. */
const TOOLS = [
  ["src/pipeline/ingest/cli.ts", "bun run ingest"],
  ["src/pipeline/probe/cli.ts", "bun run probe"],
  ["src/pipeline/refresh/cli.ts", "bun run refresh"],
  ["src/keys/cli.ts", "bun run keys"],
  ["tools/sample/cli.ts", "bun run data:sample"],
  ["tools/generate/cli.ts", "bun run data:generate-1m"],
  ["src/directory/build-cli.ts", "bun run db:index"],
  ["tools/sample/generate.ts", "bun run data:sample-lists"],
  ["src/pipeline/national/build-cli.ts", "bun run db:national"],
  ["src/pipeline/national/cli.ts", "bun run data:national-bundle"],
] as const;

const run = (script: string, args: string[], databasePath: string) =>
  runScript(script, args, { DATABASE_PATH: databasePath });

describe("every CLI parses its arguments the same way", () => {
  for (const [script, command] of TOOLS) {
    test(`${command}: --help prints the usage and exits 0; an unknown option exits 2 with the usage, touching nothing`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "cli-conventions-"));
      try {
        const databasePath = join(dir, "untouched.sqlite");
        const help = await run(script, ["--help"], databasePath);
        expect(help.code).toBe(0);
        expect(help.stdout).toStartWith(`Usage: ${command}`);
        expect(help.stdout).toContain("Options:");
        expect(help.stdout).toContain("-h, --help");
        expect(help.stdout).toMatch(/Exit status: 0 done, .*2 bad arguments/);

        const bad = await run(script, ["--no-such-option"], databasePath);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain("--no-such-option");
        expect(bad.stderr).toContain(`Usage: ${command}`);
        expect(existsSync(databasePath)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("loadConfig carries what the CLIs need", () => {
  test("the vendor registry and the probe's contact URL, with their defaults", () => {
    expect(loadConfig({}).registryPath).toBe(DEFAULT_REGISTRY_PATH);
    expect(existsSync(DEFAULT_REGISTRY_PATH)).toBe(true);
    expect(loadConfig({ INGEST_REGISTRY: "/tmp/other.json" }).registryPath).toBe("/tmp/other.json");
    expect(loadConfig({}).probeContactUrl).toBeNull();
    expect(loadConfig({ PROBE_CONTACT_URL: "https://example.org/about" }).probeContactUrl).toBe(
      "https://example.org/about",
    );
  });

  test("a bad value names the variable", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT/);
  });
});
