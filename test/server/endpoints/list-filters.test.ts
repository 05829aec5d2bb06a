import { describe, expect, test } from "bun:test";
import { fixtureApp, get, orgNames } from "../../support/fixture";

const { app } = fixtureApp();
const list = async (query: string) => (await get(app, `/api/v1/endpoints${query}`)).body;

/** Every entry but the fixture's one removed entry (Epic, no organization name), which leaves the listings. */
const ALL_IN_ORDER = [
  "austin general clinic",
  "Family Practice of Austin",
  "O'Brien & Sons Pediatrics",
  "Brigham and Women's Hospital",
  "Clínica Señor de los Milagros",
  "Massachusetts General Hospital",
  "UCSF Health",
  "Lake Medical",
  "Valley Regional",
  "General Hospital_Of Texas",
  "St. Mary's Medical Center (100% care)",
];

describe("GET /api/v1/endpoints", () => {
  test("without filters: every entry not removed, ordered by vendor name, organization, url; default page and limit", async () => {
    const body = await list("");
    expect(body.success).toBe(true);
    expect(orgNames(body)).toEqual(ALL_IN_ORDER);
    expect(body.meta).toEqual({
      total: 11,
      page: 1,
      limit: 25,
      fhirVersionBasis: expect.any(Array),
      ready: expect.any(Array),
    });
    expect(body.meta.fhirVersionBasis).toHaveLength(body.data.length);
    expect(body.data.some((e: { status: string }) => e.status === "removed")).toBe(false);
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        "access",
        "city",
        "environment",
        "fhirVersion",
        "id",
        "lastUpdated",
        "npi",
        "organizationName",
        "state",
        "status",
        "tenantId",
        "url",
        "vendorId",
        "vendorName",
        "zipCode",
      ].sort(),
    );
  });

  test("a record carries every field as published", async () => {
    const body = await list("?query=massachusetts");
    expect(body.data).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{64}$/),
        url: "https://fhir.mgh.example/api/FHIR/R4",
        vendorName: "Epic Systems",
        vendorId: "epic",
        organizationName: "Massachusetts General Hospital",
        npi: "1234567893",
        tenantId: null,
        fhirVersion: "R4",
        access: ["patient", "provider"],
        city: "Boston",
        state: "MA",
        zipCode: "02114",
        status: "verified",
        lastUpdated: "2026-11-21T09:00:00.000Z",
        environment: "production",
      },
    ]);
  });

  test.each([
    ["mass gen", ["Massachusetts General Hospital"]],
    ["gen", ["austin general clinic", "Massachusetts General Hospital", "General Hospital_Of Texas"]],
    ["GENERAL hosp", ["Massachusetts General Hospital", "General Hospital_Of Texas"]],
    ["senor", ["Clínica Señor de los Milagros"]],
    ["SEÑOR clinica", ["Clínica Señor de los Milagros"]],
    ["o'brien", ["O'Brien & Sons Pediatrics"]],
    ["100%", ["St. Mary's Medical Center (100% care)"]],
    ["hospital_of", ["General Hospital_Of Texas"]],
    ['"mary" (care)', ["St. Mary's Medical Center (100% care)"]],
    ["zzz", []],
    ["ustin", []],
  ])("query=%p matches word prefixes, case- and accent-insensitively", async (query, expected) => {
    const body = await list(`?query=${encodeURIComponent(query)}`);
    expect(orgNames(body)).toEqual(expected);
    expect(body.meta.total).toBe(expected.length);
  });

  test.each(["", "   ", "%", "*:("])("query=%p has no word and filters nothing", async (query) => {
    expect((await list(`?query=${encodeURIComponent(query)}`)).meta.total).toBe(11);
  });

  test.each([
    ["vendor=epic", 4],
    ["vendor=athenahealth", 3],
    ["vendor=nobody", 0],
    ["vendor=EPIC", 0],
    ["state=TX", 3],
    ["state=MA", 2],
    ["state=AK", 0],
    ["fhirVersion=R4", 7],
    ["fhirVersion=R4B", 1],
    ["fhirVersion=R5", 1],
    ["fhirVersion=STU3", 1],
    ["fhirVersion=DSTU2", 1],
    ["access=patient", 7],
    ["access=provider", 3],
    ["hasResource=Patient", 7],
    ["hasResource=Patient,Observation,Condition", 2],
    ["hasResource=Patient%20,%20Observation", 3],
    ["hasResource=AllergyIntolerance", 3],
    ["hasResource=Encounter", 0],
    ["smartSupported=true", 3],
    ["smartSupported=false", 8],
  ])("%s → %d entries", async (query, total) => {
    const body = await list(`?${query}`);
    expect(body.meta.total).toBe(total);
    expect(body.data).toHaveLength(total);
  });

  test("each filter keeps only what it names", async () => {
    for (const e of (await list("?state=TX")).data) expect(e.state).toBe("TX");
    for (const e of (await list("?vendor=epic")).data) expect(e.vendorId).toBe("epic");
    for (const e of (await list("?access=provider")).data) expect(e.access).toContain("provider");
    for (const e of (await list("?fhirVersion=R4")).data) expect(e.fhirVersion).toBe("R4");
  });

  test.each([
    ["vendor=athenahealth&query=austin", ["austin general clinic", "Family Practice of Austin"]],
    ["state=TX&fhirVersion=R4", ["austin general clinic", "Family Practice of Austin"]],
    [
      "smartSupported=true&hasResource=Patient&fhirVersion=R4",
      ["Massachusetts General Hospital", "St. Mary's Medical Center (100% care)"],
    ],
    ["access=provider&smartSupported=true", ["Massachusetts General Hospital", "General Hospital_Of Texas"]],
    ["vendor=epic&state=MA&query=women", ["Brigham and Women's Hospital"]],
    ["vendor=meditech&access=patient", []],
  ])("filters combine with AND: %s", async (query, expected) => {
    const body = await list(`?${query}`);
    expect(orgNames(body)).toEqual(expected);
    expect(body.meta.total).toBe(expected.length);
  });
});

