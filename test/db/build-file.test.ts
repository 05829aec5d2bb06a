/**
 * A first-start build killed mid-way (`kill -9`) leaves its temporary files; the next start
 * removes them, even when the killed build's pid now belongs to another live process (a
 * restarted container hands out the same pids), and never a live build's.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { removeDeadBuilds } from "../../src/db/build-file";
import { removeTempDirs, tempDir } from "../support/temp-db";

afterAll(removeTempDirs);

const ROOT = join(import.meta.dir, "../..");
const leftovers = (dir: string) => readdirSync(dir).filter((n) => n.includes(".building-"));

/** A child process building `path` that never finishes; resolves once its temporary file exists. */
async function startBuild(path: string, dir: string) {
  const script = `import { buildDatabaseFile } from ${JSON.stringify(join(ROOT, "src/db/build-file.ts"))};
    await buildDatabaseFile(${JSON.stringify(path)}, async (db) => { db.sqlite.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)"); await new Promise(() => {}); });`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "inherit" });
  const deadline = Date.now() + 30_000;
  while (!leftovers(dir).some((n) => n.endsWith(`-wal`)) && Date.now() < deadline) await Bun.sleep(20);
  expect(leftovers(dir).length).toBeGreaterThan(0);
  return child;
}

test("three killed builds' files are removed by the next start, though their pids now belong to live processes", async () => {
  const dir = tempDir();
  const path = join(dir, "directory.sqlite");
  const neighbour = Bun.spawn(["sleep", "60"]);
  try {
    for (let i = 0; i < 3; i++) {
      const child = await startBuild(path, dir);
      child.kill(9);
      await child.exited;
      // The killed build's pid is taken by a live process (the pid a restarted container hands out again).
      for (const name of leftovers(dir).filter((n) => n.includes(`-${child.pid}-`)))
        renameSync(
          join(dir, name),
          join(dir, name.replace(`-${child.pid}-`, `-${[neighbour.pid, process.pid, 1][i]}-`)),
        );
    }
    expect(leftovers(dir).length).toBeGreaterThan(0);
    removeDeadBuilds(path);
    expect(leftovers(dir)).toEqual([]);
  } finally {
    neighbour.kill();
  }
}, 120_000);

test("a live build's files are left alone", async () => {
  const dir = tempDir();
  const path = join(dir, "directory.sqlite");
  const child = await startBuild(path, dir);
  try {
    const before = leftovers(dir).sort();
    removeDeadBuilds(path);
    expect(leftovers(dir).sort()).toEqual(before);
  } finally {
    child.kill(9);
    await child.exited;
  }
  removeDeadBuilds(path);
  expect(leftovers(dir)).toEqual([]);
}, 60_000);
