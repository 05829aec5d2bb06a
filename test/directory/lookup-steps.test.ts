/**
 * The lookup indexes (npi, url, host, city, near) built in steps, as a version is opened while
 * another is served, against the same indexes built in one go: the same tables whatever the step
 * size, the same answers, and a server that keeps turning its event loop while they are built.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { beginRead, openDatabase } from "../../src/db/client";
import { markDatasetChanged } from "../../src/db/dataset-meta";
import { buildDirectoryData } from "../../src/directory/build-data";
import { Directory } from "../../src/directory/directory";
import type { DirectoryData } from "../../src/directory/directory-data";
import { buildLookupTables, EntryLookups } from "../../src/directory/lookups";
import { zipPlaces } from "../../src/model/zip-places";
import { nationalDatabase } from "../support/built-once";
import { tempDbPath } from "../support/temp-db";

let path: string;
let data: DirectoryData;
let db: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  path = tempDbPath("lookup-steps.sqlite");
  await nationalDatabase(path);
  db = openDatabase(path);
  const sqlite = new Database(path, { readonly: true });
  beginRead(sqlite);
  data = buildDirectoryData(sqlite);
  sqlite.exec("COMMIT");
  sqlite.close();
}, 180_000);

/** Runs a stepped build to its end; its tables and how many steps it took. */
function drain(chunk: number) {
  const steps = buildLookupTables(data, chunk);
  let count = 0;
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return { tables: step.value, steps: count };
    count++;
  }
}

/** Answers of every kind, for values taken from the data itself. */
function answers(lookups: EntryLookups) {
  const { columns, strings, listed } = data;
  const out: unknown[] = [];
  for (let i = 0; i < listed; i += 97) {
    const url = strings.urls[columns.url[i]!]!;
    const host = /^https?:\/\/([^/:?#]+)/.exec(url)?.[1] ?? "";
    out.push(
      Array.from(lookups.npi(columns.npi[i]!)),
      Array.from(lookups.url(url)),
      Array.from(lookups.host(host)),
      Array.from(lookups.host(host.split(".").slice(-2).join("."))),
      columns.city[i]! >= 0 ? Array.from(lookups.city(strings.cities[columns.city[i]!]!.toLowerCase())) : null,
    );
  }
  for (const zip of ["44195", "10001", "94110", "60601", "73301", "99501"]) {
    const place = zipPlaces().get(zip)!;
    for (const radius of [5, 25, 100]) {
      const near = lookups.near(place.latitude, place.longitude, radius, true);
      out.push(Array.from(near.positions), near.total, Array.from(near.ordinals()), lookups.nearPage(near, 10, 25));
      out.push(Array.from(lookups.near(place.latitude, place.longitude, radius, false).ordinals()));
    }
  }
  return out;
}

/** Counts the event loop's turns from now until `stop()`: work done in steps lets it turn. */
function countTurns(): { stop(): number } {
  let turns = 0;
  let counting = true;
  const tick = () => {
    if (!counting) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      counting = false;
      return turns;
    },
  };
}

describe("the lookup indexes built in steps", () => {
  test("are the same tables, in steps of 7 entries or in one step", () => {
    const whole = drain(data.size * 10);
    const stepped = drain(7);
    expect(stepped.steps).toBeGreaterThan(data.listed / 7);
    expect(whole.steps).toBeLessThan(60);
    expect(stepped.tables).toEqual(whole.tables);
    // Not an empty index: the national lists have NPIs, cities and positions.
    expect(whole.tables.npis.size).toBeGreaterThan(100);
    expect(whole.tables.cities.size).toBeGreaterThan(100);
    expect(whole.tables.positionOf.some((position) => position >= 0)).toBe(true);
  });

  test("answer every filter as the one-go build does, and let other work run between steps", async () => {
    const once = new EntryLookups(data);
    const turns = countTurns();
    const stepped = await EntryLookups.buildInSteps(data);
    expect(turns.stop()).toBeGreaterThan(10);
    const expected = answers(once);
    expect(expected.some((answer) => Array.isArray(answer) && answer.length > 1)).toBe(true);
    expect(answers(stepped)).toEqual(expected);
  });
});

describe("a version opened while another is served", () => {
  let directory: Directory;
  afterAll(() => {
    directory?.close();
    db.sqlite.close();
  });

  test("gets lookup indexes equal to those of a start, built while the event loop turns", async () => {
    // Read from an index file: the way a large directory opens its next version.
    directory = new Directory(path, db.sqlite, { buildInProcessBelow: 1, indexDir: `${path}.index` });
    markDatasetChanged(db.sqlite, "2026-11-29T00:00:00.000Z");
    const turns = countTurns();
    expect(await directory.refreshIfChanged()).toBe(true);
    expect(turns.stop()).toBeGreaterThan(10);
    const swapped = directory.current;
    const started = new Directory(path, db.sqlite, { buildInProcessBelow: 1, indexDir: `${path}.index` });
    try {
      expect(started.current.version).toBe(swapped.version);
      expect(answers(swapped.search.lookups)).toEqual(answers(started.current.search.lookups));
    } finally {
      started.close();
    }
  }, 120_000);
});
