/**
 * The export returns exactly the entries the list operation pages through — same ids, same
 * order, same records — for every filter combination the list's brute-force test uses (its
 * values and its seeded random pairs and larger combinations, without page and limit), on the
 * same generated 10,000-entry dataset, in all three formats.
 */
import { expect, test } from "bun:test";
import { type Combo, combinations } from "../../support/filter-combinations";
import { appOnGeneratedDataset } from "../../support/generated-app";
import { expectedCsvRow, exportText, type FhirBundle, type ListRecord, pageThroughList, parseCsv } from "./helpers";

/** The list test's combinations with the paging parameters dropped, each once. */
function filterCombinations(): Combo[] {
  const seen = new Set<string>();
  return combinations()
    .map(({ page: _page, limit: _limit, ...filters }) => filters)
    .filter((combo) => {
      const key = queryString(combo);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

function queryString(combo: Combo): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(combo)) if (value !== undefined) params.set(key, value);
  return params.toString();
}

const live = appOnGeneratedDataset({ endpoints: 10_000, seed: 11 });

/** The distinct URLs of the records, in order of first appearance. */
const distinctUrls = (records: ListRecord[]) => [...new Set(records.map((record) => record.url))];

test("every filter combination: the export holds the list's records, in the list's order, in every format", async () => {
  const combos = filterCombinations();
  const failures: string[] = [];
  let nonEmpty = 0;
  for (const combo of combos) {
    const filters = queryString(combo);
    const expected = await pageThroughList(live.app, filters);
    if (expected.length > 0) nonEmpty++;
    const sep = filters ? "&" : "";

    const ndjson = await exportText(live.app, `format=ndjson${sep}${filters}`);
    const lines = ndjson.text.split("\n");
    if (ndjson.response.status !== 200 || lines.pop() !== "") {
      failures.push(`ndjson ${filters}: status ${ndjson.response.status}`);
      continue;
    }
    // Byte for byte the list's JSON of each record (the list serialises the same objects).
    const expectedLines = expected.map((record) => JSON.stringify(record));
    if (lines.length !== expectedLines.length || lines.some((line, i) => line !== expectedLines[i]))
      failures.push(
        `ndjson ${filters}: ${lines.length} lines vs ${expected.length}; first difference at ${lines.findIndex((l, i) => l !== expectedLines[i])}`,
      );

    const csv = await exportText(live.app, `format=csv${sep}${filters}`);
    const rows = parseCsv(csv.text).slice(1);
    const expectedRows = expected.map(expectedCsvRow);
    if (!Bun.deepEquals(rows, expectedRows)) failures.push(`csv ${filters}: ${rows.length} rows vs ${expected.length}`);

    const fhir = await exportText(live.app, `format=fhir${sep}${filters}`);
    const bundle = JSON.parse(fhir.text) as FhirBundle;
    const addresses = (bundle.entry ?? [])
      .filter((item) => item.resource.resourceType === "Endpoint")
      .map((item) => item.resource.address);
    if (!Bun.deepEquals(addresses, distinctUrls(expected)))
      failures.push(`fhir ${filters}: ${addresses.length} Endpoints vs ${distinctUrls(expected).length} URLs`);
  }
  expect(failures).toEqual([]);
  expect(combos.length).toBeGreaterThan(300);
  expect(nonEmpty).toBeGreaterThan(combos.length / 3);
}, 300_000);
