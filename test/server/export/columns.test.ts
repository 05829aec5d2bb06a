/**
 * The export's writers render straight from the read model's columns into bytes. Their output
 * must be exactly what the records give: for every entry of a dataset with awkward strings and
 * of a generated one, NDJSON is `JSON.stringify` of the list's record, CSV is the record's
 * RFC 4180 row, and the FHIR Bundle equals the one rendered from the records, whatever the
 * slices the entries come in.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { Db } from "../../../src/db/client";
import { openDatabase } from "../../../src/db/client";
import { Directory } from "../../../src/directory/directory";
import type { EndpointFilter } from "../../../src/directory/search";
import type { EndpointRecord } from "../../../src/model/endpoints";
import type { ExportWriter } from "../../../src/server/export/formats/writer";
import { FORMATS } from "../../../src/server/export/service";
import { ByteBuffer, equalFolded } from "../../../src/server/http/byte-buffer";
import { generateDataset } from "../../../tools/generate/generator";
import { ENTRIES, VENDORS } from "../../support/fixture";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";
import { basisOfRecord, CSV_FIELDS, expectedCsvRow } from "./helpers";
import { referenceFhirWriter } from "./reference-fhir";

/** Strings that leave the fast path: JSON escapes, CSV quoting, non-ASCII, control characters. */
const AWKWARD = [
  'The "Best" Clinic',
  "Smith, Jones and Partners",
  "Line One\nLine Two",
  "Carriage\r\nReturn Health",
  "Back\\slash Health",
  "Tab\there",
  "Bell\u0007 and DEL\u007f",
  "Ünïcödé Klinik 東京",
  "Emoji 🏥 Care",
  "Line\u2028Separator",
  "",
];

const seeded = () =>
  seedDatabase(tempDbPath(), {
    vendors: [...VENDORS, { id: "quirky", name: 'Quirky "Q", Inc. — Ü' }],
    entries: [
      ...ENTRIES,
      ...AWKWARD.flatMap((name, i) => [
        {
          vendorId: i % 2 === 0 ? "quirky" : "meditech",
          url: `https://fhir.awkward${i}.example/r4?a=1,b="${i}"`,
          organizationName: name,
          npi: i % 3 === 0 ? `${1000000000 + i * 7919}` : null,
          tenantId: i % 4 === 0 ? `tenant,"${i}"` : null,
          city: i % 2 === 0 ? `City, "${i}" Ü` : null,
          state: i % 5 === 0 ? null : "VT",
          zipCode: i % 3 === 1 ? null : `0540${i % 10}`,
          fhirVersion: ["R4", "DSTU2", "STU3", "UNKNOWN"][i % 4]!,
          access: [[], ["patient"], ["provider"], ["patient", "provider"]][i % 4]!,
          status: ["verified", "listed", "unresponsive"][i % 3]!,
        },
        // The same organization under another URL, and its name in other letter case: one
        // Organization with two endpoints, and a second organization of the same run.
        { vendorId: "quirky", url: `https://fhir.awkward${i}.example/second`, organizationName: name },
        {
          vendorId: "quirky",
          url: `https://fhir.awkward${i}.example/r4?a=1,b="${i}"`,
          organizationName: name.toUpperCase(),
          npi: `${2000000000 + i}`,
        },
      ]),
    ],
    at: "2026-11-21T09:00:00.000Z",
  });

function generated(): Db {
  const path = tempDbPath();
  generateDataset({ endpoints: 8_000, out: path, seed: 7 });
  return openDatabase(path);
}

/** The csv row of a record, from its fields: null → empty, access joined with |, quoted when needed. */
function referenceCsvRow(record: EndpointRecord): string {
  const fields = expectedCsvRow(record).map((value) =>
    /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value,
  );
  return `${fields.join(",")}\r\n`;
}

/** A writer's whole output for these ordinals, handed over in slices of `slice` entries. */
function render(writer: ExportWriter, ordinals: number[], slice: number): string {
  const out = new ByteBuffer(16);
  writer.begin(out);
  for (let from = 0; from < ordinals.length; from += slice)
    writer.write(ordinals, from, Math.min(from + slice, ordinals.length), out);
  writer.end(out);
  return new TextDecoder().decode(out.bytes.subarray(0, out.length));
}

function referenceFhir(timestamp: string | null, records: EndpointRecord[], slice: number): string {
  const writer = referenceFhirWriter(timestamp, "http://localhost");
  let text = writer.begin();
  for (let from = 0; from < records.length; from += slice) text += writer.write(records.slice(from, from + slice));
  return text + writer.end();
}

const FILTERS: [string, EndpointFilter][] = [
  ["every entry", { queryWords: [] }],
  ["one vendor", { queryWords: [], vendor: "quirky" }],
  ["one vendor", { queryWords: [], vendor: "epic" }],
  ["one state", { queryWords: [], state: "VT" }],
];

