import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { type Db, MIGRATIONS_FOLDER, openDatabase } from "../../src/db/client";
import { applyMigrations } from "../../src/db/migrate";
import { CHECKS } from "../../src/model/capability-rules";
import { entryId } from "../../src/model/identity";
import { Rng } from "../../tools/generate/prng";
import { createTestApp } from "../support/app";

/**
 * A database written in the layout before bodies moved to probe_bodies (each probe row carrying
 * its own copy), opened through the migrations: every capabilities answer afterwards carries the
 * very bytes the old rows held.
 */

const REAL = join(import.meta.dir, "..", "..", "..", "shared", "data", "capabilities");
const IDS = 2_000;

let dir: string;
let before: Database;
let db: Db;
let app: ReturnType<typeof createTestApp>;

/** Bodies as servers send them: key order, number spellings, whitespace, escapes and non-ASCII kept. */
function bodyPool(rng: Rng): string[] {
  const pool = [
    '{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1","software":{"name":"A","version":"1"}}',
    '{ "resourceType" : "CapabilityStatement",\n  "fhirVersion": "4.0.1",\r\n  "rest": [ { "resource": [ { "type": "Patient" } ] } ] }\n',
    '{"fhirVersion":"1.0.2","resourceType":"Conformance","x":1.0e2,"y":-0.000,"z":12345678901234567890}',
    '{"resourceType":"CapabilityStatement","publisher":"Clínica São José – \\u00e9t\\u00E9 🏥","date":"2026-01-01"}',
    '{"capabilities":["launch-standalone","permission-patient"],"grant_types_supported":["authorization_code"]}',
    '{"capabilities":["launch-ehr"],"token_endpoint":"https://auth.example/token","extra":{"a":[1,2,{"b":null}]}}',
    "{}",
  ];
  for (let i = 0; i < 30; i++)
    pool.push(
      JSON.stringify({
        resourceType: i % 3 === 0 ? "Conformance" : "CapabilityStatement",
        id: `stmt-${i}`,
        rest: [{ resource: Array.from({ length: 5 + rng.int(60) }, (_, j) => ({ type: `Type${j}` })) }],
      }),
    );
  if (existsSync(REAL)) for (const name of readdirSync(REAL).sort()) pool.push(readFileSync(join(REAL, name), "utf8"));
  return pool;
}

/** Applies only the first migration, the layout before bodies moved, through Drizzle as a real old database had it. */
function createOldLayout(path: string) {
  const folder = join(dir, "migrations-before");
  mkdirSync(join(folder, "meta"), { recursive: true });
  copyFileSync(join(MIGRATIONS_FOLDER, "0000_init.sql"), join(folder, "0000_init.sql"));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  journal.entries = journal.entries.filter((entry) => entry.tag === "0000_init");
  writeFileSync(join(folder, "meta", "_journal.json"), JSON.stringify(journal));
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  applyMigrations(sqlite, folder);
  return sqlite;
}

