import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { markDatasetChanged } from "../../src/db/dataset-meta";
import { indexFileName } from "../../src/directory/build-cli";
import { readDataFile, readDataFileSync } from "../../src/directory/data-file";
import { createTestApp } from "../support/app";
import { generatedDatabase, sampleDatabase } from "../support/built-once";
import { get, VENDORS } from "../support/fixture";
import { seedDatabase } from "../support/seed";
import { startServer } from "../support/server-process";
import { tempDbPath } from "../support/temp-db";

/** The large-dataset path: the index is built by a child process into a file, then mapped. */
describe("directory index built in a child process and kept on disk", async () => {
  const path = tempDbPath("sample.sqlite");
  await sampleDatabase(path);
  const indexDir = `${path}.index`;
  const viaFile = createTestApp({
    db: openDatabase(path),
    config: loadConfig({ RATE_LIMIT_MAX: "0", INDEX_IN_PROCESS_BELOW: "0" }),
  });
  const inline = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });

  test("the file holds the current version", () => {
    expect(readdirSync(indexDir)).toEqual([indexFileName(viaFile.directory.current.version)]);
  });

  test("answers equal those of the in-process index, for every page and several filters", async () => {
    for (const query of [
      "limit=100&page=1",
      "limit=100&page=7",
      "limit=100&page=25",
      "state=CA&fhirVersion=R4",
      "query=st%20mary",
      "hasResource=Patient,Observation&smartSupported=true",
      "vendor=epic&access=provider",
      "smartSupported=false&limit=7&page=3",
    ]) {
      const a = await get(viaFile, `/api/v1/endpoints?${query}`);
      const b = await get(inline, `/api/v1/endpoints?${query}`);
      expect(a.body).toEqual(b.body);
      expect(a.body.data.length).toBeGreaterThan(0);
    }
    expect((await get(viaFile, "/api/v1/stats")).body).toEqual((await get(inline, "/api/v1/stats")).body);
    expect((await get(viaFile, "/api/v1/vendors")).body).toEqual((await get(inline, "/api/v1/vendors")).body);
  });

  test("a second start reuses the file instead of rebuilding", () => {
    const file = `${indexDir}/${readdirSync(indexDir)[0]}`;
    const before = statSync(file).mtimeMs;
    const again = createTestApp({ db: openDatabase(path), config: loadConfig({ INDEX_IN_PROCESS_BELOW: "0" }) });
    expect(again.directory.current.stats.totalEndpoints).toBeGreaterThan(2000);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  test("a file cut short or not ours is refused, read either way", async () => {
    const file = `${indexDir}/${readdirSync(indexDir)[0]}`;
    const bytes = readFileSync(file);
    const cut = `${path}.cut.bin`;
    writeFileSync(cut, bytes.subarray(0, bytes.length - 4096));
    expect(() => readDataFileSync(cut)).toThrow();
    await expect(readDataFile(cut)).rejects.toThrow();
    const other = `${path}.other.bin`;
    writeFileSync(
      other,
      Buffer.concat([bytes.subarray(0, 8), Buffer.from(`{"magic":"something else"`), bytes.subarray(33)]),
    );
    expect(() => readDataFileSync(other)).toThrow();
    await expect(readDataFile(other)).rejects.toThrow();
    // The whole file reads back to the version it was written for.
    expect(readDataFileSync(file).version).toBe(viaFile.directory.current.version);
    expect((await readDataFile(file)).version).toBe(viaFile.directory.current.version);
  });

  test("capabilities stay right when probe rows were renumbered behind the index file (as VACUUM may)", async () => {
    const { body: page } = await get(inline, "/api/v1/endpoints?limit=100&page=3");
    const ids: string[] = page.data.map((entry: { id: string }) => entry.id);
    const before = await Promise.all(
      ids.map(async (id) => (await get(viaFile, `/api/v1/endpoints/${id}/capabilities`)).text),
    );
    expect(before.filter((text) => JSON.parse(text).data.probeStatus !== "unchecked").length).toBeGreaterThan(50);

    // Every probe row moves up by one: the row ids in the file now name a neighbour's row. No
    // dataset change is recorded, so the next start reuses the file as it is.
    const writer = openDatabase(path);
    writer.sqlite.run("UPDATE probes SET rowid = -rowid");
    writer.sqlite.run("UPDATE probes SET rowid = 1 - rowid");
    const again = createTestApp({
      db: openDatabase(path),
      config: loadConfig({ RATE_LIMIT_MAX: "0", INDEX_IN_PROCESS_BELOW: "0" }),
    });
    const after = await Promise.all(
      ids.map(async (id) => (await get(again, `/api/v1/endpoints/${id}/capabilities`)).text),
    );
    expect(after).toEqual(before);
  });

  test("a refresh builds the next version's file, swaps, and keeps at most two files", async () => {
    const writer = openDatabase(path);
    for (let i = 0; i < 3; i++) {
      writer.sqlite.transaction(() => {
        writer.sqlite.prepare("UPDATE entries SET organization_name = ? WHERE row_id = 1").run(`Renamed Clinic ${i}`);
        markDatasetChanged(writer.sqlite, `2026-11-2${i}T00:00:00.000Z`);
      })();
      expect(await viaFile.directory.refreshIfChanged()).toBe(true);
      const { body } = await get(viaFile, `/api/v1/endpoints?query=renamed%20clinic%20${i}`);
      expect(body.meta.total).toBe(1);
    }
    const files = readdirSync(indexDir).sort();
    expect(files.length).toBe(2);
    expect(existsSync(`${indexDir}/${indexFileName(viaFile.directory.current.version)}`)).toBe(true);
  });
});