describe("pagination", () => {
  test("pages are disjoint, stable, and together give the whole ordered list", async () => {
    const pages = [];
    for (const page of [1, 2, 3]) pages.push(await list(`?limit=5&page=${page}`));
    expect(pages.map((p) => p.data.length)).toEqual([5, 5, 1]);
    expect(pages.flatMap((p) => orgNames(p))).toEqual(ALL_IN_ORDER);
    const ids = pages.flatMap((p) => p.data.map((e: { id: string }) => e.id));
    expect(new Set(ids).size).toBe(11);
    expect(pages.map(({ meta: { total, page, limit } }) => ({ total, page, limit }))).toEqual(
      [1, 2, 3].map((page) => ({ total: 11, page, limit: 5 })),
    );
    expect(await list("?limit=5&page=2")).toEqual(pages[1]);
  });

  test("pagination applies after filtering", async () => {
    const body = await list("?fhirVersion=R4&limit=2&page=2");
    expect(orgNames(body)).toEqual(["O'Brien & Sons Pediatrics", "Brigham and Women's Hospital"]);
    expect(body.meta).toEqual({
      total: 7,
      page: 2,
      limit: 2,
      fhirVersionBasis: expect.any(Array),
      ready: expect.any(Array),
    });
  });

  test.each(["?page=4&limit=5", "?page=1000", "?page=1000&limit=100&vendor=epic"])(
    "a page past the end (%s) is 200 with no data and the true total",
    async (query) => {
      const { status, body } = await get(app, `/api/v1/endpoints${query}`);
      expect(status).toBe(200);
      expect(body.data).toEqual([]);
      expect(body.meta.total).toBe(query.includes("epic") ? 4 : 11);
    },
  );

  test("limit=1 and limit=100 are accepted", async () => {
    expect((await list("?limit=1")).data).toHaveLength(1);
    expect((await list("?limit=100")).data).toHaveLength(11);
  });
});