function fillOldLayout(sqlite: Database) {
  const rng = new Rng("probe-bodies-migration");
  const pool = bodyPool(rng);
  const vendors = [
    ["epic", "Epic Systems"],
    ["oracle-health", "Oracle Health"],
    ["tiny", 'Tiny "Quoted" EHR'],
  ] as const;
  const insertVendor = sqlite.prepare("INSERT INTO vendors (id, name, endpoint_list_url) VALUES (?, ?, ?)");
  const insertEntry = sqlite.prepare(
    `INSERT INTO entries (id, vendor_id, url, organization_name, fhir_version, access, status, last_updated, sort_key)
     VALUES (?, ?, ?, ?, 'R4', '[]', 'listed', '2026-11-01T00:00:00.000Z', ?)`,
  );
  const insertProbe = sqlite.prepare(
    `INSERT INTO probes (url, probed_at, probe_status, metadata_http_status, metadata_body, smart_http_status, smart_body,
       fhir_version, software_name, software_version, supported_resources, smart_supported, access, smart_capabilities, grant_types)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    for (const [id, name] of vendors) insertVendor.run(id, name, `https://${id}.example/list`);
    const urls = Array.from({ length: 1_500 }, (_, i) => `https://fhir${i}.example.org/api/FHIR/R4`);
    for (const [i, url] of urls.entries()) {
      if (i % 10 === 9) continue; // never probed
      const metadata = rng.chance(0.8) ? rng.pick(pool) : null;
      const smart = rng.chance(0.6) ? rng.pick(pool) : null;
      const ok = (metadata ? 1 : 0) + (smart ? 1 : 0);
      insertProbe.run(
        url,
        `2026-11-0${1 + (i % 9)}T0${i % 10}:00:00.000Z`,
        ok === 2 ? "success" : ok === 1 ? "partial" : "failed",
        metadata ? 200 : 500,
        metadata,
        smart ? 200 : 404,
        smart,
        metadata ? rng.pick(["R4", "DSTU2", "UNKNOWN"]) : "UNKNOWN",
        metadata ? rng.pick(["Epic", "Millennium", null]) : null,
        metadata ? "2026.1" : null,
        metadata ? JSON.stringify(rng.pick([["Patient"], ["Observation", "Patient"], []])) : "[]",
        smart ? 1 : 0,
        smart ? '["patient"]' : null,
        smart ? JSON.stringify(rng.pick([["launch-ehr"], ["launch-standalone", "client-public"]])) : "[]",
        smart ? '["authorization_code"]' : "[]",
      );
    }
    for (let n = 0; n < 5_000; n++) {
      const [vendorId] = rng.pick(vendors);
      const url = urls[rng.int(urls.length)]!;
      const organization = `Clinic ${n}`;
      const id = entryId(vendorId, url, null, organization);
      insertEntry.run(id, vendorId, url, organization, id); // the old layout's sort_key: any text
    }
  })();
}

interface OldRow {
  url: string;
  vendorName: string;
  probedAt: string | null;
  probeStatus: string | null;
  fhirVersion: string | null;
  softwareName: string | null;
  softwareVersion: string | null;
  supportedResources: string | null;
  smartSupported: number | null;
  smartCapabilities: string | null;
  grantTypes: string | null;
  metadata: Uint8Array | null;
  smart: Uint8Array | null;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "probe-bodies-migration-"));
  const path = join(dir, "old.sqlite");
  const old = createOldLayout(path);
  fillOldLayout(old);
  old.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  old.close();
  copyFileSync(path, join(dir, "before.sqlite"));
  before = new Database(join(dir, "before.sqlite"), { readonly: true });
  db = openDatabase(path);
  app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
}, 60_000);

