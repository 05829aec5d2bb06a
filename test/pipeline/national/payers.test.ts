import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { syncVendorRegistry } from "../../../src/pipeline/ingest";
import { ingestBundledLists, PAYERS_DIR, readBundle } from "../../../src/pipeline/ingest/national-lists";
import { DEFAULT_REGISTRY_PATH, loadRegistry } from "../../../src/pipeline/ingest/registry";
import { generatePayerRegistry } from "../../../src/pipeline/national/payers/registry";
import { createTestApp } from "../../support/app";
import { computedOnce, nationalAudit, nationalDatabase } from "../../support/built-once";
import { get } from "../../support/fixture";
import { removeTempDirs, tempDatabase } from "../../support/temp-db";

/**
 * The health plans' lists (db/national/payers/), counted here from the bundled files with a
 * reading of their own: JSON items and CSV rows with an http(s) URL, keyed by the URL (scheme
 * and host lowercased, trailing `/` dropped) and the organization (lowercased, whitespace
 * collapsed; a plan's brand, else its parent organization; a plan's one server: the plan).
 */
let dir: string;
let path: string;
let db: Database;
const registry = loadRegistry(DEFAULT_REGISTRY_PATH);
const payers = registry.filter((vendor) => vendor.kind === "payer");
const bundle = readBundle(PAYERS_DIR);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "national-payers-"));
  path = join(dir, "directory.sqlite");
  await nationalDatabase(path);
  db = new Database(path, { readonly: true });
}, 180_000);

afterAll(() => {
  removeTempDirs();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** RFC 4180 rows: quoted cells may hold commas, quotes ("") and line breaks. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (quoted) cell += c;
    else if (c === ",") endCell();
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endCell();
      rows.push(row);
      row = [];
    } else cell += c;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}

