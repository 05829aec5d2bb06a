/**
 * Names past Latin-1 (a curly apostrophe, a dash, an emoji, CJK) in list pages: each page means
 * exactly the records the by-id route gives, whichever mix of such names it holds. A page holding
 * one is written in ASCII for those records (src/server/http/json.ts, dataPageText), the rest as
 * JSON.stringify writes it; a page without one is byte for byte JSON.stringify's text.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { toEndpointFilter } from "../../../src/server/endpoints/filter";
import { dataPageText } from "../../../src/server/http/json";
import { createTestApp } from "../../support/app";
import { get } from "../../support/fixture";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";

/** Characters past U+00FF, and past U+FFFF (two UTF-16 units). */
const PAST_LATIN1 = /[\u0100-\uffff]/;
const NAMES = [
  "Alpha Clinic",
  "Children’s Hospital", // U+2019
  "Café Médical", // Latin-1 only: not past U+00FF
  "North–South Health", // U+2013
  "Heart 🩺 Center", // past U+FFFF
  "東京クリニック",
  "Zeta Care",
];
const ENTRIES = Array.from({ length: 60 }, (_, i) => ({
  vendorId: i % 3 === 0 ? "wide" : "plain",
  url: `https://fhir${i}.example/r4`,
  organizationName: NAMES[i % NAMES.length]!,
  city: i === 7 ? "Mañana–City" : "Springfield",
  state: "OH",
  tenantId: i === 11 ? "tenant’s" : null,
}));

let app: ReturnType<typeof createTestApp>;

beforeAll(() => {
  const db = seedDatabase(tempDbPath(), {
    vendors: [
      { id: "wide", name: "Wide – Systems" },
      { id: "plain", name: "Plain Systems" },
    ],
    entries: ENTRIES,
  });
  app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
});

afterAll(() => app?.directory.close());

const pageOf = async (query: string) => {
  const { status, text, body } = await get(app, `/api/v1/endpoints?${query}`);
  expect(status).toBe(200);
  return { text, body: body as { data: { id: string }[]; meta: { total: number } } };
};

describe("list pages with names past Latin-1", () => {
  test("every record equals its by-id answer, on pages of every size", async () => {
    for (const limit of [1, 2, 5, 7, 25, 100]) {
      for (let page = 1; (page - 1) * limit < ENTRIES.length; page++) {
        const { body } = await pageOf(`limit=${limit}&page=${page}`);
        for (const record of body.data) {
          const { body: one } = await get(app, `/api/v1/endpoints/${record.id}`);
          expect(record).toEqual((one as { data: { id: string } }).data);
        }
      }
    }
    const { body } = await pageOf("limit=100");
    expect(body.meta.total).toBe(ENTRIES.length);
    const names = body.data.map((r) => (r as unknown as { organizationName: string }).organizationName);
    for (const name of NAMES) expect(names).toContain(name);
  });

  test("a page holding such a name is sent without any character past U+00FF; others unchanged", async () => {
    const wide = await pageOf("limit=100");
    expect(PAST_LATIN1.test(JSON.stringify(wide.body))).toBe(true);
    expect(PAST_LATIN1.test(wide.text)).toBe(false);
    expect(wide.text).toContain("Children\\u2019s Hospital");
    expect(wide.text).toContain("Heart \\ud83e\\ude7a Center");
    // A page of plain names only is JSON.stringify's own text of what it means.
    const plain = await pageOf("query=zeta&vendor=plain");
    expect(plain.body.meta.total).toBeGreaterThan(0);
    expect(plain.text).toBe(JSON.stringify(plain.body));
  });
});

describe("dataPageText", () => {
  test("means the body JSON.stringify writes, for any mix of flagged records", () => {
    const records = NAMES.map((name, i) => ({ id: i, name, note: i % 2 === 0 ? null : "é" }));
    const wide = records.map((r) => PAST_LATIN1.test(r.name));
    const meta = { total: records.length, distance: [1.5, 2] };
    for (let from = 0; from < records.length; from++)
      for (let to = from; to <= records.length; to++) {
        const text = dataPageText(records.slice(from, to), wide.slice(from, to), meta);
        expect(JSON.parse(text)).toEqual({ success: true, data: records.slice(from, to), meta });
        expect(PAST_LATIN1.test(text)).toBe(false);
      }
  });

  test("a page's records are flagged exactly when one of their strings is past U+00FF", () => {
    const { records, wide } = app.directory.current.list(toEndpointFilter({}), 0, 100);
    expect(records).toHaveLength(ENTRIES.length);
    expect(wide).toEqual(records.map((r) => PAST_LATIN1.test(JSON.stringify(r))));
    expect(wide.filter(Boolean).length).toBeGreaterThan(0);
    expect(wide.filter((w) => !w).length).toBeGreaterThan(0);
  });
});
