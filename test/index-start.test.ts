import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureDb } from "./support/fixture";
import { startServer } from "./support/server-process";
import { removeTempDirs, tempDir } from "./support/temp-db";

const ROOT = join(import.meta.dir, "..");

/** Runs `bun src/index.ts` to its exit (at most `timeoutMs`): its exit code and everything it printed. */
async function runToExit(env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number; output: string }> {
  const child = Bun.spawn([process.execPath, join(ROOT, "src/index.ts")], {
    cwd: ROOT,
    env: { ...process.env, HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), timeoutMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, output: stdout + stderr };
}

afterAll(removeTempDirs);

describe("starting on a port another process holds", () => {
  test("the second server exits non-zero naming the port; the first keeps every request", async () => {
    const db = fixtureDb();
    db.sqlite.close();
    const first = await startServer({ DATABASE_PATH: db.path, RATE_LIMIT_MAX: "0" });
    try {
      const port = new URL(first.baseUrl).port;
      const second = await runToExit({ DATABASE_PATH: db.path, PORT: port });
      expect(second.code).not.toBe(0);
      expect(second.output).toContain(`port ${port}`);
      expect(second.output).toContain("already in use");
      expect(second.output).not.toContain('"message":"listening"');
      for (let i = 0; i < 10; i++) expect((await fetch(`${first.baseUrl}/health`)).status).toBe(200);
    } finally {
      await first.stop();
    }
  }, 30_000);
});

describe("a first start whose build lock is not an SQLite file", () => {
  for (const [kind, make] of [
    ["a directory", (path: string) => mkdirSync(path)],
    ["a text file", (path: string) => writeFileSync(path, "not a database, keep me\n".repeat(100))],
  ] as const)
    test(`${kind}: the start stops naming the file, and leaves it as it was`, async () => {
      const dir = tempDir();
      const lock = join(dir, ".directory.sqlite.build-lock");
      make(lock);
      const before = statSync(lock).isDirectory() ? "directory" : readFileSync(lock, "utf8");
      const run = await runToExit({ DATABASE_PATH: join(dir, "directory.sqlite"), PORT: "0" });
      expect(run.code).not.toBe(0);
      expect(run.output).toContain(lock);
      expect(run.output).toContain("move it away");
      expect(run.output).not.toMatch(/^\s+at /m);
      expect(statSync(lock).isDirectory() ? "directory" : readFileSync(lock, "utf8")).toBe(before);
    }, 30_000);
});