afterAll(() => {
  before?.close();
  db?.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const decoder = new TextDecoder();

describe("moving bodies out of the probe rows", () => {
  test("every distinct body is stored once, under its SHA-256, and every probe row keeps its own bytes", () => {
    const distinct = before
      .prepare(
        "SELECT count(*) FROM (SELECT metadata_body FROM probes WHERE metadata_body IS NOT NULL UNION SELECT smart_body FROM probes WHERE smart_body IS NOT NULL)",
      )
      .values()[0]![0] as number;
    const stored = db.sqlite.prepare("SELECT id, sha256, CAST(body AS BLOB) FROM probe_bodies").values() as [
      number,
      string,
      Uint8Array,
    ][];
    expect(stored.length).toBe(distinct);
    expect(distinct).toBeGreaterThan(30);
    for (const [, sha256, body] of stored)
      expect(sha256).toBe(new Bun.CryptoHasher("sha256").update(body).digest("hex"));

    const old = before
      .prepare(
        "SELECT url, CAST(metadata_body AS BLOB), CAST(smart_body AS BLOB), probe_status, supported_resources FROM probes ORDER BY url",
      )
      .values() as [string, Uint8Array | null, Uint8Array | null, string, string][];
    const now = db.sqlite
      .prepare(
        `SELECT p.url, CAST(m.body AS BLOB), CAST(s.body AS BLOB), p.probe_status, p.supported_resources FROM probes p
         LEFT JOIN probe_bodies m ON m.id = p.metadata_body_id LEFT JOIN probe_bodies s ON s.id = p.smart_body_id ORDER BY p.url`,
      )
      .values() as typeof old;
    expect(now).toEqual(old);
    const columns = (db.sqlite.prepare("PRAGMA table_info(probes)").all() as { name: string }[]).map((c) => c.name);
    expect(columns).not.toContain("metadata_body");
    expect(columns).toContain("metadata_body_id");
  });

  test(`capabilities of ${IDS} random ids: the old rows' bodies byte for byte, and the same record`, async () => {
    const rows = before
      .prepare(
        `SELECT e.id, e.url, v.name, p.probed_at, p.probe_status, p.fhir_version, p.software_name, p.software_version,
           p.supported_resources, p.smart_supported, p.smart_capabilities, p.grant_types,
           CAST(p.metadata_body AS BLOB), CAST(p.smart_body AS BLOB)
         FROM entries e JOIN vendors v ON v.id = e.vendor_id LEFT JOIN probes p ON p.url = e.url
         ORDER BY random() LIMIT ${IDS}`,
      )
      .values() as [string, ...unknown[]][];
    expect(rows.length).toBe(IDS);
    let withBodies = 0;
    for (const [id, ...rest] of rows) {
      const [url, vendorName, probedAt, probeStatus, fhirVersion, softwareName, softwareVersion] = rest as (
        | string
        | null
      )[];
      const old = {
        url,
        vendorName,
        probedAt,
        probeStatus,
        fhirVersion,
        softwareName,
        softwareVersion,
        supportedResources: rest[7],
        smartSupported: rest[8],
        smartCapabilities: rest[9],
        grantTypes: rest[10],
        metadata: rest[11],
        smart: rest[12],
      } as OldRow;
      const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/capabilities`));
      expect(response.status).toBe(200);
      const answer = Buffer.from(await response.arrayBuffer());
      // The raw bodies end the answer, exactly as stored before the migration.
      const tail = Buffer.concat([
        Buffer.from('"capabilityStatement":'),
        old.metadata ?? Buffer.from("null"),
        Buffer.from(',"smartConfiguration":'),
        old.smart ?? Buffer.from("null"),
        Buffer.from("}}"),
      ]);
      expect(answer.subarray(answer.length - tail.length).equals(tail)).toBe(true);
      if (old.metadata && old.smart) withBodies++;
      const parse = (body: Uint8Array | null) => (body ? JSON.parse(decoder.decode(body)) : null);
      const list = (text: string | null) => (text ? (JSON.parse(text) as string[]) : []);
      // Facets, checks and verdict are derived from these bodies (test/pipeline/probe/real-facets.test.ts).
      const { checks, verdict, ...data } = JSON.parse(decoder.decode(answer)).data;
      const { usCore, bulkData, smart, access, tls, payer, ...summary } = data.summary;
      expect([
        checks.length,
        Object.keys(verdict).length,
        typeof usCore,
        typeof bulkData,
        typeof smart,
        typeof access,
        typeof tls,
        typeof payer,
      ]).toEqual([CHECKS.length, 3, "object", "object", "object", "object", "object", "object"]);
      // Rows from before the probe read TLS facts: the TLS checks cannot apply yet, no TLS fact is known.
      expect(tls).toEqual({ protocol: null, certificateExpiresAt: null, issuer: null, verified: null });
      expect(checks.slice(-3).map((check: { ok: boolean | null }) => check.ok)).toEqual([null, null, null]);
      expect({ success: true, data: { ...data, summary } }).toEqual({
        success: true,
        data: {
          endpointId: id,
          url: old.url,
          vendorName: old.vendorName,
          lastProbed: old.probedAt,
          probeStatus: old.probeStatus ?? "unchecked",
          summary: {
            fhirVersion: old.metadata ? old.fhirVersion : null,
            softwareName: old.softwareName,
            softwareVersion: old.softwareVersion,
            supportedResourceCount: list(old.supportedResources).length,
            supportedResources: list(old.supportedResources),
            smartSupported: old.smartSupported === 1,
            smartCapabilities: list(old.smartCapabilities),
            grantTypes: list(old.grantTypes),
          },
          capabilityStatement: parse(old.metadata),
          smartConfiguration: parse(old.smart),
        },
      });
    }
    expect(withBodies).toBeGreaterThan(IDS / 4);
  }, 120_000);
});
