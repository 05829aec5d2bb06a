import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalUrl, entryId } from "../../../src/model/identity";
import { generateDataset } from "../../../tools/generate/generator";
import { STATES } from "../../../tools/generate/places";
import { REQUIRED_VENDOR_IDS } from "../../support/required-vendors";

const N = 10_000;
let dir: string;
let db: Database;
let first: string;

function ids(path: string): string[] {
  const other = new Database(path, { readonly: true });
  try {
    return (other.prepare("SELECT id FROM entries ORDER BY row_id").values() as [string][]).map(([id]) => id);
  } finally {
    other.close();
  }
}

function count(sql: string, ...params: (string | number)[]): number {
  return (db.prepare(sql).values(...params)[0] as [number])[0];
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "generate-test-"));
  first = join(dir, "a.sqlite");
  generateDataset({ endpoints: N, out: first, seed: 7 });
  db = new Database(first, { readonly: true });
});

afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("determinism", () => {
  test("the same seed gives the same ids in the same order; another seed gives others", () => {
    const again = join(dir, "b.sqlite");
    generateDataset({ endpoints: N, out: again, seed: 7 });
    expect(ids(again)).toEqual(ids(first));
    const other = join(dir, "c.sqlite");
    generateDataset({ endpoints: N, out: other, seed: 8 });
    const otherIds = new Set(ids(other));
    const overlap = ids(first).filter((id) => otherIds.has(id)).length;
    expect(overlap).toBeLessThan(N * 0.2);
  });

  test("refuses to overwrite an existing file without force", () => {
    expect(() => generateDataset({ endpoints: 10, out: first, seed: 7 })).toThrow(/exists/);
  });
});

