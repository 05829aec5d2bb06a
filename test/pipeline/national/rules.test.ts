import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { fhirVersionFromUrl } from "../../../src/model/fhir-version";
import { editDistance, listHostRules, registeredDomain } from "../../../src/pipeline/ingest/list-hosts";
import { DEFAULT_REGISTRY_PATH, loadRegistry } from "../../../src/pipeline/ingest/registry";
import { formatAudit } from "../../../src/pipeline/national/audit";
import type { ChplListItem, ChplProductsItem } from "../../../src/pipeline/national/lantern";
import { generateRegistry } from "../../../src/pipeline/national/registry-generator";
import { createTestApp } from "../../support/app";
import { nationalAudit, nationalDatabase } from "../../support/built-once";
import { get } from "../../support/fixture";
import { removeTempDirs, tempDir } from "../../support/temp-db";
import { LANTERN_FILES, readJson } from "./helpers";

let db: Database;
let path: string;

beforeAll(async () => {
  path = join(tempDir("national-rules-"), "directory.sqlite");
  await nationalDatabase(path);
  db = new Database(path, { readonly: true });
}, 180_000);

afterAll(() => {
  db?.close();
  removeTempDirs();
});

interface Row {
  id: string;
  vendor: string;
  name: string | null;
  url: string;
  unusable: string | null;
  detail: string | null;
  version: string;
  evidence: string | null;
}
/**
 * The entries `where` matches, by id. `ORDER BY +id` sorts the rows found: a plain `ORDER BY id`
 * makes SQLite walk the id index and look up every entry's row (a quarter of a CPU second each).
 */
const rows = (where: string, ...params: string[]) =>
  db
    .prepare(
      `SELECT id, vendor_id AS vendor, organization_name AS name, url, unusable, unusable_detail AS detail,
         fhir_version AS version, version_evidence AS evidence FROM entries WHERE ${where} ORDER BY +id`,
    )
    .all(...params) as Row[];
