import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../../src/db/client";
import { ingestFile, syncVendorRegistry } from "../../../src/pipeline/ingest";
import { DEFAULT_REGISTRY_PATH, loadRegistry } from "../../../src/pipeline/ingest/registry";
import { REQUIRED_VENDOR_IDS } from "../../support/required-vendors";
import { bundle, FOUR, removeTempDirs, tempDir, writeFile, writeRegistry } from "./cli-helpers";
import { fixture } from "./helpers";

afterEach(() => {
  delete process.env.INGEST_REGISTRY;
});
afterAll(removeTempDirs);

describe("vendor registry (db/vendors.json)", () => {
  const registry = loadRegistry(DEFAULT_REGISTRY_PATH);

  test("has the ten required vendors, each with a list page and at least one list", () => {
    const ids = registry.map((v) => v.id);
    for (const id of REQUIRED_VENDOR_IDS) {
      expect(ids).toContain(id);
    }
    for (const vendor of registry) {
      expect(vendor.endpointListUrl).toMatch(/^https?:\/\//);
      // A health plan Lantern names without an endpoint file has only its page.
      if (vendor.kind !== "payer") expect(vendor.lists.length).toBeGreaterThan(0);
    }
    const withoutList = registry.filter((v) => v.lists.length === 0).map((v) => v.id);
    expect(withoutList).toEqual([
      "guidewell-patient-access",
      "guidewell-payer2payer",
      "hcsc",
      "humana",
      "kaiser-permanente",
      "molina-healthcare",
    ]);
  });

  test("list ids are unique across vendors", () => {
    const ids = registry.flatMap((v) => v.lists.map((l) => l.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("a registry with a list id used twice is rejected", () => {
    const dir = tempDir();
    const list = { id: "dup", url: "https://x.test/l", format: "csv", audience: null, fhirVersion: null };
    const path = writeFile(
      dir,
      "r.json",
      JSON.stringify({
        vendors: [
          { id: "a", name: "A", endpointListUrl: "https://a", lists: [list] },
          { id: "b", name: "B", endpointListUrl: "https://b", lists: [list] },
        ],
      }),
    );
    expect(() => loadRegistry(path)).toThrow(/dup used twice/);
  });
});

describe("syncVendorRegistry", () => {
  test("upserts every vendor and list, keeps scrape times, and bumps the dataset version only on change", () => {
    const db = openDatabase(join(tempDir(), "d.sqlite"));
    syncVendorRegistry(db);
    const registry = loadRegistry();
    expect(db.sqlite.query("SELECT count(*) AS n FROM vendors").get()).toEqual({ n: registry.length });
    expect(db.sqlite.query("SELECT count(*) AS n FROM vendor_lists").get()).toEqual({
      n: registry.reduce((n, v) => n + v.lists.length, 0),
    });
    db.sqlite.run("UPDATE vendors SET last_scraped_at = '2026-01-01T00:00:00.000Z' WHERE id = 'epic'");
    const version = () =>
      (db.sqlite.query("SELECT value FROM dataset_meta WHERE key = 'dataset_version'").get() as { value: string })
        .value;
    const before = version();
    syncVendorRegistry(db);
    expect(version()).toBe(before);
    expect(db.sqlite.query("SELECT name, last_scraped_at FROM vendors WHERE id = 'epic'").get()).toEqual({
      name: "Epic Systems",
      last_scraped_at: "2026-01-01T00:00:00.000Z",
    });
  });
});

describe("a list ingested after the registry sync", () => {
  test("keeps the developer's certifications the registry wrote (the report card's products)", async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, "d.sqlite"));
    syncVendorRegistry(db);
    const certifications = () =>
      (
        db.sqlite.query("SELECT certifications FROM vendors WHERE id = 'epic'").get() as {
          certifications: string | null;
        }
      ).certifications;
    const before = certifications();
    expect(JSON.parse(before!)).toHaveLength(16);
    const file = writeFile(
      dir,
      "epic.csv",
      "url,organization_name\nhttps://fhir.clinic.example.org/api/FHIR/R4,Clinic\n",
    );
    const summary = await ingestFile(db, { vendorId: "epic", file });
    expect(summary.ok).toBe(true);
    expect(certifications()).toBe(before);
  });
});

describe("ingestFile", () => {
  function setup() {
    const dir = tempDir();
    process.env.INGEST_REGISTRY = writeRegistry(dir, "http://127.0.0.1:9", [
      {
        id: "other",
        name: "Other",
        endpointListUrl: "https://other.test",
        lists: [{ id: "other-list", url: "https://other.test/l", format: "csv", audience: null, fhirVersion: null }],
      },
    ]);
    return { dir, db: openDatabase(join(dir, "d.sqlite")) };
  }

  test("without --list, a file becomes a list of its own named after the file; --access sets its audience", async () => {
    const { dir, db } = setup();
    const file = writeFile(dir, "Acme Export 2026.json", bundle(FOUR));
    const summary = await ingestFile(db, {
      vendorId: "acme",
      file,
      access: "provider",
      now: "2026-03-01T00:00:00.000Z",
    });
    expect(summary).toEqual({
      vendorId: "acme",
      listId: "acme-file-acme-export-2026",
      source: "file",
      ok: true,
      added: 4,
      updated: 0,
      unchanged: 0,
      removed: 0,
      skipped: 0,
      repairs: [],
      dropped: [],
      unusable: [],
      nameRepairs: [],
    });
    expect(db.sqlite.query("SELECT url, format, audience FROM vendor_lists").get()).toEqual({
      url: `file://${file.replaceAll(" ", "%20")}`,
      format: "fhir-bundle",
      audience: "provider",
    });
    expect(db.sqlite.query("SELECT DISTINCT access, fhir_version, last_updated FROM entries").all()).toEqual([
      { access: '["provider"]', fhir_version: "R4", last_updated: "2026-03-01T00:00:00.000Z" },
    ]);
  });

  test("detects the format from the content whatever the registry says", async () => {
    const { db } = setup();
    const summary = await ingestFile(db, { vendorId: "acme", file: fixture("list.csv"), listId: "acme-patient" });
    expect(summary).toMatchObject({ ok: true, added: 3, skipped: 1 });
    expect(db.sqlite.query("SELECT format FROM vendor_lists WHERE id = 'acme-patient'").get()).toEqual({
      format: "fhir-bundle",
    });
  });

  test("refuses another vendor's list and reports unreadable files", async () => {
    const { db } = setup();
    await expect(ingestFile(db, { vendorId: "acme", file: fixture("list.csv"), listId: "other-list" })).rejects.toThrow(
      /belongs to vendor other/,
    );
    const missing = await ingestFile(db, { vendorId: "acme", file: "/nonexistent/list.json", listId: "acme-patient" });
    expect(missing).toMatchObject({ ok: false, added: 0 });
    expect(missing.error).toMatch(/cannot read/);
  });

  test("an unknown vendor is an error", async () => {
    const { db } = setup();
    await expect(ingestFile(db, { vendorId: "nobody", file: fixture("list.csv") })).rejects.toThrow(/unknown vendor/);
  });
});