/**
 * The app on the database at `path` with `env`, as a server start opens it (openDirectory, then
 * createApp), in this process: the tests below are about the index a start finds or builds, and
 * a server process costs about half a CPU second to start.
 */
function startApp(path: string, env: Record<string, string>) {
  const db = openDatabase(path);
  const app = createTestApp({ db, config: loadConfig({ ...env, DATABASE_PATH: path }) });
  const answer = async (target: string) => {
    const response = await app.handle(new Request(`http://localhost${target}`));
    return { status: response.status, text: await response.text() };
  };
  return {
    answer,
    /** Closes its directory and its connection, as a stopping server does. */
    stop() {
      app.directory.close();
      db.sqlite.close();
    },
  };
}

/** Index files belong to the database they were built from, whatever its version number. */
describe("an index file left by another database at the same path", () => {
  test("is not served: the new database's own index is built and its entries listed", async () => {
    const path = tempDbPath("replaced.sqlite");
    const generate = (seed: number) => generatedDatabase({ endpoints: 3000, out: path, seed });
    const env = { INDEX_IN_PROCESS_BELOW: "0", RATE_LIMIT_MAX: "0" };
    const ids = async (server: ReturnType<typeof startApp>) =>
      (JSON.parse((await server.answer("/api/v1/endpoints?limit=20")).text) as { data: { id: string }[] }).data.map(
        (entry) => entry.id,
      );

    await generate(1);
    const first = startApp(path, env);
    const firstIds = await ids(first);
    first.stop();
    expect(readdirSync(`${path}.index`).length).toBe(1);

    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    await generate(2);
    const second = startApp(path, env);
    try {
      const secondIds = await ids(second);
      expect(secondIds).not.toEqual(firstIds);
      // Every listed id is one of this database's: its record answers 200.
      for (const id of secondIds) expect((await second.answer(`/api/v1/endpoints/${id}`)).status).toBe(200);
      const reader = new Database(path, { readonly: true });
      const stored = reader.prepare("SELECT id FROM entries WHERE id = ?");
      for (const id of secondIds) expect(stored.get(id)).not.toBeNull();
      reader.close();
    } finally {
      second.stop();
    }
  }, 60_000);

  test("temporary index files of a dead writer are removed at start; a live writer's stay", async () => {
    const path = tempDbPath("temps.sqlite");
    await sampleDatabase(path);
    const indexDir = `${path}.index`;
    mkdirSync(indexDir, { recursive: true });
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const dead = `${indexDir}/v1-f6.bin.${gone.pid}.tmp`;
    const live = `${indexDir}/v1-f6.bin.${process.pid}.tmp`;
    writeFileSync(dead, "partial");
    writeFileSync(live, "partial");
    createTestApp({
      db: openDatabase(path),
      config: loadConfig({ INDEX_IN_PROCESS_BELOW: "0" }),
    }).directory.close();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});

/** A copy of the database file alone (a replica, a restored backup) carries its index. */
describe("a server given only the database file", () => {
  test("reads the index kept in the database instead of building it, and answers the same", async () => {
    const path = tempDbPath("primary.sqlite");
    await generatedDatabase({ endpoints: 3000, out: path, seed: 3 });
    const env = { INDEX_IN_PROCESS_BELOW: "0", RATE_LIMIT_MAX: "0" };
    // A real server (`bun src/index.ts`): its exit leaves the file whole, ready to be copied
    // alone (in this process, the snapshot's connection, closed, would live on until its
    // statements are collected, and with it a read transaction that no checkpoint can pass).
    const primary = await startServer({ ...env, DATABASE_PATH: path });
    const query = "/api/v1/endpoints?limit=50&state=CA";
    const expected = await (await fetch(`${primary.baseUrl}${query}`)).text();
    await primary.stop();
    expect(readdirSync(`${path}.index`)).toHaveLength(1);

    // The database file itself holds the index of its current version.
    const reader = new Database(path, { readonly: true });
    const version = Number(
      (reader.prepare("SELECT value FROM dataset_meta WHERE key = 'dataset_version'").get() as { value: string }).value,
    );
    const stored = reader.prepare("SELECT version FROM directory_index").all() as { version: number }[];
    reader.close();
    expect(stored).toEqual([{ version }]);

    const replica = tempDbPath("replica.sqlite");
    copyFileSync(path, replica);
    const server = startApp(replica, env);
    try {
      expect((await server.answer(query)).text).toBe(expected);
      // Nothing was built: a build writes its file into the index folder.
      expect(existsSync(`${replica}.index`)).toBe(false);
    } finally {
      server.stop();
    }
  }, 60_000);
});

/**
 * Names past ASCII: the index header is written as ASCII JSON (its strings then parse one byte
 * per character, which writes faster), and every name must come back exactly as stored.
 */
describe("an index file of names past ASCII", () => {
  const names = ["Café Clinic", "O’Brien Family Care", "Clínica San José", "Sleep 🩺 Lab", "Plain Name"];
  const path = tempDbPath("names.sqlite");
  const db = seedDatabase(path, {
    vendors: VENDORS,
    entries: names.map((organizationName, i) => ({
      vendorId: "epic",
      url: `https://fhir${i}.example.org/r4`,
      organizationName,
      city: i === 2 ? "San José" : "Zürich",
      status: "listed",
    })),
    at: "2026-11-21T09:00:00.000Z",
  });
  const viaFile = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", INDEX_IN_PROCESS_BELOW: "0" }) });
  const inline = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  afterAll(() => {
    viaFile.directory.close();
    inline.directory.close();
  });

  test("its header is ASCII, and the list answers as the in-process index does", async () => {
    const [file] = readdirSync(`${path}.index`);
    const bytes = readFileSync(join(`${path}.index`, file!));
    const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    const header = bytes.subarray(8, 8 + headerLength);
    expect(header.every((byte) => byte < 0x80)).toBe(true);
    const a = await get(viaFile, "/api/v1/endpoints?limit=100");
    const b = await get(inline, "/api/v1/endpoints?limit=100");
    expect(a.text).toBe(b.text);
    expect(a.body.data.map((e: { organizationName: string }) => e.organizationName).sort()).toEqual([...names].sort());
    expect((await get(viaFile, "/api/v1/endpoints?city=san%20jose")).body.data).toHaveLength(1);
  });
});
