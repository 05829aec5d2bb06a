/**
 * Every script of package.json answers `--help` as a user types it (`bun run <script> --help`):
 * exit 0, its usage on stdout, and nothing written. Each runs in a copy of the checkout (its
 * tracked files, node_modules linked) with an empty temporary folder of its own; after it, the
 * copy's files (paths, sizes, modification times) are what they were and that folder is empty.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const scripts = Object.keys(
  ((await Bun.file(join(ROOT, "package.json")).json()) as { scripts: Record<string, string> }).scripts,
);

/** Scripts run at once: each is a Bun process that mostly waits on its own start-up. */
const AT_ONCE = 4;
let running = 0;
const waiting: (() => void)[] = [];
async function inTurn<T>(run: () => Promise<T>): Promise<T> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await run();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

let dir: string;
let checkout: string;

/** Every file under `root` (symbolic links not followed) with its size and modification time. */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const stat = statSync(path, { throwIfNoEntry: false });
        files.set(path, stat ? `${stat.size} ${stat.mtimeMs}` : "link");
      }
    }
  };
  walk(root);
  return files;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "scripts-help-"));
  checkout = join(dir, "checkout");
  const tracked = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT })
    .stdout.toString()
    .split("\0");
  for (const file of tracked.filter((f) => f !== "" && !f.startsWith("test/fixtures/"))) {
    mkdirSync(join(checkout, dirname(file)), { recursive: true });
    cpSync(join(ROOT, file), join(checkout, file));
  }
  symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("every script of package.json answers --help, writing nothing", () => {
  test("the scripts are many, and this test has them all", () => {
    expect(scripts.length).toBeGreaterThan(30);
    expect(scripts).toContain("start");
    expect(scripts).toContain("test");
  });

  for (const script of scripts)
    test.concurrent(
      `bun run ${script} --help`,
      () =>
        inTurn(async () => {
          const temp = mkdtempSync(join(dir, `tmp-${script.replaceAll(":", "-")}-`));
          const before = snapshot(checkout);
          const child = Bun.spawn([process.execPath, "run", script, "--help"], {
            cwd: checkout,
            env: { ...process.env, TMPDIR: temp, DATABASE_PATH: join(temp, "never.sqlite"), CI: "" },
            stdout: "pipe",
            stderr: "pipe",
          });
          const [stdout, stderr, code] = await Promise.all([
            new Response(child.stdout).text(),
            new Response(child.stderr).text(),
            child.exited,
          ]);
          expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
          expect(stdout).toStartWith(`Usage: bun run ${script}`);
          expect(stdout).toContain("-h, --help");
          expect(snapshot(checkout)).toEqual(before);
          expect(readdirSync(temp)).toEqual([]);
        }),
      60_000,
    );
});