describe("shape of the generated dataset", () => {
  test("marked as generated, so that no server ever refreshes its invented hosts", () => {
    expect(db.prepare("SELECT value FROM dataset_meta WHERE key = 'generated_by'").get()).toEqual({
      value: "data:generate-1m",
    });
  });

  test("exactly N entries with unique ids computed by identity.ts", () => {
    const rows = db.prepare("SELECT e.id, e.vendor_id, e.url, e.npi, e.organization_name FROM entries e").values() as [
      string,
      string,
      string,
      string | null,
      string | null,
    ][];
    expect(rows.length).toBe(N);
    expect(new Set(rows.map((r) => r[0])).size).toBe(N);
    for (const [id, vendorId, url, npi, name] of rows) expect(id).toBe(entryId(vendorId, canonicalUrl(url), npi, name));
  });

  test("vendor sizes are skewed and real vendor ids are used", () => {
    const sizes = db.prepare("SELECT vendor_id, count(*) FROM entries GROUP BY vendor_id ORDER BY 2 DESC").values() as [
      string,
      number,
    ][];
    expect(sizes.length).toBeGreaterThanOrEqual(15);
    const top3 = sizes.slice(0, 3).reduce((sum, [, n]) => sum + n, 0);
    expect(top3).toBeGreaterThan(N * 0.5);
    expect(sizes[sizes.length - 1]![1]).toBeLessThan(N * 0.01);
    const vendorIds = sizes.map(([id]) => id);
    for (const id of REQUIRED_VENDOR_IDS) {
      expect(vendorIds).toContain(id);
    }
    expect(count("SELECT count(*) FROM vendors")).toBe(sizes.length);
  });

  test("vendors and lists of the project's first registry keep their ids, names and list ids", async () => {
    // The 13 vendors the generator models (db/sample/vendors.json); the national registry names
    // other developers too, with their real list pages.
    const registry = (await Bun.file(join(import.meta.dir, "../..", "..", "db", "sample", "vendors.json")).json()) as {
      vendors: {
        id: string;
        name: string;
        endpointListUrl: string;
        lists: { id: string; audience: string | null }[];
      }[];
    };
    const vendors = new Map(
      (db.prepare("SELECT id, name, endpoint_list_url FROM vendors").values() as [string, string, string][]).map(
        ([id, name, url]) => [id, { name, url }],
      ),
    );
    const lists = db.prepare("SELECT id, vendor_id, audience FROM vendor_lists").values() as [
      string,
      string,
      string | null,
    ][];
    let shared = 0;
    for (const vendor of registry.vendors) {
      const generated = vendors.get(vendor.id);
      if (!generated) continue;
      shared++;
      expect(generated).toEqual({ name: vendor.name, url: vendor.endpointListUrl });
      const known = new Map(vendor.lists.map((l) => [l.id, l.audience]));
      // Epic no longer publishes its STU3 list; the generator keeps one for its STU3 servers.
      for (const [id, , audience] of lists.filter(([, v]) => v === vendor.id)) {
        if (id === "epic-stu3") continue;
        expect(known.has(id)).toBe(true);
        expect(known.get(id)).toBe(audience);
      }
    }
    expect(shared).toBeGreaterThanOrEqual(10);
  });

  test("some URLs are shared by many entries, most by few", () => {
    const perUrl = db.prepare("SELECT url, count(*) FROM entries GROUP BY url ORDER BY 2 DESC").values() as [
      string,
      number,
    ][];
    expect(perUrl[0]![1]).toBeGreaterThanOrEqual(1000);
    expect(perUrl[0]![0]).toBe("https://api.platform.athenahealth.com/fhir/r4");
    expect(perUrl.filter(([, n]) => n >= 100).length).toBeGreaterThanOrEqual(3);
    expect(perUrl[Math.floor(perUrl.length / 2)]![1]).toBeLessThanOrEqual(5);
  });

  test("all 56 states and territories, and some entries without a location", () => {
    const states = (
      db.prepare("SELECT DISTINCT state FROM entries WHERE state IS NOT NULL").values() as [string][]
    ).map(([s]) => s);
    expect(STATES.length).toBe(56);
    expect(new Set(states)).toEqual(new Set(STATES.map((s) => s.code)));
    expect(count("SELECT count(*) FROM entries WHERE state IS NULL")).toBeGreaterThan(0);
    expect(
      count(
        "SELECT count(*) FROM entries WHERE zip_code IS NOT NULL AND zip_code NOT GLOB '[0-9][0-9][0-9][0-9][0-9]' AND zip_code NOT GLOB '[0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9]'",
      ),
    ).toBe(0);
    expect(count("SELECT count(*) FROM entries WHERE zip_code LIKE '%-%'")).toBeGreaterThan(0);
  });

  test("every fhirVersion, status, access shape and probe state occurs", () => {
    const values = (sql: string) => new Set((db.prepare(sql).values() as [string][]).map(([v]) => v));
    expect(values("SELECT DISTINCT fhir_version FROM entries")).toEqual(
      new Set(["DSTU2", "STU3", "R4", "R4B", "R5", "UNKNOWN"]),
    );
    expect(values("SELECT DISTINCT status FROM entries")).toEqual(
      new Set(["listed", "verified", "unresponsive", "removed"]),
    );
    expect(values("SELECT DISTINCT access FROM entries")).toEqual(
      new Set(['["patient"]', '["provider"]', '["patient","provider"]', "[]"]),
    );
    expect(values("SELECT DISTINCT probe_status FROM probes")).toEqual(new Set(["success", "partial", "failed"]));
    // unchecked: entries whose URL was never probed.
    expect(
      count("SELECT count(*) FROM entries e WHERE NOT EXISTS (SELECT 1 FROM probes p WHERE p.url = e.url)"),
    ).toBeGreaterThan(0);
    // Both kinds of partial: metadata without SMART, SMART without metadata.
    expect(
      count(
        "SELECT count(*) FROM probes WHERE probe_status = 'partial' AND metadata_body_id IS NOT NULL AND smart_body_id IS NULL",
      ),
    ).toBeGreaterThan(0);
    expect(
      count(
        "SELECT count(*) FROM probes WHERE probe_status = 'partial' AND metadata_body_id IS NULL AND smart_body_id IS NOT NULL",
      ),
    ).toBeGreaterThan(0);
    const r4 = count("SELECT count(*) FROM entries WHERE fhir_version = 'R4'");
    expect(r4).toBeGreaterThan(N * 0.6);
  });

  test("organization names: realistic, some accented, some missing; NPIs on some, all valid", () => {
    expect(count("SELECT count(*) FROM entries WHERE organization_name IS NULL")).toBeGreaterThan(0);
    const names = (
      db.prepare("SELECT organization_name FROM entries WHERE organization_name IS NOT NULL").values() as [string][]
    ).map(([n]) => n);
    expect(names.filter((n) => n !== n.normalize("NFD").replace(/[\u0300-\u036f]/g, "")).length).toBeGreaterThan(
      N * 0.02,
    );
    const words = new Map<string, number>();
    for (const name of names)
      for (const w of name.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (w) words.set(w, (words.get(w) ?? 0) + 1);
    expect(words.size).toBeGreaterThan(500);
    expect(words.get("medicine")!).toBeGreaterThan(N * 0.03);
    const npis = (db.prepare("SELECT npi FROM entries WHERE npi IS NOT NULL").values() as [string][]).map(([n]) => n);
    expect(npis.length).toBeGreaterThan(N * 0.1);
    expect(npis.length).toBeLessThan(N * 0.7);
    for (const npi of npis) {
      expect(npi).toMatch(/^[12]\d{9}$/);
      let sum = 0;
      const digits = `80840${npi}`;
      for (let i = 0; i < digits.length; i++) {
        let d = Number(digits[digits.length - 1 - i]);
        if (i % 2 === 1) {
          d *= 2;
          if (d > 9) d -= 9;
        }
        sum += d;
      }
      expect(sum % 10).toBe(0);
    }
  });

  test("tenant ids: null where the URL carries none, else part of the URL", () => {
    expect(
      count(
        "SELECT count(*) FROM entries WHERE vendor_id IN ('epic', 'meditech', 'athenahealth', 'nextgen') AND tenant_id IS NOT NULL",
      ),
    ).toBe(0);
    expect(
      count(
        "SELECT count(*) FROM entries WHERE vendor_id IN ('oracle-health', 'eclinicalworks', 'veradigm', 'greenway', 'practice-fusion', 'medhost') AND tenant_id IS NULL",
      ),
    ).toBe(0);
    expect(count("SELECT count(*) FROM entries WHERE tenant_id IS NOT NULL AND instr(url, tenant_id) = 0")).toBe(0);
  });

  test("probes: valid JSON bodies whose resources match supported_resources; varied resource sets", () => {
    const rows = db
      .prepare(
        `SELECT p.software_name, p.probe_status, m.body, s.body, p.supported_resources, p.smart_supported, p.access, p.fhir_version, p.smart_capabilities
         FROM probes p LEFT JOIN probe_bodies m ON m.id = p.metadata_body_id LEFT JOIN probe_bodies s ON s.id = p.smart_body_id`,
      )
      .values() as [
      string | null,
      string,
      string | null,
      string | null,
      string,
      number,
      string | null,
      string,
      string,
    ][];
    expect(rows.length).toBeGreaterThan(100);
    const sets = new Set<string>();
    for (const [softwareName, status, metadata, smart, resources, smartSupported, access, fhirVersion, caps] of rows) {
      expect(status).toBe(
        metadata !== null && smart !== null ? "success" : metadata !== null || smart !== null ? "partial" : "failed",
      );
      expect(smartSupported).toBe(smart !== null ? 1 : 0);
      const list = JSON.parse(resources) as string[];
      if (metadata !== null) {
        const body = JSON.parse(metadata) as {
          resourceType: string;
          fhirVersion: string;
          software: { name: string };
          rest: { resource: { type: string }[] }[];
        };
        expect(["CapabilityStatement", "Conformance"]).toContain(body.resourceType);
        expect(body.software.name).toBe(softwareName!);
        expect([...new Set(body.rest[0]!.resource.map((r) => r.type))].sort()).toEqual(list);
        expect(fhirVersion).not.toBe("UNKNOWN");
        sets.add(resources);
      } else {
        expect(list).toEqual([]);
        expect(fhirVersion).toBe("UNKNOWN");
      }
      if (smart !== null) {
        const config = JSON.parse(smart) as { capabilities: string[] };
        expect(JSON.stringify(config.capabilities)).toBe(caps);
        const patient = config.capabilities.some(
          (c) => c === "launch-standalone" || c === "context-standalone-patient" || c.startsWith("permission-patient"),
        );
        const provider = config.capabilities.some(
          (c) => c === "launch-ehr" || c === "context-ehr-patient" || c === "permission-user",
        );
        const expected =
          patient && provider ? '["patient","provider"]' : patient ? '["patient"]' : provider ? '["provider"]' : null;
        expect(access).toBe(expected);
      } else {
        expect(access).toBeNull();
      }
    }
    expect(sets.size).toBeGreaterThanOrEqual(20);
    const sizes = [...sets].map((s) => (JSON.parse(s) as string[]).length);
    expect(Math.min(...sizes)).toBeLessThan(25);
    expect(Math.max(...sizes)).toBeGreaterThan(80);
    expect([...sets].some((s) => !(JSON.parse(s) as string[]).includes("Condition"))).toBe(true);
  });

  test("bodies stored once under their SHA-256: a few statements per vendor release, each served by many URLs", () => {
    const bodies = db.prepare("SELECT sha256, CAST(body AS BLOB) FROM probe_bodies").values() as [string, Uint8Array][];
    for (const [sha256, body] of bodies) expect(sha256).toBe(new Bun.CryptoHasher("sha256").update(body).digest("hex"));
    // Distinct CapabilityStatements per (vendor, software release, FHIR version): one to three.
    const perRelease = db
      .prepare(
        `SELECT e.vendor_id, p.software_version, p.fhir_version, count(DISTINCT p.metadata_body_id)
         FROM probes p JOIN entries e ON e.url = p.url WHERE p.metadata_body_id IS NOT NULL
         GROUP BY 1, 2, 3`,
      )
      .values() as [string, string, string, number][];
    expect(perRelease.length).toBeGreaterThan(20);
    for (const [, , , statements] of perRelease) expect(statements).toBeLessThanOrEqual(3);
    // Many URLs share each body; none of a URL's own address is in it.
    const probed = count("SELECT count(*) FROM probes WHERE metadata_body_id IS NOT NULL");
    const statements = count("SELECT count(DISTINCT metadata_body_id) FROM probes");
    expect(probed / statements).toBeGreaterThan(5);
    expect(
      count(
        "SELECT count(*) FROM probes p JOIN probe_bodies b ON b.id = p.metadata_body_id WHERE instr(b.body, p.url) > 0",
      ),
    ).toBe(0);
    // Nothing stored that no probe refers to.
    expect(
      count(
        "SELECT count(*) FROM probe_bodies b WHERE NOT EXISTS (SELECT 1 FROM probes WHERE metadata_body_id = b.id OR smart_body_id = b.id)",
      ),
    ).toBe(0);
  });

  test("served fhirVersion, access and status follow the probe and the lists as docs/api.md says", () => {
    const mismatches = count(`
      SELECT count(*) FROM entries e LEFT JOIN probes p ON p.url = e.url
      WHERE e.fhir_version != COALESCE(CASE WHEN p.metadata_body_id IS NOT NULL AND p.fhir_version != 'UNKNOWN' THEN p.fhir_version END, e.list_fhir_version)
         OR e.access != COALESCE(p.access, e.list_access)`);
    expect(mismatches).toBe(0);
    expect(
      count(
        "SELECT count(*) FROM entries e JOIN probes p ON p.url = e.url WHERE e.status = 'verified' AND p.metadata_body_id IS NULL",
      ),
    ).toBe(0);
    expect(
      count(
        "SELECT count(*) FROM entries e LEFT JOIN probes p ON p.url = e.url WHERE e.status = 'unresponsive' AND (p.url IS NULL OR p.metadata_http_status IS NOT NULL)",
      ),
    ).toBe(0);
  });

  test("lists and sources are consistent; removed entries are absent from every list", () => {
    expect(
      count(
        "SELECT count(*) FROM entries e WHERE NOT EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_row_id = e.row_id)",
      ),
    ).toBe(0);
    expect(
      count(
        "SELECT count(*) FROM entries e WHERE (e.status = 'removed') != NOT EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_row_id = e.row_id AND s.present)",
      ),
    ).toBe(0);
    expect(
      count(
        "SELECT count(*) FROM vendor_lists l WHERE l.last_entry_count != (SELECT count(*) FROM entry_sources s WHERE s.list_id = l.id AND s.present)",
      ),
    ).toBe(0);
    expect(count('SELECT count(*) FROM entries WHERE list_access = \'["patient","provider"]\'')).toBeGreaterThan(0);
    expect(db.prepare("PRAGMA foreign_key_check").all()).toEqual([]);
  });

  test("the dataset is marked changed, and the schema's indexes exist", () => {
    expect(
      count("SELECT CAST(value AS INTEGER) FROM dataset_meta WHERE key = 'dataset_version'"),
    ).toBeGreaterThanOrEqual(1);
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").values() as [string][]).map(
      ([n]) => n,
    );
    for (const name of ["entries_id_unique", "entries_url", "entries_vendor", "entry_sources_entry"])
      expect(indexes).toContain(name);
  });
});
