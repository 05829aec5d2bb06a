import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from "node:fs";
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

describe("npm start with no database", () => {
  test("builds the national directory from the bundled lists, offline, then serves it", async () => {
    const server = await startServer({ DATABASE_PATH: join(dir, "data", "directory.sqlite") }, 170_000);
    servers.push(server);
    expect(server.output()).toContain("building the national directory from the bundled lists");
    const stats = (await json(`${server.baseUrl}/api/v1/stats`)).data;
    expect(stats.totalEndpoints).toBeGreaterThan(40_000);
    expect(stats.vendorCount).toBeGreaterThan(120);
    const page = (await json(`${server.baseUrl}/api/v1/endpoints?vendor=epic&limit=1`)).data;
    expect(page[0]).toMatchObject({ vendorName: "Epic Systems", status: "listed" });
    const capabilities = (await json(`${server.baseUrl}/api/v1/endpoints/${page[0].id}/capabilities`)).data;
    expect(capabilities.probeStatus).toBe("unchecked");
    // Built in a temporary file and renamed: only the database (and the server's own files) remain.
    expect(leftovers(join(dir, "data"))).toEqual([]);
  }, 180_000);
});

/**
 * A start killed mid-build, then two servers started at once on the same path: the two remove
 * what the killed one left, build once between them and serve the same database. One national
 * build (three CPU seconds and more) serves both claims, rather than one each.
 */
describe("starts on one path: one killed mid-build, then two at once", () => {
  const data = join(dir, "shared");
  const path = join(data, "directory.sqlite");
  let killedLeft: string[] = [];
  let twins: ServerProcess[] = [];
  beforeAll(async () => {
    mkdirSync(data, { recursive: true });
    const first = Bun.spawn([process.execPath, join(ROOT, "src/index.ts")], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATABASE_PATH: path },
      stdout: "ignore",
      stderr: "ignore",
    });
    await appears(data, (name) => name.includes("building"));
    first.kill("SIGKILL");
    await first.exited;
    killedLeft = leftovers(data);
    twins = await Promise.all([
      startServer({ DATABASE_PATH: path }, 170_000),
      startServer({ DATABASE_PATH: path }, 170_000),
    ]);
    servers.push(...twins);
  }, 180_000);

  test("a start killed mid-build leaves files the next start removes", async () => {
    expect(killedLeft.length).toBeGreaterThan(0);
    // The killed builder's lock is gone with it: the next start builds, and removes its files.
    expect((await json(`${twins[0]!.baseUrl}/api/v1/stats`)).data.totalEndpoints).toBeGreaterThan(40_000);
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
});
