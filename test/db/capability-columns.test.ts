import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { fillCapabilityColumns } from "../../src/db/capability-columns";
import { openDatabase } from "../../src/db/client";
import { storeBody } from "../../src/db/probe-bodies";
import { tempDbPath } from "../support/temp-db";

const STATEMENT = JSON.stringify({
  resourceType: "CapabilityStatement",
  instantiates: ["http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server"],
});
const SMART = JSON.stringify({
  authorization_endpoint: "https://a.example/authorize",
  token_endpoint: "https://a.example/token",
  // Patient Access for Standalone Apps, complete.
  capabilities: ["launch-standalone", "client-public", "context-standalone-patient", "permission-patient"],
  grant_types_supported: ["authorization_code"],
  code_challenge_methods_supported: ["S256"],
});

test("probe rows stored before the capability columns existed get them from their bodies when the database opens", () => {
  const path = tempDbPath();
  const db = openDatabase(path);
  const insert = db.sqlite.prepare(
    "INSERT INTO probes (url, probed_at, probe_status, metadata_body_id, smart_body_id) VALUES (?1, '2026-11-01T00:00:00Z', ?2, ?3, ?4)",
  );
  insert.run("https://a.example/fhir", "success", storeBody(db.sqlite, STATEMENT), storeBody(db.sqlite, SMART));
  insert.run("https://b.example/fhir", "failed", null, null);
  // The same bodies from an http base URL: one pair, two schemes, two derivations.
  insert.run("http://c.example/fhir", "success", storeBody(db.sqlite, STATEMENT), storeBody(db.sqlite, SMART));
  db.sqlite.close();

  const reopened = openDatabase(path);
  const rows = reopened.sqlite.prepare("SELECT url, supports, verdict FROM probes ORDER BY url").values();
  expect(rows).toEqual([
    [
      "http://c.example/fhir",
      '["us-core","pkce","launch-standalone","client-public"]',
      '{"patientApps":"partial","providerApps":"no","backendServices":"no"}',
    ],
    [
      "https://a.example/fhir",
      '["us-core","pkce","launch-standalone","client-public"]',
      '{"patientApps":"ready","providerApps":"no","backendServices":"no"}',
    ],
    ["https://b.example/fhir", "[]", '{"patientApps":"unknown","providerApps":"unknown","backendServices":"unknown"}'],
  ]);
  reopened.sqlite.close();
});

test("a database with every column derived opens while another connection holds the write lock", () => {
  const path = tempDbPath();
  const db = openDatabase(path);
  db.sqlite
    .prepare("INSERT INTO probes (url, probed_at, probe_status) VALUES (?1, '2026-11-01T00:00:00Z', 'failed')")
    .run("https://b.example/fhir");
  db.sqlite.close();
  const writer = openDatabase(path);
  writer.sqlite.exec("BEGIN IMMEDIATE");
  try {
    // Stands in for a read-only replica (LiteFS), where taking the write lock fails.
    const reader = new Database(path);
    reader.exec("PRAGMA busy_timeout = 0");
    expect(fillCapabilityColumns(reader)).toBe(0);
    reader.close();
  } finally {
    writer.sqlite.exec("ROLLBACK");
    writer.sqlite.close();
  }
});
