import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { fhirVersionOfUrl } from "../../../src/pipeline/ingest/enrich/version-of-url";
import {
  LISTS_FILE,
  NATIONAL_DIR,
  PROVENANCE_FILE,
  type Provenance,
  packBundle,
  readBundle,
} from "../../../src/pipeline/ingest/national-lists";
import { DEFAULT_REGISTRY_PATH, loadRegistry } from "../../../src/pipeline/ingest/registry";
import { buildNationalDatabase } from "../../../src/pipeline/national/build";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";
import { get } from "../../support/fixture";
import { LANTERN, LANTERN_FILES, publishedKeys, readJson } from "./helpers";

let dir: string;
let path: string;
let db: Database;
let app: ReturnType<typeof createTestApp>;
const registry = loadRegistry(DEFAULT_REGISTRY_PATH);
/** The certified developers; the health plans' bundle has tests of its own (payers.test.ts). */
const developers = registry.filter((vendor) => vendor.kind !== "payer");

/** The files buildNationalDatabase left beside the database it built, besides it (nationalDatabase). */
let leftBeside: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "national-"));
  path = join(dir, "directory.sqlite");
  // buildNationalDatabase's build, shared by the test files of a run (test/support/built-once.ts).
  ({ leftBeside } = await nationalDatabase(path));
  db = new Database(path, { readonly: true });
  // One app for the file's requests: each test only reads.
  app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
}, 180_000);

