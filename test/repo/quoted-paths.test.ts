import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const TOP = ["src", "test", "tools", "bench", "docs", "db", ".ci"];

/** Every file git tracks (or would, untracked and not ignored), as repository paths. */
function trackedFiles(): string[] {
  const run = Bun.spawnSync(["git", "ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT });
  return run.stdout.toString().split("\n").filter(Boolean);
}

function ignored(path: string): boolean {
  return Bun.spawnSync(["git", "check-ignore", "-q", "--no-index", path], { cwd: ROOT }).exitCode === 0;
}

const PATH = new RegExp(`(?<![\\w./-])((?:${TOP.map((t) => t.replace(".", "\\.")).join("|")})/[\\w./-]*[\\w/])`, "g");
const LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g;

/**
 * The repository paths a file quotes: `src/…`, `docs/…` and the like anywhere in its text, and,
 * in Markdown, the targets of relative links (resolved from the file's folder). Patterns and
 * placeholders (`*`, `<name>`, `…`, `{a,b}`) are not paths.
 */
function quotedPaths(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const [, path] of text.matchAll(PATH)) found.add(path!);
  if (file.endsWith(".md"))
    for (const [, target] of text.matchAll(LINK)) {
      if (/^[a-z]+:/i.test(target!) || target!.startsWith("/")) continue;
      found.add(normalize(join(dirname(file), target!)));
    }
  return [...found].filter((p) => !/[*<>…{}]/.test(p));
}

describe("every repository path quoted in README, docs/ and code comments exists", () => {
  const files = trackedFiles().filter((f) => /\.(md|ts|cjs|grit|toml|json|yml|sh)$/.test(f) || f === ".ci/run");
  test("in the README, docs/, src/, test/, tools/ and bench/", async () => {
    const missing: string[] = [];
    for (const file of files) {
      if (file === "package-lock.json" || file === "test/repo/quoted-paths.test.ts") continue;
      // Documents published by others, copied verbatim: their paths are other repositories'.
      if (file.startsWith("test/fixtures/real/") && file !== "test/fixtures/real/README.md") continue;
      const text = await Bun.file(join(ROOT, file)).text();
      for (const path of quotedPaths(file, text)) {
        const bare = path.replace(/\/$/, "");
        // A module named without its extension, as imports and dependency-cruiser name them.
        if (existsSync(join(ROOT, bare)) || existsSync(join(ROOT, `${bare}.ts`)) || ignored(path)) continue;
        missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("the check finds a path that does not exist", () => {
    expect(quotedPaths("docs/x.md", "see `src/fhir/service.ts` and [a](../src/nowhere.ts)")).toEqual([
      "src/fhir/service.ts",
      "src/nowhere.ts",
    ]);
  });
});