const byPrefix = (prefix: string) => {
  const found = rows("id LIKE ?", `${prefix}%`);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe("entries that must not be served, on the bundled national lists", () => {
  test("QA hosts on misspellings of Allscripts' domain, and First Insight's, are unusable as near misses", () => {
    for (const [prefix, domain] of [
      ["205f03597f51", "allscriprts.com"],
      ["0a5f6c068490", "allsacripts.com"],
      ["011e30cbcc90", "allscripta.com"],
      ["3721a4671da4", "allscipts.com"],
    ] as const) {
      const row = byPrefix(prefix);
      expect([row.url, row.unusable]).toEqual([expect.stringContaining(`.${domain}/`), "near-miss-domain"]);
      expect(row.detail).toContain(`${domain} is one letter off allscripts.com`);
    }
    // Every near miss on the national lists: the four above and one eye-care practice on a
    // misspelling of ficintegrations.com; no real hospital whose acronym is one letter off another's.
    expect(rows("unusable = 'near-miss-domain'").map((r) => new URL(r.url).hostname)).toEqual([
      "inscmqaes63.rd.allscripta.com",
      "inscmqaes60.rd.allsacripts.com",
      "inscmqaes41.rd.allscriprts.com",
      "inscmautoes10.rd.allscipts.com",
      "innovisioneyecaremn.ficintergrations.com",
    ]);
  });

  test("incdautoes4.allscripts.com is correctly spelt: it is unusable as the internal machine the list also names in rd.allscripts.com", () => {
    const row = byPrefix("6f2ff8311ec1");
    expect([row.url, row.unusable]).toEqual(["http://incdautoes4.allscripts.com/FHIR", "internal-host"]);
    expect(rows("url = 'http://incdautoes4.rd.allscripts.com/FHIR'").map((r) => r.unusable)).toEqual([
      "internal-suffix",
    ]);
    expect(rows("unusable = 'internal-host'").map((r) => r.id.slice(0, 12))).toEqual(["6f2ff8311ec1"]);
  });

  test("names that say not to use them are unusable; each name rule matches only such names", () => {
    for (const [prefix, name, kind] of [
      ["9e7594908a8e", "testing-dont use", "do-not-use"],
      ["a315b86ea02a", "DELETE", "deleted"],
      ["62c162a370ea", "zzzDelete-Seattle DispatchHealth", "deleted"],
      ["463e295e7596", "G4 Dummy Response - Prod", "dummy"],
    ] as const) {
      const row = byPrefix(prefix);
      expect([row.name, row.unusable]).toEqual([name, kind]);
    }
    const namesOf = (kind: string) => [...new Set(rows("unusable = ?", kind).map((r) => r.name))].sort();
    expect(namesOf("inactive")).toEqual(["Bon Secours Inactive", "Bon Secours- Hampton Roads- Inactive"]);
    expect(namesOf("deleted")).toEqual(["DELETE", "zzzDelete-Seattle DispatchHealth"]);
    expect(namesOf("dummy")).toEqual(["G4 Dummy Response - Prod"]);
    expect(namesOf("do-not-use")).toEqual([
      "**DO NOT USE**",
      "*DO NOT USE* CENTRO DERMATOLOGICO",
      "DO NOT USE",
      "PACIFIC WOUND CENTER MEDICAL GROUP, INC- Do Not Use",
      "Skilled Nursing Facility - under construction - do not use",
      "XX_DO NOT USE_XXX",
      "Z-Chesapeake Regional-DO NOT USE",
      "Z-Chesapeake Regional-DO NOT USE-",
      "testing-dont use",
    ]);
    // Real organizations with those letters inside a word stay listed.
    for (const name of ["Fredonia Regional Hospital", "McDonough District Hospital", "Carondelet Medical Group"])
      expect(rows("organization_name = ?", name).map((r) => r.unusable)).not.toContain(expect.anything());
  }, 30_000);

  test("CorrecTek's specification page answers by id with the spec's record and why it is not listed", async () => {
    const app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      const id = byPrefix("1e395fe0").id;
      const entry = await get(app, `/api/v1/endpoints/${id}`);
      expect([entry.body.data.url, entry.body.data.status, entry.body.meta]).toEqual([
        "http://hl7.org/fhir/2016Sep/http.html",
        "listed",
        { unusable: { reason: "web-page", detail: "the URL is a document (.html, .pdf), not a FHIR server's base" } },
      ]);
      const source = await get(app, `/api/v1/endpoints/${id}/source`);
      expect([source.body.data.list.id, source.body.meta.unusable.reason]).toEqual(["correctek-lantern", "web-page"]);
      const nearMiss = await get(app, `/api/v1/endpoints/${byPrefix("205f03597f51").id}/capabilities`);
      expect(nearMiss.body.meta.unusable.reason).toBe("near-miss-domain");
      expect((await get(app, "/api/v1/endpoints?vendor=correctek")).body.meta.total).toBe(0);
    } finally {
      app.directory.close();
    }
  }, 60_000);

  test("data:audit lists every entry each rule matches, and every name each name rule matches", async () => {
    const report = await nationalAudit();
    const matches = new Map(report.ruleMatches.map((m) => [m.rule, m]));
    expect(matches.get("name: inactive")!.names).toEqual([
      "Bon Secours Inactive",
      "Bon Secours- Hampton Roads- Inactive",
    ]);
    expect(matches.get("near-miss-domain")!.entries.map((e) => e.id)).toHaveLength(5);
    expect(matches.get("internal-host")!.entries.map((e) => e.id)).toEqual(["6f2ff8311ec1"]);
    // ggclinic's two, and Elevance Health's plans (`…/P360Member/api/fhir-r4`): no other URL.
    const segmentVersions = matches.get("url: version at the end of a segment")!.entries;
    expect(segmentVersions.filter((e) => !e.url.endsWith("/P360Member/api/fhir-r4")).map((e) => e.id)).toEqual([
      "764ec83fef52",
      "f09cd600ae22",
    ]);
    expect(segmentVersions.length).toBe(
      (
        db
          .prepare(
            "SELECT COUNT(*) AS n FROM entries WHERE vendor_id = 'elevance-health-anthem' AND url LIKE '%/fhir-r4'",
          )
          .get() as { n: number }
      ).n + 2,
    );
    expect(matches.get("certification withdrawn")!.entries.map((e) => e.id)).toEqual([
      "432d1e4d2ff0",
      "479afa9aafff",
      "628128abb541",
    ]);
    const text = formatAudit(report).join("\n");
    expect(text).toContain('name: "zzzDelete-Seattle DispatchHealth"');
    expect(text).toContain("205f03597f51");
  }, 60_000);
});

