/**
 * The availability answers precomputed into the directory index (no database read per request)
 * against the answers computed straight from the probe_history rows, for every entry of a
 * generated dataset with 400 days of history: built in process and read back from the index file.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { readLastRefreshAt } from "../../../src/db/dataset-meta";
import { encodeRecord, RECORD_BYTES, urlKey } from "../../../src/db/history-format";
import { AT, historyEntry } from "../../../src/directory/availability-data";
import { buildDirectoryData } from "../../../src/directory/build-data";
import { readDataFileSync, writeDataFile } from "../../../src/directory/data-file";
import { DatasetSnapshot } from "../../../src/directory/snapshot";
import { availabilityBody } from "../../../src/server/availability/service";
import { createTestApp } from "../../support/app";
import { generatedDatabase } from "../../support/built-once";
import { referenceBody } from "./reference-body";

const dir = mkdtempSync(join(tmpdir(), "availability-index-"));
const path = join(dir, "history.sqlite");
const decoder = new TextDecoder();

beforeAll(async () => {
  await generatedDatabase({ endpoints: 4_000, out: path, seed: 7, historyDays: 400 });
  const db = new Database(path);
  try {
    // Some URLs probed but without history (their lastProbed is the stored probed_at text)...
    db.run("DELETE FROM probe_history WHERE url_key IN (SELECT url_key FROM probe_history ORDER BY url_key LIMIT 25)");
    // ...and one whose clock went back: its two newest records swapped.
    const [key, records] = db
      .prepare("SELECT url_key, records FROM probe_history WHERE length(records) >= 28 ORDER BY url_key LIMIT 1")
      .safeIntegers(true)
      .values()[0] as [bigint, Uint8Array];
    const n = records.length / RECORD_BYTES;
    const swapped = records.slice();
    swapped.set(records.subarray((n - 1) * RECORD_BYTES), (n - 2) * RECORD_BYTES);
    swapped.set(records.subarray((n - 2) * RECORD_BYTES, (n - 1) * RECORD_BYTES), (n - 1) * RECORD_BYTES);
    db.prepare("UPDATE probe_history SET records = ?1 WHERE url_key = ?2").run(swapped, key);
  } finally {
    db.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A snapshot of the dataset: its data built in process, or written to an index file and read back. */
async function snapshotOf(viaFile: boolean): Promise<DatasetSnapshot> {
  const sqlite = new Database(path, { readonly: true });
  sqlite.exec("BEGIN");
  let data = buildDirectoryData(sqlite);
  if (viaFile) {
    const file = join(dir, "index.bin");
    await writeDataFile(file, data);
    data = readDataFileSync(file);
  }
  return new DatasetSnapshot(sqlite, data);
}

for (const viaFile of [false, true]) {
  test(`every entry's answer from the index ${viaFile ? "file" : "built in process"} is byte for byte the one computed from probe_history`, async () => {
    const snapshot = await snapshotOf(viaFile);
    const reference = new Database(path, { readonly: true });
    try {
      const lastUpdated = readLastRefreshAt(reference);
      const entries = reference.prepare("SELECT id, url FROM entries").values() as [string, string][];
      const kinds = { history: 0, probedOnly: 0, never: 0 };
      const withHistory = new Set(
        (reference.prepare("SELECT url_key FROM probe_history").safeIntegers(true).values() as [bigint][]).map(
          ([key]) => key,
        ),
      );
      const probed = new Set((reference.prepare("SELECT url FROM probes").values() as [string][]).map(([url]) => url));
      for (const [id, url] of entries) {
        const body = availabilityBody(snapshot, id);
        expect(body).not.toBeNull();
        const text = decoder.decode(body!);
        const expected = referenceBody(reference, id, url, lastUpdated);
        if (text !== expected) expect({ id, text }).toEqual({ id, text: expected });
        if (withHistory.has(urlKey(url))) kinds.history++;
        else if (probed.has(url)) kinds.probedOnly++;
        else kinds.never++;
      }
      expect(entries.length).toBe(4_000);
      expect(kinds.history).toBeGreaterThan(1_000);
      expect(kinds.probedOnly).toBeGreaterThan(0);
      expect(kinds.never).toBeGreaterThan(0);
      expect(availabilityBody(snapshot, "0".repeat(64))).toBeNull();
    } finally {
      reference.close();
      snapshot.close();
    }
  }, 60_000);
}

