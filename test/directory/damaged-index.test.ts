import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { markDatasetChanged } from "../../src/db/dataset-meta";
import { parseDataBytes } from "../../src/directory/data-file";
import { openDirectory } from "../../src/directory/directory";
import { createLogger } from "../../src/logger";
import { createApp } from "../../src/server/app";
import { generatedDatabase } from "../support/built-once";
import { startServer } from "../support/server-process";
import { removeTempDirs, tempDbPath } from "../support/temp-db";

/**
 * The directory index a database keeps of itself (table directory_index) is read by a server
 * that finds no index file beside the database. Whatever those bytes hold, the server starts,
 * says once what was wrong, and serves the index built from the tables.
 *
 * The first kind of damage and the damaged next version are met by real servers (`bun
 * src/index.ts`), whose log says what was wrong. The other kinds, by the server's parts in this
 * process (openDirectory with the damage told to the test, createApp listening on 127.0.0.1), as
 * src/index.ts puts them together: what each kind tests is the Directory's check of the bytes,
 * and a server process (its start, its log) costs about half a CPU second each time.
 */
const env = { INDEX_IN_PROCESS_BELOW: "0", RATE_LIMIT_MAX: "0" };
const WARNING = "directory index damaged";
const path = tempDbPath("damaged.sqlite");
let stored: { format: number; version: number; database_id: string; bytes: Uint8Array };
let expected: Map<string, string>;
let paths: string[];

const align8 = (n: number) => (n + 7) & ~7;

/** The stored bytes taken apart: header JSON and the arrays after it. */
function split(bytes: Uint8Array): { header: Record<string, unknown>; arrays: Uint8Array } {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)));
  return { header, arrays: bytes.subarray(align8(8 + length), bytes.length - 32) };
}

/** An index file of this header text and arrays, with the right checksum: only its structure is wrong. */
function assemble(headerText: string, arrays: Uint8Array): Uint8Array {
  const header = Buffer.from(headerText);
  const start = align8(8 + header.length);
  const out = new Uint8Array(start + arrays.length + 32);
  new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
  out.set(header, 8);
  out.set(arrays, start);
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(out.subarray(0, start + arrays.length));
  out.set(hasher.digest(), start + arrays.length);
  return out;
}

function withHeader(change: (header: Record<string, unknown>) => unknown): Uint8Array {
  const { header, arrays } = split(stored.bytes);
  change(header);
  return assemble(JSON.stringify(header), arrays);
}

type Sections = { name: string; type: string; offset: number; length: number }[];
const section = (header: Record<string, unknown>, name: string) =>
  (header.sections as Sections).find((s) => s.name === name)!;

/** A server's origin, the reasons it gave for damage, and how to stop it. */
interface Served {
  baseUrl: string;
  reasons: () => string[];
  stop: () => Promise<void>;
}

/** A real server (`bun src/index.ts`) on the database: its reasons are its log's warnings. */
async function realServer(): Promise<Served> {
  const server = await startServer({ ...env, DATABASE_PATH: path });
  return {
    baseUrl: server.baseUrl,
    reasons: () => warnings(server.output()).map((line) => JSON.parse(line).reason as string),
    stop: () => server.stop(),
  };
}

/** The server's parts as src/index.ts puts them together, in this process, the damage told to the test. */
function serverInProcess(): Served {
  const config = loadConfig({ ...env, DATABASE_PATH: path, LOG_LEVEL: "error" });
  const db = openDatabase(path);
  const reasons: string[] = [];
  const directory = openDirectory(db, config, (_source, reason) => reasons.push(reason));
  const app = createApp({ directory, db, config, log: createLogger("error") });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  return {
    baseUrl: `http://127.0.0.1:${app.server!.port}`,
    reasons: () => reasons,
    async stop() {
      await app.stop(true);
      directory.close();
      db.sqlite.close();
    },
  };
}

/** The server's answers that read the index, with its origin taken out. */
async function answers(server: { baseUrl: string }): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const target of paths) {
    const response = await fetch(`${server.baseUrl}${target}`);
    out.set(target, `${response.status} ${(await response.text()).replaceAll(server.baseUrl, "ORIGIN")}`);
  }
  return out;
}

function writeStored(version: number, bytes: Uint8Array | string, sqlite?: Database) {
  const db = sqlite ?? new Database(path);
  db.run("DELETE FROM directory_index");
  db.prepare("INSERT INTO directory_index (format, version, database_id, bytes) VALUES (?, ?, ?, ?)").run(
    stored.format,
    version,
    stored.database_id,
    bytes,
  );
  if (!sqlite) db.close();
}

const warnings = (output: string) => output.split("\n").filter((line) => line.includes(WARNING));

