import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { DEFAULT_REGISTRY_PATH, loadRegistry } from "../../src/ingest/registry";
import { buildNationalDatabase } from "../../src/national/build";
import {
  LISTS_FILE,
  NATIONAL_DIR,
  PROVENANCE_FILE,
  type Provenance,
  packBundle,
  readBundle,
} from "../../src/national/bundle";
import { get } from "../support/fixture";
import { hasLantern, LANTERN, LANTERN_FILES, publishedKey, readJson } from "./helpers";

let dir: string;
let path: string;
let db: Database;
const registry = loadRegistry(DEFAULT_REGISTRY_PATH);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "national-"));
  path = join(dir, "directory.sqlite");
  await buildNationalDatabase(path);
  db = new Database(path, { readonly: true });
}, 180_000);

afterAll(() => {
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

  test.skipIf(!hasLantern)(
    "equal the shared files byte for byte, with the dates and commit of their MANIFEST.json",
    () => {
      const manifest = readJson<{ commit: string; files: Provenance["files"] }>(join(LANTERN, "MANIFEST.json"));
      const { provenance, files } = readBundle();
      expect(provenance.commit).toBe(manifest.commit);
      for (const [name, text] of files) {
        expect(text).toBe(readFileSync(join(LANTERN_FILES, name), "utf8"));
        expect(provenance.files[name]).toMatchObject(manifest.files[name]!);
      }
    },
  );
});

describe("building the national directory from the bundle", () => {
  test("every entry listed and unprobed; vendors, lists and scrape dates from the registry and the bundle", () => {
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM entries").n).toBeGreaterThan(40_000);
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM entries WHERE status != 'listed'").n).toBe(0);
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM probes").n).toBe(0);
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM vendors").n).toBe(registry.length);
    expect(one<{ n: number }>("SELECT COUNT(DISTINCT vendor_id) AS n FROM entries").n).toBe(122);
    const { provenance } = readBundle();
    expect(one<{ at: string }>("SELECT last_scraped_at AS at FROM vendors WHERE id = 'epic'").at).toBe(
      new Date(provenance.files["Epic_Systems_Corporation_1_EndpointSources.json"]!.lastChangedAt).toISOString(),
    );
    expect(readdirSync(dir)).toEqual(["directory.sqlite"]);
  });

  test("state known for at least 40 % of entries and fhirVersion for at least 85 %", () => {
    const row = one<{ n: number; state: number; version: number }>(
      "SELECT COUNT(*) AS n, SUM(state IS NOT NULL) AS state, SUM(fhir_version != 'UNKNOWN') AS version FROM entries",
    );
    expect(row.state / row.n).toBeGreaterThanOrEqual(0.4);
    expect(row.version / row.n).toBeGreaterThanOrEqual(0.85);
  });

  test('athenahealth\'s "XX - Name": state from the prefix, the name as published, found by its words', async () => {
    const app = createApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
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
    app.decorator.directory.close();
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

  test.skipIf(!hasLantern)(
    "per developer, entries equal the distinct (URL, organization) pairs of its files; no developer is lost",
    () => {
      const counts = new Map(
        (
          db.prepare("SELECT vendor_id AS v, COUNT(*) AS n FROM entries GROUP BY vendor_id").all() as {
            v: string;
            n: number;
          }[]
        ).map((r) => [r.v, r.n]),
      );
      for (const vendor of registry) {
        const keys = new Set<string>();
        for (const list of vendor.lists) {
          if (!list.bundledFile) continue;
          const items = readJson<{ Endpoints: Parameters<typeof publishedKey>[0][] }>(
            join(LANTERN_FILES, list.bundledFile),
          );
          for (const item of items.Endpoints) {
            const key = publishedKey(item);
            if (key !== null) keys.add(key);
          }
        }
        expect({ vendor: vendor.id, entries: counts.get(vendor.id) ?? 0 }).toEqual({
          vendor: vendor.id,
          entries: keys.size,
        });
      }
    },
  );
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