describe("versions, on the bundled national lists", () => {
  test("a path segment ending in a version after a separator names it: ggclinic's /fhir-R4 and /open-R4 are R4 from the URL", () => {
    for (const prefix of ["764ec83fef52", "f09cd600ae22"]) {
      const row = byPrefix(prefix);
      expect([row.url.replace(/^.*\//, ""), row.version, row.evidence]).toEqual([
        expect.stringMatching(/^(fhir|open)-R4$/),
        "R4",
        "url",
      ]);
    }
    // Only these two URLs gain a version: no national URL is read differently from the rule
    // that took only a whole `/r4/`, `/R2/`… segment.
    const plainSegment = /\/(dstu2|dstu3|stu3|r2|r3|r4b|r4|r5)(?=\/|$|\?)/i;
    const release: Record<string, string> = { dstu2: "DSTU2", r2: "DSTU2", stu3: "STU3", dstu3: "STU3", r3: "STU3" };
    const plainVersion = (url: string) => {
      const segment = plainSegment.exec(url.replace(/^[a-z]+:\/\/[^/]*/i, ""))?.[1]?.toLowerCase();
      return segment === undefined ? null : (release[segment] ?? segment.toUpperCase());
    };
    const urls = (db.prepare("SELECT DISTINCT url FROM entries").values() as [string][]).map(([url]) => url);
    const changed = urls.filter((url) => plainVersion(url) !== fhirVersionFromUrl(url));
    // Besides them, Elevance Health's plans, whose servers end in `/api/fhir-r4`.
    expect(
      changed.filter((url) => !/^https:\/\/patient360[a-z]*\.[a-z.]+\/P360Member\/api\/fhir-r4$/.test(url)).sort(),
    ).toEqual(["https://fhir.ggclinic.com/fhir-R4", "https://fhir.ggclinic.com/open-R4"]);
    expect(fhirVersionFromUrl("https://h.example/fhir4")).toBeNull();
    expect(fhirVersionFromUrl("https://h.example/api_dstu2/x")).toBe("DSTU2");
  });

  test("a certification withdrawn by its developer is no evidence: Better Day, Health Samurai's cmpl list, InteropX are UNKNOWN", () => {
    for (const [prefix, vendor] of [
      ["432d1e4d2ff0", "better-day-health"],
      ["628128abb541", "health-samurai"],
      ["479afa9aafff", "interopx"],
    ] as const) {
      const row = byPrefix(prefix);
      expect([row.vendor, row.version, row.evidence]).toEqual([vendor, "UNKNOWN", null]);
    }
    const lists = loadRegistry(DEFAULT_REGISTRY_PATH).flatMap((v) => v.lists);
    const flagged = (id: string) => lists.find((l) => l.id === id)?.certificationWithdrawn === true;
    expect(["better-day-health-lantern", "health-samurai-lantern-1", "interopx-lantern"].map(flagged)).toEqual([
      true,
      true,
      true,
    ]);
    // Health Samurai's other list rests on a certification still active.
    expect(flagged("health-samurai-lantern")).toBe(false);
  });

  test("how each version is known is in the list's meta, the CSV's last column and the FHIR Endpoint's extension", async () => {
    const app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      const listed = "status != 'removed' AND unusable IS NULL";
      const inferred = rows(`${listed} AND version_evidence = 'developer'`).length;
      expect(inferred).toBeGreaterThan(3_900);
      const csv = await (await app.handle(new Request("http://localhost/api/v1/export?format=csv"))).text();
      const lines = csv.trimEnd().split("\r\n");
      expect(lines[0]!.endsWith(",lastUpdated,environment,urlRepair,fhirVersionBasis")).toBe(true);
      const bases = new Map<string, number>();
      for (const line of lines.slice(1)) {
        const basis = line.slice(line.lastIndexOf(",") + 1);
        bases.set(basis, (bases.get(basis) ?? 0) + 1);
      }
      const count = (where: string) => rows(`${listed} AND ${where}`).length;
      expect(Object.fromEntries(bases)).toEqual({
        certification: inferred,
        list: count("version_evidence = 'list'"),
        url: count("version_evidence = 'url'"),
        unknown: count("version_evidence IS NULL"),
      });
      const list = await get(app, "/api/v1/endpoints?vendor=altera-digital-health&query=graves%20gilbert&limit=100");
      const ggclinic = list.body.data.findIndex((r: { url: string }) => r.url.endsWith("/fhir-R4"));
      expect([list.body.data[ggclinic].fhirVersion, list.body.meta.fhirVersionBasis[ggclinic]]).toEqual(["R4", "url"]);
      const fhir = (await (
        await app.handle(new Request("http://localhost/api/v1/export?format=fhir&vendor=carepaths"))
      ).json()) as { entry: { resource: { resourceType: string; id: string; extension?: unknown } }[] };
      const endpoints = fhir.entry.filter((e) => e.resource.resourceType === "Endpoint");
      expect(endpoints.length).toBeGreaterThan(0);
      // The version's two extensions (a non-production Endpoint also carries its environment's).
      for (const { resource } of endpoints)
        expect(
          (resource.extension as { url: string; valueCode?: string }[]).filter(
            (e) => !e.url.endsWith("Endpoint.environmentType"),
          ),
        ).toEqual([
          { url: "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version", valueCode: "4.0.1" },
          {
            url: "https://endpoint-directory.fly.dev/fhir/StructureDefinition/endpoint-fhir-version-basis",
            valueCode: "certification",
          },
        ]);
      const served = await app.handle(new Request(`http://localhost/fhir/Endpoint/${endpoints[0]!.resource.id}`));
      expect(((await served.json()) as { extension: unknown }).extension).toEqual(endpoints[0]!.resource.extension);
    } finally {
      app.directory.close();
    }
  }, 60_000);

  test("the registry generator reads CHPL's certification status from Lantern's files", () => {
    const current = loadRegistry(DEFAULT_REGISTRY_PATH);
    const generated = generateRegistry({
      chplLists: readJson<ChplListItem[]>(join(LANTERN_FILES, "CHPLEndpointResourcesList.json")),
      chplProducts: readJson<ChplProductsItem[]>(join(LANTERN_FILES, "CHPLProductsInfo.json")),
      files: new Set(current.flatMap((v) => v.lists.flatMap((l) => (l.bundledFile ? [l.bundledFile] : [])))),
      current,
    });
    const vendor = (id: string) => generated.find((v) => v.id === id)!;
    expect(vendor("better-day-health").defaultFhirVersion).toBeUndefined();
    expect(vendor("interopx").defaultFhirVersion).toBeUndefined();
    expect(vendor("health-samurai").defaultFhirVersion).toBe("R4");
    expect(vendor("epic").defaultFhirVersion).toBe("R4");
    expect(
      vendor("health-samurai")
        .lists.filter((l) => l.certificationWithdrawn)
        .map((l) => l.id),
    ).toEqual(["health-samurai-lantern-1"]);
  });
});

