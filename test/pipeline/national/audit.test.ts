/**
 * `npm run data:audit` on the bundled national lists (db/national/), run as users run it: it
 * builds them and prints the figures a patient app depends on — report cards with CHPL products,
 * real names kept production, non-production entries by rule, URL repairs and name repairs by
 * kind, and the brands bundle as the server serves it (src/directory/brands.ts decides both):
 * no test or placeholder entry in it, no duplicate brand, the one NPI two brands carry with why,
 * no http:// developer page. The served bundle is checked on its own in brands.test.ts and
 * test/server/export/brands.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openReadOnly } from "../../../src/db/client";
import { readDatabaseId, readDatasetVersion } from "../../../src/db/dataset-meta";
import { readStoredIndex } from "../../../src/db/stored-index";
import { brandKeyOf, brandsEntries, brandsFilter, planBrands } from "../../../src/directory/brands";
import { parseDataBytes } from "../../../src/directory/data-file";
import { DATA_FORMAT } from "../../../src/directory/directory-data";
import { DirectorySearch } from "../../../src/directory/search";
import { duplicateBrandPairs } from "../../../src/pipeline/national/audit";
import { nationalDatabase } from "../../support/built-once";
import { finished, spawnScript } from "../../support/run-script";
import { removeTempDirs, tempDir } from "../../support/temp-db";

describe("npm run data:audit on the bundled lists", () => {
  test("prints the report cards' CHPL figures, real names kept production, the brands bundle, every repair by kind", async () => {
    const run = await finished(spawnScript("src/pipeline/national/audit-cli.ts", [], {}));
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const lines = run.stdout.split("\n");
    for (const line of [
      "report cards: 122 developers, 122 with CHPL products (239 products: 188 active, 51 withdrawn); (g)(10) active for 117",
      "  epic: 16 products, 10 active, 6 withdrawn",
      "  meditech: 19 products, 19 active, 0 withdrawn",
      "  athenahealth: 8 products, 4 active, 4 withdrawn",
      "real organizations whose names hold a rule's letters (18 names): 14 listed entries, 0 marked non-production",
      "  name-placeholder: 15 entries",
      "URL of listed entries, as published or by kind of repair:",
      "  cleaned        4",
      "  scheme-assumed 3",
      "  host-guessed   17",
      "organization names repaired at ingest (served repaired; the entry's id stays the published name's): 14 entries, quote-cut 9, template 4, url 1",
      // The brands bundle: 31,898 brands and 54 developers are docs/api.md's 31,952 Organizations.
      "brands bundle (GET /api/v1/brands: production entries): 22135 Endpoints of 39556 entries; 31898 brands (30 organizations merged into them as aliases) and 54 developers as brands",
      "  test or placeholder entries in it (environment rules, name rules): 0",
      "  duplicate brand pairs (one developer, names equal but for case, punctuation and spacing): 0 sharing an Endpoint, 0 sharing an NPI and address",
      "  brands carrying an NPI another brand carries under another name, each saying why in its narrative: 2",
      "  developers whose page for app developers is not https://, given as absent (no http:// link): 2",
      "    agastha  http://agastha.com/production-links.html",
    ])
      expect([line, lines.includes(line)]).toEqual([line, true]);
    // Every match is listed by rule, with the entries it matches.
    const placeholder = lines.indexOf("  name-placeholder: 15 entries");
    expect(lines.slice(placeholder).some((l) => l.includes('"zusk not a real company"'))).toBe(true);
    // The non-production entries the rules find are listed, and none of them is in the brands bundle.
    const nonProduction = /^non-production listed entries .*: (\d+), by rule:$/.exec(
      lines.find((l) => l.startsWith("non-production listed entries (")) ?? "",
    );
    expect(Number(nonProduction?.[1])).toBeGreaterThan(100);
    // docs/api.md shows the brands bundle's lines as this run prints them.
    const docs = readFileSync(join(import.meta.dir, "../../../docs/api.md"), "utf8");
    const shown = /bundled lists it prints:\n\n```\n([^`]+)```/.exec(docs)?.[1]?.trimEnd().split("\n") ?? [];
    expect(shown.length).toBe(5);
    for (const line of shown) expect([line, lines.includes(line)]).toEqual([line, true]);
    // Each of the two brands carrying NPI 1780761866 says why, naming the other.
    expect(lines.filter((l) => l.startsWith("    1780761866  "))).toEqual([
      '    1780761866  "Havasu Regional Medical Center" (medhost): NPI 1780761866 is also published for Valley View Medical Center (MEDHOST): another organization with its own name and FHIR endpoints, so a brand of its own. The lists publish this NPI for both and do not say which one it belongs to.',
      '    1780761866  "Valley View Medical Center" (medhost): NPI 1780761866 is also published for Havasu Regional Medical Center (MEDHOST): another organization with its own name and FHIR endpoints, so a brand of its own. The lists publish this NPI for both and do not say which one it belongs to.',
    ]);
  }, 120_000);
});

describe("the audit's duplicate brand pairs", () => {
  test("find the practices the bundle merges when it does not merge them; none in the bundle", async () => {
    const path = `${tempDir()}/national.sqlite`;
    await nationalDatabase(path);
    // The directory data the server reads: the index its first start keeps in the database
    // (nationalDatabase adds it), rather than built again from the tables here.
    const sqlite = openReadOnly(path, 0);
    const stored = readStoredIndex(sqlite, DATA_FORMAT, readDatasetVersion(sqlite), readDatabaseId(sqlite));
    sqlite.close();
    expect(stored).not.toBeNull();
    const data = parseDataBytes(path, stored!);
    const ordinals = brandsEntries(new DirectorySearch(data), brandsFilter({ queryWords: [] }));
    const plan = planBrands(data, ordinals);
    const served = ordinals.filter((o) => plan.inBundle(data.columns.url[o]!));
    expect(duplicateBrandPairs(data, plan, served)).toEqual({ byUrl: [], byPlace: [] });
    // The same bundle with every organization its own brand: the spellings merged are found.
    const unmerged = new Map(plan.brands);
    for (const o of served) {
      const key = brandKeyOf(data, o);
      if (plan.aliasOf.has(key) && !unmerged.has(key)) unmerged.set(key, o);
    }
    const found = duplicateBrandPairs(data, { brands: unmerged, aliasOf: new Map() }, served);
    expect(found.byUrl).toContainEqual(["Tribury Eye Care", "Tribury Eyecare"]);
    expect(found.byPlace).toContainEqual(["Center for Women's Health", "Center for Womens Health"]);
    // The national lists' spellings of one practice, as the bundle would show them unmerged.
    expect([found.byUrl.length, found.byPlace.length]).toEqual([11, 30]);
    removeTempDirs();
  }, 120_000);
});