test("through the route: an answer keeps its bytes after the next ones are built (bodies share one buffer)", async () => {
  const db = openDatabase(path);
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
  try {
    const lastUpdated = readLastRefreshAt(db.sqlite);
    // Entries of different URLs with history: answers of different lengths and contents.
    const entries = db.sqlite
      .prepare("SELECT e.id, e.url FROM entries e JOIN probes p ON p.url = e.url GROUP BY e.url LIMIT 6")
      .values() as [string, string][];
    const get = (id: string, encoding?: string) =>
      app.handle(
        new Request(`http://localhost/api/v1/endpoints/${id}/availability`, {
          headers: encoding ? { "accept-encoding": encoding } : {},
        }),
      );
    const plain = [];
    for (const [id] of entries) plain.push(await get(id));
    const gzipped = [];
    for (const [id] of entries) gzipped.push(await get(id, "gzip"));
    for (const [i, [id, url]] of entries.entries()) {
      const expected = referenceBody(db.sqlite, id, url, lastUpdated);
      expect(await plain[i]!.text()).toBe(expected);
      expect(gzipped[i]!.headers.get("content-encoding")).toBe("gzip");
      expect(decoder.decode(Bun.gunzipSync(new Uint8Array(await gzipped[i]!.arrayBuffer())))).toBe(expected);
    }
  } finally {
    app.directory.close();
    db.sqlite.close();
  }
});

/** A stand-in snapshot with one URL whose index entry is `entry`. */
const oneUrl = (entry: Uint8Array) =>
  ({
    urlIndexOf: (id: string) => (id === "a" ? 0 : -1),
    urlAt: () => "https://example.org/fhir",
    availability: { offsets: Uint32Array.of(0, entry.length), bytes: entry },
  }) as unknown as DatasetSnapshot;

const answer = (entry: Uint8Array) => {
  const text = decoder.decode(availabilityBody(oneUrl(entry), "a")!);
  return { text, data: JSON.parse(text).data };
};

test("times are written as toISOString writes them: epoch, leap days, month and year ends, up to year 9999", () => {
  const times = [
    0,
    Date.parse("2000-02-29T23:59:59.999Z"),
    Date.parse("2000-03-01T00:00:00.000Z"),
    Date.parse("2024-12-31T12:34:56.789Z"),
    Date.parse("2100-02-28T00:00:00.001Z"),
    Date.parse("9999-12-31T23:59:59.999Z"),
  ];
  let seed = 42;
  for (let i = 0; i < 200; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    times.push(Math.floor((seed / 2 ** 31) * 253_402_300_799_999));
  }
  for (const at of times) {
    const record = encodeRecord({
      at,
      outcome: "success",
      up: true,
      error: null,
      httpStatus: 200,
      smartHttpStatus: 404,
      responseTimeMs: 65_534,
    });
    const { data } = answer(historyEntry(at, at, null, record, null, null, 0));
    expect(data.lastProbed).toBe(new Date(at).toISOString());
    expect(data.lastSuccessAt).toBe(new Date(at).toISOString());
    expect(data.recent[0]).toEqual({
      at: new Date(at).toISOString(),
      outcome: "success",
      httpStatus: 200,
      smartHttpStatus: 404,
      responseTimeMs: 65_534,
      error: null,
    });
  }
});

test("every uptime from 0 to 1 in steps of 0.0001 is written as JavaScript prints the number", () => {
  const record = encodeRecord({
    at: 1e12,
    outcome: "failed",
    up: false,
    error: "timeout",
    httpStatus: null,
    smartHttpStatus: null,
    responseTimeMs: null,
  });
  const entry = historyEntry(1e12, null, 1e12, record, null, null, 0);
  for (let k = 0; k <= 10_000; k++) {
    entry[AT.uptime] = k & 0xff;
    entry[AT.uptime + 1] = k >>> 8;
    const { text } = answer(entry);
    expect(text).toContain(`"uptime":{"1d":${String(k / 10_000)},"7d":0,`);
  }
});
