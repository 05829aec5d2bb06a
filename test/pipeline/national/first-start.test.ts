import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../../../src/db/api-keys";
import { openDatabase } from "../../../src/db/client";
import { type ServerProcess, startServer } from "../../support/server-process";

const ROOT = join(import.meta.dir, "../..", "..");
const json = async (url: string): Promise<any> => (await fetch(url)).json();
const dir = mkdtempSync(join(tmpdir(), "national-start-"));
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const leftovers = (path: string) => readdirSync(path).filter((name) => name.includes("building"));

/** Resolves with the first name in `path` that passes `match`, as soon as it exists. */
function appears(path: string, match: (name: string) => boolean): Promise<string> {
  return new Promise((resolve) => {
    const watcher = watch(path, (_, name) => {
      if (name && match(name)) {
        watcher.close();
        resolve(name);
      }
    });
    const found = readdirSync(path).find(match);
    if (found) {
      watcher.close();
      resolve(found);
    }
  });
}

/**
 * One path, first starts on it as users meet them: a start killed mid-build, in a folder that did
 * not exist; then two servers started at once, which remove what the killed one left, build the
 * national directory once between them and serve it. One national build (about three CPU seconds
 * with the index a first start adds) serves the three claims, rather than one build each.
 */
describe("npm start with no database", () => {
  const data = join(dir, "data");
  const path = join(data, "directory.sqlite");
  let killedLeft: string[] = [];
  let twins: ServerProcess[] = [];
  let builder: ServerProcess;
  beforeAll(async () => {
    const first = Bun.spawn([process.execPath, join(ROOT, "src/index.ts")], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATABASE_PATH: path },
      stdout: "ignore",
      stderr: "ignore",
    });
    // The start makes the folder, then its temporary database in it: killed as soon as that exists.
    await appears(dir, (name) => name === "data");
    await appears(data, (name) => name.includes("building"));
    first.kill("SIGKILL");
    await first.exited;
    killedLeft = leftovers(data);
    twins = await Promise.all([
      startServer({ DATABASE_PATH: path }, 170_000),
      startServer({ DATABASE_PATH: path }, 170_000),
    ]);
    servers.push(...twins);
    builder = twins.find((s) => s.output().includes("building the national directory")) ?? twins[0]!;
  }, 180_000);

  test("builds the national directory from the bundled lists, offline, then serves it", async () => {
    expect(builder.output()).toContain("building the national directory from the bundled lists");
    const stats = (await json(`${builder.baseUrl}/api/v1/stats`)).data;
    expect(stats.totalEndpoints).toBeGreaterThan(40_000);
    expect(stats.vendorCount).toBeGreaterThan(120);
    const page = (await json(`${builder.baseUrl}/api/v1/endpoints?vendor=epic&limit=1`)).data;
    expect(page[0]).toMatchObject({ vendorName: "Epic Systems", status: "listed" });
    const capabilities = (await json(`${builder.baseUrl}/api/v1/endpoints/${page[0].id}/capabilities`)).data;
    expect(capabilities.probeStatus).toBe("unchecked");
    // Built in a temporary file and renamed: only the database (and the server's own files) remain.
    expect(leftovers(data)).toEqual([]);
  });

  test("two servers started at once on one missing path build once and serve the same database", async () => {
    const [a, b] = twins;
    expect((await json(`${a!.baseUrl}/api/v1/stats`)).data).toEqual((await json(`${b!.baseUrl}/api/v1/stats`)).data);
    // A key created in the file at the path afterwards works on both: both serve that file.
    const db = openDatabase(path);
    const { key } = createApiKey(db, { name: "twin-check", now: new Date().toISOString() });
    db.sqlite.close();
    for (const server of [a!, b!]) {
      const response = await fetch(`${server.baseUrl}/api/v1/stats`, { headers: { "x-api-key": key } });
      expect(response.status).toBe(200);
    }
    // One built it; the other waited for it.
    const builders = [a!, b!].filter((s) => s.output().includes("building the national directory"));
    expect(builders).toHaveLength(1);
    expect(leftovers(data)).toEqual([]);
  });

  test("a start killed mid-build leaves files the next start removes", async () => {
    expect(killedLeft.length).toBeGreaterThan(0);
    // The killed builder's lock is gone with it: the next start builds, and removes its files.
    expect((await json(`${builder.baseUrl}/api/v1/stats`)).data.totalEndpoints).toBeGreaterThan(40_000);
    expect(leftovers(data)).toEqual([]);
  });
});