afterAll(() => {
  app?.directory.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const one = <T>(sql: string, ...params: string[]) => db.prepare(sql).get(...params) as T;

describe("the bundled national lists (db/national/)", () => {
  test("at most 3 MB in git, with provenance: source repository, commit, per-file dates and checksums", () => {
    const bytes = statSync(join(NATIONAL_DIR, LISTS_FILE)).size + statSync(join(NATIONAL_DIR, PROVENANCE_FILE)).size;
    expect(bytes).toBeLessThan(3 * 1024 * 1024);
    const { provenance, files } = readBundle();
    expect(provenance.repository).toBe("onc-healthit/lantern-back-end");
    expect(provenance.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(files.size).toBe(137);
    for (const file of Object.values(provenance.files)) {
      expect(file.lastChangedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(file.lastChangedCommit).toMatch(/^[0-9a-f]{40}$/);
    }
    const newest = Object.values(provenance.files)
      .map((f) => new Date(f.lastChangedAt).toISOString())
      .sort()
      .at(-1);
    expect(provenance.asOf).toBe(newest!);
  });

  test("equal the shared files byte for byte, with the dates and commit of their MANIFEST.json", () => {
    const manifest = readJson<{ commit: string; files: Provenance["files"] }>(join(LANTERN, "MANIFEST.json"));
    const { provenance, files } = readBundle();
    expect(provenance.commit).toBe(manifest.commit);
    for (const [name, text] of files) {
      expect(text).toBe(readFileSync(join(LANTERN_FILES, name), "utf8"));
      expect(provenance.files[name]).toMatchObject(manifest.files[name]!);
    }
  });
});

describe("building the national directory from the bundle", () => {
  test("every entry listed and unprobed; vendors, lists and scrape dates from the registry and the bundle", () => {
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM entries").n).toBeGreaterThan(40_000);
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM entries WHERE status != 'listed'").n).toBe(0);
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM probes").n).toBe(0);
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM vendors").n).toBe(registry.length);
    expect(
      one<{ n: number }>(
        "SELECT COUNT(DISTINCT vendor_id) AS n FROM entries WHERE vendor_id IN (SELECT id FROM vendors WHERE kind = 'ehr')",
      ).n,
    ).toBe(122);
    const { provenance } = readBundle();
    expect(one<{ at: string }>("SELECT last_scraped_at AS at FROM vendors WHERE id = 'epic'").at).toBe(
      new Date(provenance.files["Epic_Systems_Corporation_1_EndpointSources.json"]!.lastChangedAt).toISOString(),
    );
    // Built in a temporary file and renamed: nothing else named after the database is left beside it.
    expect(leftBeside).toEqual([]);
  });

  test("state known for at least 40 % of entries and fhirVersion for at least 85 %", () => {
    const row = one<{ n: number; state: number; version: number }>(
      "SELECT COUNT(*) AS n, SUM(state IS NOT NULL) AS state, SUM(fhir_version != 'UNKNOWN') AS version FROM entries",
    );
    expect(row.state / row.n).toBeGreaterThanOrEqual(0.4);
    expect(row.version / row.n).toBeGreaterThanOrEqual(0.85);
  });

  test('athenahealth\'s "XX - Name": state from the prefix, the name as published, found by its words', async () => {
    const { body } = await get(app, "/api/v1/endpoints?vendor=athenahealth&query=sollus%20pediatrics");
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ organizationName: "NC - Sollus Pediatrics", state: "NC", status: "listed" });
    expect((await get(app, "/api/v1/endpoints?state=NC&limit=1")).body.meta.total).toBeGreaterThan(100);
    // Oracle publishes ZIP codes and no state: the state (and city) come from the ZIP.
    const oracle = (await get(app, "/api/v1/endpoints?vendor=oracle-health&limit=100")).body.data as {
      state: string | null;
      city: string | null;
      zipCode: string | null;
    }[];
    expect(oracle.filter((e) => e.zipCode !== null).every((e) => e.state !== null && e.city !== null)).toBe(true);
    const capabilities = await get(app, `/api/v1/endpoints/${body.data[0].id}/capabilities`);
    expect(capabilities.body.data).toMatchObject({ probeStatus: "unchecked", lastProbed: null });
  });

  test("published URLs repaired where the intent is plain: missing scheme, junk before it", () => {
    const urls = db
      .prepare("SELECT url FROM entries WHERE url LIKE '%footholdtechnology%' OR url LIKE '%astronautehr%'")
      .all() as {
      url: string;
    }[];
    expect(urls.map((u) => u.url).sort()).toEqual([
      "https://fhir.footholdtechnology.com/cgc",
      "https://fhir.footholdtechnology.com/demodb",
      "https://fhirserver.astronautehr.com:9443/fhir-server/api/v4",
    ]);
  });

  test("per developer, entries equal the distinct (URL, organization) pairs of its files; no developer is lost", () => {
    const counts = new Map(
      (
        db.prepare("SELECT vendor_id AS v, COUNT(*) AS n FROM entries GROUP BY vendor_id").all() as {
          v: string;
          n: number;
        }[]
      ).map((r) => [r.v, r.n]),
    );
    for (const vendor of developers) {
      const keys = new Set<string>();
      for (const list of vendor.lists) {
        if (!list.bundledFile) continue;
        const items = readJson<{ Endpoints: Parameters<typeof publishedKeys>[0] }>(
          join(LANTERN_FILES, list.bundledFile),
        );
        for (const key of publishedKeys(items.Endpoints)) if (key !== null) keys.add(key);
      }
      expect({ vendor: vendor.id, entries: counts.get(vendor.id) ?? 0 }).toEqual({
        vendor: vendor.id,
        entries: keys.size,
      });
    }
  });
});

describe("a bundle that cannot be read builds nothing and names the file", () => {
  function brokenBundle(change: (dir: string) => void): string {
    const copy = mkdtempSync(join(tmpdir(), "national-bundle-"));
    cpSync(NATIONAL_DIR, copy, { recursive: true });
    change(copy);
    return copy;
  }

  test.each([
    ["a missing archive", (d: string) => rmSync(join(d, LISTS_FILE)), /lists\.json\.zst: bundled file missing/],
    ["a corrupt archive", (d: string) => writeFileSync(join(d, LISTS_FILE), "not zstd"), /lists\.json\.zst: corrupt/],
    ["a missing provenance", (d: string) => rmSync(join(d, PROVENANCE_FILE)), /provenance\.json: bundled file missing/],
    [
      "one list changed",
      (d: string) => {
        const provenance = readJson<Provenance>(join(d, PROVENANCE_FILE));
        provenance.files["MEDHOST_EndpointSources.json"]!.sha256 = "0".repeat(64);
        writeFileSync(join(d, PROVENANCE_FILE), JSON.stringify(provenance));
      },
      /MEDHOST_EndpointSources\.json corrupt/,
    ],
    [
      "a list that is not a list (the build fails half way)",
      (d: string) => {
        const { provenance, files } = readBundle(d);
        // Every list cut to its first two items: the build still ingests the lists dated before
        // MEDHOST's, writing their entries, and fails at it, in a fraction of the time.
        for (const [name, text] of files)
          files.set(
            name,
            JSON.stringify({ Endpoints: (JSON.parse(text) as { Endpoints: unknown[] }).Endpoints.slice(0, 2) }),
          );
        files.set("MEDHOST_EndpointSources.json", "<html>not a list</html>");
        const manifest = { ...provenance, files: provenance.files };
        const packed = packBundle(files, manifest, 1);
        writeFileSync(join(d, LISTS_FILE), packed.archive);
        writeFileSync(join(d, PROVENANCE_FILE), JSON.stringify(packed.provenance));
      },
      /bundled list MEDHOST_EndpointSources\.json \(medhost \/ medhost-r4\) was not ingested/,
    ],
  ])(
    "%s",
    async (_name, change, message) => {
      const bundle = brokenBundle(change);
      const out = join(dir, "broken", "directory.sqlite");
      try {
        await expect(buildNationalDatabase(out, { dir: bundle })).rejects.toThrow(message);
        expect(existsSync(out)).toBe(false);
        expect(existsSync(join(dir, "broken")) ? readdirSync(join(dir, "broken")) : []).toEqual([]);
      } finally {
        rmSync(bundle, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe("the national directory's data, checked against the published lists", () => {
  const listed = "status != 'removed' AND unusable IS NULL";

  test("every CHPL developer with a list file has entries stored; DrChrono's 213 are served", async () => {
    const chpl = readJson<{ EndpointName: string; FileName: string }[]>(
      join(LANTERN_FILES, "CHPLEndpointResourcesList.json"),
    );
    const onDisk = new Set(readdirSync(LANTERN_FILES).map((name) => name.toLowerCase()));
    const withFile = chpl.filter(
      (item) => onDisk.has(item.FileName.toLowerCase()) && !/^(1Up|Medicare_|MedicaidState)/.test(item.FileName),
    );
    const vendorOfFile = new Map(
      registry.flatMap((v) => v.lists.flatMap((l) => (l.bundledFile ? [[l.bundledFile.toLowerCase(), v.id]] : []))),
    );
    const withEntries = new Set(
      // Stored: CorrecTek's only two "endpoints" are specification pages, stored as unusable.
      (db.prepare("SELECT DISTINCT vendor_id AS v FROM entries").all() as { v: string }[]).map((r) => r.v),
    );
    for (const item of withFile) {
      const vendor = vendorOfFile.get(item.FileName.toLowerCase());
      expect([item.EndpointName, vendor !== undefined && withEntries.has(vendor)]).toEqual([item.EndpointName, true]);
    }
    const drchrono = await get(app, "/api/v1/endpoints?vendor=drchrono&limit=1");
    expect(drchrono.body.meta.total).toBe(213);
  });

  test("unusable entries are kept, with their reason, and left out of the listings: athenahealth's first result is a practice", async () => {
    const byKind = new Map(
      (
        db.prepare("SELECT unusable AS k, COUNT(*) AS n FROM entries WHERE unusable IS NOT NULL GROUP BY 1").all() as {
          k: string;
          n: number;
        }[]
      ).map((r) => [r.k, r.n]),
    );
    for (const kind of ["non-public-address", "localhost", "single-label-host", "internal-suffix", "do-not-use"])
      expect([kind, (byKind.get(kind) ?? 0) > 0]).toEqual([kind, true]);
    const athena = await get(app, "/api/v1/endpoints?vendor=athenahealth&limit=1");
    expect(athena.body.data[0].organizationName).not.toMatch(/do\W*not\W*use/i);
    expect((await get(app, "/api/v1/endpoints?vendor=athenahealth&query=do%20not%20use")).body.meta.total).toBe(0);
    const everything = await app.handle(new Request("http://localhost/api/v1/export?format=csv"));
    const csv = await everything.text();
    for (const host of ["://localhost", "://10.", "://192.168.", ".local/", ".lan/", ".rd.allscripts.com"])
      expect([host, csv.toLowerCase().includes(host)]).toEqual([host, false]);
    const stats = await get(app, "/api/v1/stats");
    expect(stats.body.data.totalEndpoints).toBe(
      one<{ n: number }>(`SELECT COUNT(*) AS n FROM entries WHERE ${listed}`).n,
    );
  });

  test("no listed entry whose URL says DSTU2 is served as R4; Altera's unversioned URLs beside /R4/ ones are not R4", () => {
    const dstu2Urls = db
      .prepare(
        `SELECT url, fhir_version AS v FROM entries WHERE ${listed} AND (url LIKE '%/R2/%' OR url LIKE '%/dstu2%' OR url LIKE '%argonaut%')`,
      )
      .all() as { url: string; v: string }[];
    expect(dstu2Urls.length).toBeGreaterThan(100);
    expect(dstu2Urls.filter((r) => r.v === "R4")).toEqual([]);
    const altera = db
      .prepare(
        "SELECT url, fhir_version AS v, version_evidence AS e FROM entries WHERE vendor_id = 'altera-digital-health'",
      )
      .all() as { url: string; v: string; e: string | null }[];
    const r4Hosts = new Set(altera.filter((r) => /\/R4\//i.test(r.url)).map((r) => new URL(r.url).host));
    const beside = altera.filter((r) => r4Hosts.has(new URL(r.url).host) && fhirVersionOfUrl(r.url) === null);
    expect(beside.length).toBeGreaterThan(100);
    expect(beside.filter((r) => r.v === "R4")).toEqual([]);
    expect(altera.filter((r) => r.e === "developer")).toEqual([]);
  });

  test("a URL with a tab inside is repaired; a four-digit ZIP is not padded into another state", () => {
    expect(
      db
        .prepare(
          "SELECT DISTINCT url, url_evidence AS e FROM entries WHERE url LIKE '%enhancedeyecare.ficintegrations.com%'",
        )
        .all(),
    ).toEqual([{ url: "https://enhancedeyecare.ficintegrations.com/API/PCg4Nt/R4", e: "cleaned" }]);
    const ozark = one<{ zip: string | null; state: string | null }>(
      "SELECT zip_code AS zip, state FROM entries WHERE organization_name LIKE 'Ozark Tricounty Health Consortium%'",
    );
    expect(ozark).toEqual({ zip: null, state: null });
  });

  test("an entry's source names Lantern's copy, as of its date, with the SHA-256 of the shared file", async () => {
    const { provenance } = readBundle();
    const file = "Epic_Systems_Corporation_1_EndpointSources.json";
    const id = one<{ id: string }>(
      `SELECT e.id FROM entries e JOIN entry_sources es ON es.entry_row_id = e.row_id
         WHERE es.list_id = 'epic-r4' AND es.present = 1 ORDER BY e.id LIMIT 1`,
    ).id;
    const { body } = await get(app, `/api/v1/endpoints/${id}/source`);
    const shared = new Bun.CryptoHasher("sha256").update(readFileSync(join(LANTERN_FILES, file))).digest("hex");
    expect(body.data.list).toEqual({
      id: "epic-r4",
      publishedAt: "https://open.epic.com/Endpoints/R4",
      readFrom: {
        repository: "onc-healthit/lantern-back-end",
        path: `resources/prod_resources/${file}`,
        commit: provenance.commit,
      },
      asOf: new Date(provenance.files[file]!.lastChangedAt).toISOString(),
      sha256: shared,
    });
    // Epic's R4 list says R4, and so do its URLs: either is the evidence.
    expect(["list", "url"]).toContain(body.data.fields.fhirVersion);
  });
});

describe("the national report cards, against the published lists", () => {
  test("every card carries its developer's CHPL products from the registry; ingest keeps them", async () => {
    const stored = db.prepare("SELECT id FROM vendors WHERE certifications IS NULL AND kind = 'ehr'").all();
    expect(stored).toEqual([]);
    const { body } = await get(app, "/api/v1/vendors/report");
    type Card = {
      vendorId: string;
      certification: { products: unknown[]; active: number; withdrawn: number; standardizedApi: boolean };
    };
    const cards = new Map(
      (body.data.vendors as Card[]).flatMap((card) =>
        card.certification ? [[card.vendorId, card.certification]] : [],
      ),
    );
    expect([cards.size, developers.length]).toEqual([122, 122]);
    const figures = (id: string) => {
      const c = cards.get(id)!;
      return [c.products.length, c.active, c.withdrawn, c.standardizedApi];
    };
    expect(figures("epic")).toEqual([16, 10, 6, true]);
    expect(figures("meditech")).toEqual([19, 19, 0, true]);
    expect(figures("athenahealth")).toEqual([8, 4, 4, true]);
    for (const vendor of developers)
      expect([vendor.id, cards.get(vendor.id)!.products]).toEqual([vendor.id, vendor.certifications ?? []]);
    expect(body.data.national.standardizedApi).toBe(117);
    // A list read from the bundled copy says so: Lantern's file at the commit read, not the developer's URL.
    const { provenance } = readBundle();
    for (const card of body.data.vendors as { vendorId: string; lists: { id: string; readFrom: string }[] }[])
      for (const list of card.lists) {
        const bundled = developers
          .find((v) => v.id === card.vendorId)
          ?.lists.find((l) => l.id === list.id)?.bundledFile;
        if (bundled)
          expect(list.readFrom).toBe(
            `https://github.com/${provenance.repository}/blob/${provenance.commit}/${provenance.path}/${bundled}`,
          );
      }
  });

  test("per developer: entries, and the shares with an NPI and an https URL, as counted from its bundled files", async () => {
    const { body } = await get(app, "/api/v1/vendors/report");
    const cards = new Map(
      (
        body.data.vendors as {
          vendorId: string;
          list: { listed: number; unusable: number; shares: Record<string, number | null> };
        }[]
      ).map((card) => [card.vendorId, card]),
    );
    let checked = 0;
    let entries = 0;
    for (const vendor of developers) {
      const keys = vendor.lists.flatMap((list) =>
        list.bundledFile
          ? publishedKeys(
              readJson<{ Endpoints: { URL?: string; OrganizationName?: string; NPIID?: string }[] }>(
                join(LANTERN_FILES, list.bundledFile),
              ).Endpoints,
            )
          : [],
      );
      // Developers with an item this count cannot key (repaired or dropped by ingest's own rules) are left to other tests.
      if (keys.length === 0 || keys.some((key) => key === null)) continue;
      const distinct = new Set(keys as string[]);
      const card = cards.get(vendor.id)!;
      expect([vendor.id, card.list.listed + card.list.unusable]).toEqual([vendor.id, distinct.size]);
      entries += distinct.size;
      if (card.list.unusable === 0) {
        const share = (n: number) => Math.round((n / distinct.size) * 10_000) / 10_000;
        const npi = [...distinct].filter((key) => /\n\d{10}$/.test(key)).length;
        const https = [...distinct].filter((key) => key.startsWith("https://")).length;
        expect([vendor.id, card.list.shares.npi, card.list.shares.https]).toEqual([
          vendor.id,
          share(npi),
          share(https),
        ]);
      }
      checked++;
    }
    // Most developers, and most entries, are checked this way.
    expect(checked).toBeGreaterThan(100);
    expect(entries).toBeGreaterThan(30_000);
  }, 120_000);
});
