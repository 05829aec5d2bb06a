import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { type Db, openDatabase } from "../../../src/db/client";
import { applyListScrape, type ListScrape, RefusedScrapeError } from "../../../src/pipeline/ingest/store";
import type { NormalisedEntry } from "../../../src/pipeline/ingest/types";
import { createTestApp } from "../../support/app";
import { get } from "../../support/fixture";
import { removeTempDirs, tempDir } from "./cli-helpers";

afterAll(removeTempDirs);

const vendor = { id: "acme", name: "Acme EHR", endpointListUrl: "https://acme.test" };
const list = {
  id: "acme-r4",
  url: "https://acme.test/r4.json",
  format: "fhir-bundle" as const,
  audience: "patient" as const,
  fhirVersion: "R4" as const,
};

function entry(key: string, name: string): NormalisedEntry {
  return {
    id: `id-${key}`,
    url: `https://fhir.acme.test/r4/${key}`,
    organizationName: name,
    npi: null,
    tenantId: key,
    city: null,
    state: null,
    zipCode: null,
    listFhirVersion: "R4",
    versionEvidence: "list",
    stateEvidence: null,
    urlEvidence: "published",
    urlPublished: null,
    unusable: null,
    unusableDetail: null,
  };
}

const ENTRIES = [entry("a", "Alpha"), entry("b", "Beta"), entry("c", "Gamma")];

function scrape(db: Db, entries: NormalisedEntry[], now: string, force = false) {
  const input: ListScrape = { vendor, list, entries, now, force };
  return applyListScrape(db, input);
}

function row(db: Db, id: string) {
  return db.sqlite.query("SELECT status, fhir_version, access, last_updated FROM entries WHERE id = ?").get(id) as {
    status: string;
    fhir_version: string;
    access: string;
    last_updated: string;
  };
}

describe("applyListScrape with probe results", () => {
  test("a probe's FHIR version and access win over the list hints, for new entries too", () => {
    const db = openDatabase(join(tempDir(), "d.sqlite"));
    db.sqlite.run(
      `INSERT INTO probe_bodies (id, sha256, body) VALUES (1, 'h1', '{"resourceType":"CapabilityStatement"}');
       INSERT INTO probes (url, probed_at, probe_status, metadata_body_id, fhir_version, access) VALUES
       ('https://fhir.acme.test/r4/a', '2026-01-01T00:00:00.000Z', 'success', 1, 'R4B', '["patient","provider"]')`,
    );
    scrape(db, ENTRIES, "2026-02-01T00:00:00.000Z");
    expect(row(db, "id-a")).toMatchObject({ fhir_version: "R4B", access: '["patient","provider"]', status: "listed" });
    expect(row(db, "id-b")).toMatchObject({ fhir_version: "R4", access: '["patient"]' });
  });

  test("a verified entry stays verified on re-ingest; once removed and back it is listed", () => {
    const db = openDatabase(join(tempDir(), "d.sqlite"));
    scrape(db, ENTRIES, "2026-02-01T00:00:00.000Z");
    db.sqlite.run("UPDATE entries SET status = 'verified' WHERE id = 'id-a'");
    expect(scrape(db, ENTRIES, "2026-02-02T00:00:00.000Z")).toEqual({ added: 0, updated: 0, unchanged: 3, removed: 0 });
    expect(row(db, "id-a")).toMatchObject({ status: "verified", last_updated: "2026-02-01T00:00:00.000Z" });

    scrape(db, ENTRIES.slice(1), "2026-02-03T00:00:00.000Z");
    expect(row(db, "id-a")).toMatchObject({ status: "removed", last_updated: "2026-02-03T00:00:00.000Z" });
    scrape(db, ENTRIES, "2026-02-04T00:00:00.000Z");
    expect(row(db, "id-a")).toMatchObject({ status: "listed", last_updated: "2026-02-04T00:00:00.000Z" });
  });

  test("a refused scrape rolls back: not even the vendor row is written", () => {
    const db = openDatabase(join(tempDir(), "d.sqlite"));
    expect(() => scrape(db, [], "2026-02-01T00:00:00.000Z")).toThrow(RefusedScrapeError);
    expect(db.sqlite.query("SELECT count(*) AS n FROM vendors").get()).toEqual({ n: 0 });
    expect(db.sqlite.query("SELECT value FROM dataset_meta WHERE key = 'dataset_version'").get()).toEqual({
      value: "0",
    });
  });

  test("every write bumps the dataset version inside the transaction", () => {
    const db = openDatabase(join(tempDir(), "d.sqlite"));
    scrape(db, ENTRIES, "2026-02-01T00:00:00.000Z");
    scrape(db, ENTRIES, "2026-02-02T00:00:00.000Z");
    // The database's identity and the change feed's bookkeeping are not the dataset.
    expect(
      db.sqlite
        .query(
          "SELECT key, value FROM dataset_meta WHERE key NOT IN ('database_id', 'changes_from', 'changes_row_mark') ORDER BY key",
        )
        .all(),
    ).toEqual([
      { key: "dataset_version", value: "2" },
      { key: "last_refresh_at", value: "2026-02-02T00:00:00.000Z" },
    ]);
  });

  test("the list operation orders scraped entries by organization, entries without one last", async () => {
    const db = openDatabase(join(tempDir(), "d.sqlite"));
    scrape(db, [{ ...entry("z", ""), organizationName: null }, ...[...ENTRIES].reverse()], "2026-02-01T00:00:00.000Z");
    const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    const { body } = await get(app, "/api/v1/endpoints?vendor=acme");
    expect(body.data.map((e: { organizationName: string | null }) => e.organizationName)).toEqual([
      "Alpha",
      "Beta",
      "Gamma",
      null,
    ]);
  });
});