beforeAll(async () => {
  // 1,000 entries: every kind of damage is in the index's structure, whatever its size, and each
  // test's rebuild (a child process) costs a third less than at 3,000.
  await generatedDatabase({ endpoints: 1000, out: path, seed: 5 });
  const server = await startServer({ ...env, DATABASE_PATH: path });
  try {
    const page = (await (await fetch(`${server.baseUrl}/api/v1/endpoints?limit=3`)).json()) as {
      data: { id: string; organizationName: string | null }[];
    };
    const [first, second] = page.data;
    const word = (second!.organizationName ?? "clinic").split(" ")[0]!;
    paths = [
      `/api/v1/endpoints?query=${encodeURIComponent(word)}&limit=20`,
      "/api/v1/endpoints?state=CA&limit=20",
      `/api/v1/endpoints/${first!.id}`,
      `/api/v1/endpoints/${second!.id}/availability`,
      "/api/v1/stats",
      "/fhir/Endpoint?_count=5",
      "/api/v1/export?format=ndjson&state=TX",
    ];
    expected = await answers(server);
  } finally {
    await server.stop();
  }
  const sqlite = new Database(path, { readonly: true });
  stored = sqlite.prepare("SELECT format, version, database_id, bytes FROM directory_index").get() as typeof stored;
  sqlite.close();
}, 60_000);

afterAll(removeTempDirs);

describe("a damaged index kept in the database", () => {
  const damage: [string, () => Uint8Array | string, RegExp][] = [
    ["a text value, not a blob", () => "not an index", /text/],
    ["random bytes", () => crypto.getRandomValues(new Uint8Array(stored.bytes.length)), /./],
    ["cut in half", () => stored.bytes.slice(0, stored.bytes.length >> 1), /./],
    ["empty", () => new Uint8Array(0), /too short/],
    ["one flipped byte", () => stored.bytes.map((b, i) => (i === stored.bytes.length >> 1 ? b ^ 1 : b)), /SHA-256/],
    ["a header that is not JSON", () => assemble('{"magic": "endpoint-dir', split(stored.bytes).arrays), /not JSON/],
    [
      "a section out of range",
      () => withHeader((h) => Object.assign(section(h, "column:url"), { offset: 2 ** 40 })),
      /outside the file/,
    ],
    [
      "a section of another array type",
      () => withHeader((h) => Object.assign(section(h, "column:url"), { type: "Uint8Array" })),
      /column:url is missing or not a Int32Array|holds/,
    ],
    [
      "an array type that is no type",
      () => withHeader((h) => Object.assign(section(h, "column:url"), { type: "constructor" })),
      /unknown type/,
    ],
    [
      "a __proto__ facet",
      () =>
        assemble(
          JSON.stringify(split(stored.bytes).header).replace('"facets":[', '"facets":[["__proto__","x","column:url"],'),
          split(stored.bytes).arrays,
        ),
      /not a known facet/,
    ],
    [
      "a string table that is not a list",
      () => withHeader((h) => Object.assign(h.strings as object, { urls: {} })),
      /urls/,
    ],
    [
      "an id index out of order",
      () =>
        withHeader((h) => {
          // The id index's order section points at the URL column: every by-id lookup would miss.
          const order = section(h, "ids:order");
          order.offset = section(h, "column:url").offset;
        }),
      /id index/,
    ],
    [
      "another version's header",
      () => withHeader((h) => Object.assign(h, { version: (h.version as number) + 1 })),
      /version/,
    ],
    [
      "more entries than the database",
      () => withHeader((h) => Object.assign(h, { size: (h.size as number) + 1 })),
      /./,
    ],
  ];

  for (const [i, [kind, bytes, reason]] of damage.entries())
    test(`${kind}: the server starts, says why once, and answers from the tables`, async () => {
      writeStored(stored.version, bytes());
      rmSync(`${path}.index`, { recursive: true, force: true });
      const server = i === 0 ? await realServer() : serverInProcess();
      try {
        expect(await answers(server)).toEqual(expected);
        const reasons = server.reasons();
        expect(reasons).toHaveLength(1);
        expect(reasons[0]).toMatch(reason);
      } finally {
        await server.stop();
      }
      // The rebuild put a sound copy back.
      const sqlite = new Database(path, { readonly: true });
      const row = sqlite.prepare("SELECT bytes FROM directory_index").get() as { bytes: Uint8Array };
      sqlite.close();
      expect(parseDataBytes("kept", row.bytes).version).toBe(stored.version);
    }, 30_000);
});

test("a damaged copy of the next version: the server builds it from the tables and moves on", async () => {
  writeStored(stored.version, stored.bytes);
  rmSync(`${path}.index`, { recursive: true, force: true });
  const server = await startServer({ ...env, DATABASE_PATH: path, DATASET_POLL_MS: "100" });
  try {
    expect(warnings(server.output())).toHaveLength(0);
    const writer = new Database(path);
    writer.exec("PRAGMA busy_timeout = 5000");
    writer.transaction(() => {
      writer.run("UPDATE entries SET organization_name = 'Zyzzyva Renamed Clinic' WHERE row_id = 1");
      markDatasetChanged(writer, "2026-11-20T00:00:00.000Z");
      writeStored(stored.version + 1, crypto.getRandomValues(new Uint8Array(4096)), writer);
    })();
    writer.close();
    let total = 0;
    for (let i = 0; i < 100 && total === 0; i++) {
      await Bun.sleep(100);
      const body = (await (await fetch(`${server.baseUrl}/api/v1/endpoints?query=zyzzyva`)).json()) as {
        meta: { total: number };
      };
      total = body.meta.total;
    }
    expect(total).toBe(1);
    await Bun.sleep(500);
    expect(warnings(server.output())).toHaveLength(1);
    expect(server.output()).not.toContain("dataset reload failed");
  } finally {
    await server.stop();
  }
}, 30_000);