for (const [dataset, open] of [
  ["a dataset of awkward strings", seeded],
  ["a generated dataset", generated],
] as const) {
  describe(dataset, () => {
    let db: Db;
    let directory: Directory;
    // Generating and indexing the dataset takes seconds on a shared, busy host.
    beforeAll(() => {
      db = open();
      directory = new Directory(db.path, db.sqlite, { buildInProcessBelow: 1_000_000 });
    }, 60_000);
    afterAll(() => {
      directory?.close();
      db?.sqlite.close();
      if (db) rmSync(dirname(db.path), { recursive: true, force: true });
    });

    const cases = () => {
      const snapshot = directory.current;
      return FILTERS.map(([label, filter]) => {
        const { total, ordinals } = snapshot.search.search(filter, 0, 1_000_000);
        const { records, bases } = snapshot.list(filter, 0, 1_000_000);
        for (const [i, record] of records.entries()) basisOfRecord.set(record, bases[i]!);
        expect(ordinals.length).toBe(total);
        expect(records.length).toBe(total);
        return { label, snapshot, ordinals, records };
      });
    };

    test("NDJSON: every line is JSON.stringify of the list's record", () => {
      for (const { snapshot, ordinals, records } of cases()) {
        const expected = records.map((record) => `${JSON.stringify(record)}\n`).join("");
        for (const slice of [1, 7, 256])
          expect(render(FORMATS.ndjson.writer(snapshot, "http://localhost"), ordinals, slice)).toBe(expected);
      }
    });

    test("CSV: the header, then every record's RFC 4180 row", () => {
      for (const { snapshot, ordinals, records } of cases()) {
        const expected = `${CSV_FIELDS.join(",")}\r\n${records.map(referenceCsvRow).join("")}`;
        for (const slice of [1, 7, 256])
          expect(render(FORMATS.csv.writer(snapshot, "http://localhost"), ordinals, slice)).toBe(expected);
      }
    });

    test("FHIR: the Bundle rendered from the records, byte for byte", () => {
      for (const { snapshot, ordinals, records } of cases()) {
        const expected = referenceFhir(snapshot.stats.lastUpdated, records, 256);
        // An Endpoint, its developer and its organization at least; no `entry` at all for none.
        if (records.length === 0) expect(JSON.parse(expected)).not.toHaveProperty("entry");
        else expect(JSON.parse(expected).entry.length).toBeGreaterThanOrEqual(3);
        for (const slice of [1, 7, 256]) {
          expect(referenceFhir(snapshot.stats.lastUpdated, records, slice)).toBe(expected);
          expect(render(FORMATS.fhir.writer(snapshot, "http://localhost"), ordinals, slice)).toBe(expected);
        }
      }
      // Three renderings of the reference per filter: seconds on a shared, busy host.
    }, 30_000);
  });
}

describe("ByteBuffer", () => {
  const written = (fill: (out: ByteBuffer) => void) => {
    const out = new ByteBuffer(4);
    fill(out);
    return new TextDecoder().decode(out.bytes.subarray(0, out.length));
  };

  test("json writes exactly JSON.stringify, lone surrogates and separators included", () => {
    for (const value of [
      ...AWKWARD,
      "\u0000\u0008\u000c\u001b\u001f",
      "\ud800",
      "a\udc00b",
      "\ud83c",
      "\ud83c\udfe5\ud83c",
      "\udc00\ud800",
      "2-byte ß, 3-byte €, 4-byte 𝄞",
      "plain ascii ~",
    ])
      expect(written((out) => out.json(value))).toBe(JSON.stringify(value));
  });

  test("utf8 writes TextEncoder's bytes; csv quotes exactly the fields RFC 4180 needs quoted", () => {
    const strings = [...AWKWARD, "\ud800", "a\udc00b", "\ud83c\udfe5\ud83c", "2-byte ß, 3-byte €, 4-byte 𝄞"];
    const decoded = (fill: (out: ByteBuffer) => void) => {
      const out = new ByteBuffer(4);
      fill(out);
      return Buffer.from(out.bytes.subarray(0, out.length));
    };
    for (const value of strings) {
      expect(decoded((out) => out.utf8(value))).toEqual(Buffer.from(new TextEncoder().encode(value)));
      const quoted = /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
      expect(decoded((out) => out.csv(value))).toEqual(Buffer.from(new TextEncoder().encode(quoted)));
    }
  });

  test("equalFolded compares as toLowerCase does, beyond ASCII too", () => {
    const pairs = [
      ["Acme Clinic", "ACME clinic"],
      ["Acme", "Acme "],
      ["a", "b"],
      ["ÄRZTE Haus", "ärzte haus"],
      ["Straße", "STRASSE"],
      ["İstanbul", "i̇stanbul"],
      ["İ", "I"],
      ["", ""],
    ];
    for (const [a, b] of pairs) expect(equalFolded(a!, b!)).toBe(a!.toLowerCase() === b!.toLowerCase());
  });

  test("integer writes String(n); hex writes lowercase pairs", () => {
    for (const n of [0, 7, 10, 99, 1234567893, 9999999999, Number.MAX_SAFE_INTEGER, 1.5])
      expect(written((out) => out.integer(n))).toBe(String(n));
    const bytes = Uint8Array.from([0, 1, 15, 16, 127, 128, 254, 255]);
    expect(written((out) => out.hex(bytes, 2, 5))).toBe(Buffer.from(bytes.subarray(2, 7)).toString("hex"));
  });
});
