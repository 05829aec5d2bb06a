/**
 * `npm run data:audit` on the bundled national lists (db/national/), run as users run it: it
 * builds them and prints the figures a patient app depends on — report cards with CHPL products,
 * real names kept production, non-production entries by rule, URL repairs and name repairs by
 * kind. The brands bundle's own figures (no test or placeholder entry, no duplicate brand) are
 * asserted on the served bundle (environment.test.ts, brands.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { finished, spawnScript } from "../../support/run-script";

describe("npm run data:audit on the bundled lists", () => {
  test("prints the report cards' CHPL figures, real names kept production, and every repair by kind", async () => {
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
    ])
      expect([line, lines.includes(line)]).toEqual([line, true]);
    // Every match is listed by rule, with the entries it matches.
    const placeholder = lines.indexOf("  name-placeholder: 15 entries");
    expect(lines.slice(placeholder).some((l) => l.includes('"zusk not a real company"'))).toBe(true);
  }, 120_000);
});
