import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { createTestApp } from "../support/app";
import { get } from "../support/fixture";
import { tempDbPath } from "../support/temp-db";

const pageSize = (sqlite: Database) => (sqlite.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;

test("a new database file gets 16 KB pages, so a probe row with its bodies is read in one page", () => {
  const db = openDatabase(tempDbPath());
  expect(pageSize(db.sqlite)).toBe(16_384);
});

test("a database created with SQLite's default 4 KB pages keeps them and is served as before", async () => {
  const path = tempDbPath();
  const old = new Database(path, { create: true });
  old.exec("PRAGMA journal_mode = WAL");
  old.exec("CREATE TABLE created_before (x)");
  old.close();

  const db = openDatabase(path);
  expect(pageSize(db.sqlite)).toBe(4_096);
  db.sqlite.exec(`
    INSERT INTO vendors (id, name, endpoint_list_url, last_scraped_at) VALUES ('v', 'Vendor', 'https://v.example/list', NULL);
    INSERT INTO entries (id, vendor_id, url, list_fhir_version, list_access, fhir_version, access, last_updated)
      VALUES ('${"a".repeat(64)}', 'v', 'https://a.example/fhir', 'R4', '[]', 'R4', '[]', '2026-11-01T00:00:00.000Z');
    INSERT INTO probe_bodies (id, sha256, body) VALUES (1, 'h1', '{"resourceType":"CapabilityStatement","padding":"${"x".repeat(20_000)}"}');
    INSERT INTO probes (url, probed_at, probe_status, metadata_body_id, fhir_version) VALUES ('https://a.example/fhir', '2026-11-02T00:00:00.000Z', 'success', 1, 'R4');
  `);
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  const { status, body } = await get(app, `/api/v1/endpoints/${"a".repeat(64)}/capabilities`);
  expect(status).toBe(200);
  expect(body.data.capabilityStatement.padding.length).toBe(20_000);
});