describe("the host rules, on made-up lists", () => {
  test("registered domains and edit distances", () => {
    expect(registeredDomain("inscmqaes41.rd.allscriprts.com")).toEqual({ name: "allscriprts", suffix: "com" });
    expect(registeredDomain("fhir.nhs.co.uk")).toEqual({ name: "nhs", suffix: "co.uk" });
    expect(registeredDomain("108.218.32.142")).toBeNull();
    expect(editDistance("allscripts", "allscipts")).toBe(1);
    expect(editDistance("allscripts", "allscirpts")).toBe(1);
    expect(editDistance("allscripts", "allscriptstw")).toBe(2);
  });

  test("the less used of two near domains is the misspelling; short names and equal counts are left alone", () => {
    const rule = listHostRules([
      "https://a.examplehealth.com/fhir",
      "https://b.examplehealth.com/fhir",
      "https://c.exampelhealth.com/fhir",
      "https://krh.org/fhir",
      "https://arh.org/fhir",
      "https://x.alphaclinic.org/fhir",
      "https://y.alphaclinik.org/fhir",
    ]);
    expect(rule("https://c.exampelhealth.com/fhir")?.kind).toBe("near-miss-domain");
    expect(rule("https://a.examplehealth.com/fhir")).toBeNull();
    expect(rule("https://arh.org/fhir")).toBeNull();
    expect(rule("https://y.alphaclinik.org/fhir")).toBeNull();
  });
});