const keyOf = (url: string, name: string) => {
  const match = /^(https?):\/\/([^/?#]+)(.*)$/i.exec(url.trim());
  if (!match) return null;
  const canonical = `${match[1]!.toLowerCase()}://${match[2]!.toLowerCase()}${match[3]!.replace(/\/+$/, "")}`;
  return `${canonical}\n${name.replace(/\s+/g, " ").trim().toLowerCase()}`;
};

/** The distinct (URL, organization) keys of one payer vendor's bundled files. */
function expectedKeys(vendorName: string, files: string[]): Set<string> {
  const keys = new Set<string>();
  const add = (key: string | null) => key !== null && keys.add(key);
  for (const file of files) {
    const text = bundle.files.get(file)!;
    if (file.endsWith(".json")) {
      for (const item of (JSON.parse(text) as { Endpoints: { URL: string; OrganizationName: string }[] }).Endpoints)
        add(keyOf(item.URL, item.OrganizationName.trim() || vendorName));
      continue;
    }
    const [header, ...rows] = csvRows(text);
    const column = (pattern: RegExp) => header!.findIndex((h) => pattern.test(h));
    const url = column(/url|^endpoint$/i);
    const brand = column(/^brand|^state$/i);
    const parent = column(/^parent/i);
    for (const row of rows) add(keyOf(row[url] ?? "", row[brand]?.trim() || (row[parent] ?? "")));
  }
  return keys;
}

describe("the health plans' bundle (db/national/payers/)", () => {
  test("Lantern's payer files with their provenance: repository, commit, dates, SHA-256", () => {
    const { provenance, files } = bundle;
    expect(provenance.repository).toBe("onc-healthit/lantern-back-end");
    expect(provenance.commit).toMatch(/^[0-9a-f]{40}$/);
    expect([...files.keys()].sort()).toEqual([
      "MedicaidState_EndpointSources.json",
      "MedicareStateEndpointResourcesList.json",
      "Medicare_AetnaEndpointSources.json",
      "Medicare_CenteneEndpointSources.json",
      "Medicare_CignaEndpointSources.json",
      "Medicare_ElevanceHealth(Anthem)EndpointSources.json",
      "Medicare_UnitedHealthGroupEndpointSources.json",
      "medicaid-state-endpoints.csv",
      "oneupdata.csv",
      "payer-patient-access.csv",
    ]);
    for (const [name, file] of Object.entries(provenance.files)) {
      expect(file.lastChangedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(file.sha256).toBe(new Bun.CryptoHasher("sha256").update(files.get(name)!).digest("hex"));
    }
  });

  test("the registry's payers are what the generator makes of the bundled files", () => {
    expect(generatePayerRegistry(bundle.files)).toEqual(payers);
  });

  test("every Medicare Advantage organization of Lantern's list is a payer vendor, with where it publishes", () => {
    const medicare = JSON.parse(bundle.files.get("MedicareStateEndpointResourcesList.json")!) as unknown[];
    // The 11 organizations, the state Medicaid programs and 1upHealth's plans.
    expect(payers).toHaveLength(medicare.length + 2);
    expect(payers.find((v) => v.id === "humana")).toMatchObject({
      name: "Humana",
      endpointListUrl: "https://developers.humana.com/apis/patient-api/doc",
      lists: [],
    });
  });
});

describe("the national build holds every health plan entry", () => {
  test("per payer vendor, entries equal the distinct (URL, organization) pairs of its bundled files", async () => {
    let total = 0;
    const audit = await nationalAudit();
    for (const vendor of payers) {
      const files = vendor.lists.flatMap((list) => (list.bundledFile ? [list.bundledFile] : []));
      const expected = expectedKeys(vendor.name, files).size;
      const stored = (
        db.prepare("SELECT COUNT(*) AS n FROM entries WHERE vendor_id = ?").get(vendor.id) as { n: number }
      ).n;
      expect({ vendor: vendor.id, entries: stored }).toEqual({ vendor: vendor.id, entries: expected });
      // data:audit says the same count.
      expect(audit.payers.find((p) => p.vendorId === vendor.id)?.entries).toBe(expected);
      total += expected;
    }
    const stored = db
      .prepare("SELECT COUNT(*) AS n FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE v.kind = 'payer'")
      .get() as { n: number };
    expect(stored.n).toBe(total);
    expect(audit.kinds.find((k) => k.kind === "payer")?.entries).toBe(total);
    expect(total).toBeGreaterThan(100);
  });

  test("the lists' defects are kept out by the existing rules: a host without a domain, a URL with a query", () => {
    const unusable = db
      .prepare(
        "SELECT organization_name AS name, unusable FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE v.kind = 'payer' AND unusable IS NOT NULL ORDER BY 1",
      )
      .all();
    expect(unusable).toEqual([
      { name: "HealthPartners", unusable: "single-label-host" },
      { name: "South Carolina", unusable: "query-or-fragment" },
    ]);
  });

  test("the EHR developers' entries are those of their bundle built alone, developer by developer", async () => {
    const PER_VENDOR =
      "SELECT e.vendor_id AS vendor, COUNT(*) AS n, SUM(e.unusable IS NULL) AS listed FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE v.kind = 'ehr' GROUP BY 1 ORDER BY 1";
    const perVendor = (sqlite: Database) => sqlite.prepare(PER_VENDOR).all() as { n: number }[];
    // The EHR bundle ingested alone (about three CPU seconds): done once for the code and data it
    // runs, as the national build is, and shared by later runs (test/support/built-once.ts).
    const expected = await computedOnce(`the EHR bundle ingested alone, per developer: ${PER_VENDOR}`, async () => {
      const alone = tempDatabase();
      try {
        syncVendorRegistry(alone.db);
        await ingestBundledLists(alone.db, readBundle());
        return perVendor(alone.db.sqlite);
      } finally {
        alone.cleanup();
      }
    });
    expect(perVendor(db)).toEqual(expected);
    expect(expected.reduce((sum, v) => sum + v.n, 0)).toBeGreaterThan(40_000);
  }, 120_000);

  test("the EHR developers keep their entries: none is a payer's, and the payers' are listed for patients", () => {
    const kinds = db
      .prepare(
        "SELECT v.kind AS kind, COUNT(DISTINCT e.vendor_id) AS vendors FROM entries e JOIN vendors v ON v.id = e.vendor_id GROUP BY 1 ORDER BY 1",
      )
      .all();
    expect(kinds).toEqual([
      { kind: "ehr", vendors: 122 },
      { kind: "payer", vendors: 7 },
    ]);
    const access = db
      .prepare(
        "SELECT DISTINCT e.list_access AS access FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE v.kind = 'payer'",
      )
      .all();
    expect(access).toEqual([{ access: '["patient"]' }]);
  });
});

describe("payers through the API", () => {
  test("/api/v1/vendors says each developer's kind; kind= filters the list, the export and /fhir", async () => {
    const app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      const vendors = (await get(app, "/api/v1/vendors")).body.data as { id: string; kind: string }[];
      expect(vendors.find((v) => v.id === "elevance-health-anthem")?.kind).toBe("payer");
      expect(vendors.find((v) => v.id === "epic")?.kind).toBe("ehr");
      expect(
        vendors
          .filter((v) => v.kind === "payer")
          .map((v) => v.id)
          .sort(),
      ).toEqual(payers.map((v) => v.id).sort());
      const listed = (kind: string) =>
        (
          db
            .prepare(
              "SELECT COUNT(*) AS n FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE v.kind = ? AND e.unusable IS NULL",
            )
            .get(kind) as { n: number }
        ).n;
      const payerTotal = (await get(app, "/api/v1/endpoints?kind=payer&limit=1")).body.meta.total;
      const ehrTotal = (await get(app, "/api/v1/endpoints?kind=ehr&limit=1")).body.meta.total;
      expect(payerTotal).toBe(listed("payer"));
      expect(ehrTotal).toBe(listed("ehr"));
      expect((await get(app, "/api/v1/endpoints?limit=1")).body.meta.total).toBe(payerTotal + ehrTotal);
      // A plan is found by its brand name.
      const wellfirst = await get(app, "/api/v1/endpoints?query=wellfirst&kind=payer");
      expect(
        wellfirst.body.data.map((e: { organizationName: string; vendorId: string }) => [
          e.organizationName,
          e.vendorId,
        ]),
      ).toEqual([["WellFirst Health (WFH)", "1uphealth-health-plans"]]);
      expect((await get(app, "/api/v1/endpoints?query=amerigroup&kind=ehr")).body.meta.total).toBe(0);
      const bad = await get(app, "/api/v1/endpoints?kind=insurer");
      expect(bad.status).toBe(400);
      const csv = await (await app.handle(new Request("http://localhost/api/v1/export?format=csv&kind=payer"))).text();
      expect(csv.trim().split("\n").length - 1).toBe(payerTotal);
      expect(csv).toContain("https://api.deanhealthfhir.com/r4");
      const fhir = await app.handle(
        new Request("http://localhost/fhir/Endpoint?developer-kind=payer&_summary=count", {
          headers: { accept: "application/fhir+json" },
        }),
      );
      const distinctUrls = db
        .prepare(
          "SELECT COUNT(DISTINCT url) AS n FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE v.kind = 'payer' AND e.unusable IS NULL",
        )
        .get() as { n: number };
      expect(((await fhir.json()) as { total: number }).total).toBe(distinctUrls.n);
    } finally {
      app.directory.close();
    }
  });

  test("a payer's report card: its list figures, no CHPL certification; the CSV says its kind", async () => {
    const app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      const card = (await get(app, "/api/v1/vendors/elevance-health-anthem/report")).body.data;
      const elevance = expectedKeys(
        "Elevance Health (Anthem)",
        payers.find((v) => v.id === "elevance-health-anthem")!.lists.map((l) => l.bundledFile!),
      ).size;
      expect(card).toMatchObject({ vendorId: "elevance-health-anthem", kind: "payer", certification: null });
      expect(card.list.listed + card.list.unusable).toBe(elevance);
      expect((await get(app, "/api/v1/vendors/epic/report")).body.data).toMatchObject({ kind: "ehr" });
      const csv = await (await app.handle(new Request("http://localhost/api/v1/vendors/report?format=csv"))).text();
      const [head, ...rows] = csv.trim().split("\r\n");
      const columns = head!.split(",");
      const row = rows.find((r) => r.startsWith("elevance-health-anthem,"))!.split(",");
      const cell = (name: string) => row[columns.indexOf(name)];
      expect([cell("kind"), cell("certifiedProducts"), cell("standardizedApi")]).toEqual(["payer", "", ""]);
    } finally {
      app.directory.close();
    }
  });

  test("every export format and the brands bundle carry the plans", async () => {
    const app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      const exported = async (format: string) =>
        (await app.handle(new Request(`http://localhost/api/v1/export?format=${format}&kind=payer`))).text();
      const ndjson = (await exported("ndjson")).trim().split("\n");
      const listed = (await get(app, "/api/v1/endpoints?kind=payer&limit=1")).body.meta.total;
      expect(ndjson).toHaveLength(listed);
      expect(
        ndjson.map((line) => JSON.parse(line).vendorId as string).every((id) => payers.some((v) => v.id === id)),
      ).toBe(true);
      const fhir = JSON.parse(await exported("fhir")) as {
        entry: { resource: { resourceType: string; name?: string } }[];
      };
      const names = fhir.entry.filter((e) => e.resource.resourceType === "Organization").map((e) => e.resource.name);
      expect(names).toContain("WellFirst Health (WFH)");
      expect(names).toContain("Amerigroup");
      // The brands bundle offers Endpoints of a known version: the plans whose URL names R4.
      const brands = (await get(app, "/api/v1/brands?kind=payer")).body as {
        entry: { resource: { resourceType: string; name?: string; address?: string } }[];
      };
      const brandNames = brands.entry
        .filter((e) => e.resource.resourceType === "Organization")
        .map((e) => e.resource.name);
      expect(brandNames).toContain("WellFirst Health (WFH)");
      expect(brandNames).toContain("Alaska");
      const addresses = brands.entry.flatMap((e) => (e.resource.address ? [e.resource.address] : []));
      expect(addresses).toContain("https://api.deanhealthfhir.com/r4");
    } finally {
      app.directory.close();
    }
  });
});
