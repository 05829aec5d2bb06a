/**
 * What a client of GET /api/v1/export sees: the three formats' headers and bodies, CSV quoting
 * of awkward names, ETag and 304, compressed answers, and validation as strict as the list's.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { loadConfig } from "../../../src/config";
import { createTestApp } from "../../support/app";
import { FILTER_PARAMETERS } from "../../support/filters";
import { ENTRIES, PROBES, VENDORS } from "../../support/fixture";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";
import {
  basisOfRecord,
  CSV_FIELDS,
  exportText,
  type ListRecord,
  pageThroughList,
  parseCsv,
  SPEC_FIELDS,
} from "./helpers";

const AWKWARD = [
  'The "Best" Clinic',
  "Smith, Jones and Partners",
  "Line One\nLine Two",
  "Carriage\r\nReturn Health",
  '"Quoted, with comma"',
  "Trailing comma,",
  "Pipe | Clinic",
  "Ünïcödé Klinik 東京",
];

const db = seedDatabase(tempDbPath(), {
  vendors: VENDORS,
  entries: [
    ...ENTRIES,
    ...AWKWARD.map((name, i) => ({
      vendorId: "meditech",
      url: `https://fhir.awkward${i}.example/r4`,
      organizationName: name,
      city: i % 2 === 0 ? `City, "${i}"` : null,
      state: "VT",
      zipCode: "05401",
      fhirVersion: "R4",
      access: i % 3 === 0 ? ["patient", "provider"] : ["provider"],
      status: "verified",
    })),
  ],
  probes: PROBES,
  at: "2026-11-21T09:00:00.000Z",
});
const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });

afterAll(() => {
  app.directory.close();
  db.sqlite.close();
});

describe("CSV", () => {
  test("a header row of the record's fields in the spec's order, then the list's records, RFC 4180 quoted", async () => {
    const { response, text } = await exportText(app, "format=csv");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(text.startsWith(`${CSV_FIELDS.join(",")}\r\n`)).toBe(true);
    const rows = parseCsv(text);
    expect(rows[0]).toEqual([...CSV_FIELDS]);
    const list = await pageThroughList(app, "");
    expect(rows.length).toBe(list.length + 1);
    for (const [i, record] of list.entries()) {
      const row = Object.fromEntries(SPEC_FIELDS.map((field, j) => [field, rows[i + 1]![j]]));
      expect(row.id).toBe(record.id);
      expect(row.organizationName).toBe(record.organizationName ?? "");
      expect(row.city).toBe(record.city ?? "");
      expect(row.npi).toBe(record.npi ?? "");
      expect(row.access).toBe(record.access.join("|"));
      expect(rows[i + 1]!.at(-1)).toBe(basisOfRecord.get(record)!);
    }
    // Every awkward name came back intact.
    const names = rows.slice(1).map((row) => row[4]);
    for (const name of AWKWARD) expect(names).toContain(name);
  });

  test("quotes only the fields that need it, doubling inner quotes", async () => {
    const { text } = await exportText(app, "format=csv&vendor=meditech");
    expect(text).toContain(',"The ""Best"" Clinic",');
    expect(text).toContain(',"Smith, Jones and Partners",');
    expect(text).toContain(',"Line One\nLine Two",');
    expect(text).toContain(',"Carriage\r\nReturn Health",');
    expect(text).toContain(',"""Quoted, with comma""",');
    expect(text).toContain(",Pipe | Clinic,");
    expect(text).toContain(",Ünïcödé Klinik 東京,");
    expect(text).toContain(',"City, ""0""",');
    expect(text).toContain(",patient|provider,");
    // Null cells are empty: Lake Medical has no NPI, tenant or city.
    expect(text).toMatch(/,meditech,Lake Medical,,,R5,provider,,MN,,verified,/);
  });

  test("a filter that matches nothing is the header row alone", async () => {
    const { response, text } = await exportText(app, "format=csv&vendor=no-such-vendor");
    expect(response.status).toBe(200);
    expect(text).toBe(`${CSV_FIELDS.join(",")}\r\n`);
  });
});

describe("NDJSON", () => {
  test("one record per line, exactly the list's JSON of that record", async () => {
    const { response, text } = await exportText(app, "format=ndjson&state=VT");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const list = await pageThroughList(app, "state=VT");
    expect(list.length).toBe(AWKWARD.length);
    expect(text).toBe(list.map((record) => `${JSON.stringify(record)}\n`).join(""));
    const parsed = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as ListRecord);
    expect(parsed.map((record) => record.organizationName).sort()).toEqual([...AWKWARD].sort());
  });

  test("no match → an empty body", async () => {
    const { response, text } = await exportText(app, "format=ndjson&state=WY");
    expect(response.status).toBe(200);
    expect(text).toBe("");
  });
});

describe("download headers and caching", () => {
  test("attachment with the dataset version in the file name, for each format", async () => {
    const version = app.directory.current.version;
    for (const [format, name] of [
      ["csv", `endpoint-directory-v${version}.csv`],
      ["ndjson", `endpoint-directory-v${version}.ndjson`],
      ["fhir", `endpoint-directory-v${version}.fhir.json`],
    ]) {
      const { response } = await exportText(app, `format=${format}`);
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${name}"`);
      expect(response.headers.get("x-request-id")).toBeTruthy();
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  test("ETag per dataset version, format and filters; If-None-Match → 304 without a body", async () => {
    const csv = (await exportText(app, "format=csv&vendor=epic&state=MA")).response.headers.get("etag")!;
    expect(csv).toMatch(/^W\/".+"$/);
    // The same export asked with the parameters in another order has the same ETag.
    const reordered = (await exportText(app, "state=MA&vendor=epic&format=csv")).response.headers.get("etag");
    expect(reordered).toBe(csv);
    const others = [
      "format=ndjson&vendor=epic&state=MA",
      "format=csv&vendor=epic",
      "format=csv&vendor=epic&state=CA",
      "format=csv",
    ];
    const etags: (string | null)[] = [];
    for (const q of others) etags.push((await exportText(app, q)).response.headers.get("etag"));
    expect(new Set([csv, ...etags]).size).toBe(others.length + 1);

    const { response, text } = await exportText(app, "format=csv&vendor=epic&state=MA", {
      headers: { "if-none-match": csv },
    });
    expect(response.status).toBe(304);
    expect(text).toBe("");
    expect(response.headers.get("etag")).toBe(csv);
    const stale = await exportText(app, "format=csv&vendor=epic&state=MA", {
      headers: { "if-none-match": 'W/"0-stale"' },
    });
    expect(stale.response.status).toBe(200);
    expect(stale.text.length).toBeGreaterThan(100);
  });

  test("a bad request is 400 even with If-None-Match: *", async () => {
    const { response } = await exportText(app, "format=csv&state=XX", { headers: { "if-none-match": "*" } });
    expect(response.status).toBe(400);
  });

  test("a streamed (filtered) export's gzip and br bodies decode to the plain body", async () => {
    const plain = (await exportText(app, "format=ndjson&fhirVersion=R4")).text;
    for (const [encoding, decode] of [
      ["gzip", gunzipSync],
      ["br", brotliDecompressSync],
    ] as const) {
      const response = await app.handle(
        new Request("http://localhost/api/v1/export?format=ndjson&fhirVersion=R4", {
          headers: { "accept-encoding": encoding },
        }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("content-encoding")).toBe(encoding);
      expect(response.headers.get("vary")).toStartWith("Accept-Encoding");
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.length).toBeLessThan(Buffer.byteLength(plain));
      expect(decode(bytes).toString("utf8")).toBe(plain);
    }
  });
});

describe("validation", () => {
  const cases: [string, string][] = [
    ["", "format: must be csv, ndjson, fhir or brands"],
    ["format=xml", "format: must be csv, ndjson, fhir or brands"],
    ["format=CSV", "format: must be csv, ndjson, fhir or brands"],
    ["format=csv&page=2", "page: the export has no pages; it returns every matching entry"],
    ["format=csv&limit=100", "limit: the export has no pages; it returns every matching entry"],
    ["format=csv&colour=blue", "colour: unknown parameter"],
    ["format=csv&format=ndjson", "format: given more than once"],
  ];
  for (const [query, message] of cases) {
    test(`?${query} → 400 ${message}`, async () => {
      const { response, text } = await exportText(app, query);
      expect(response.status).toBe(400);
      expect(JSON.parse(text)).toEqual({ success: false, error: { code: "VALIDATION_ERROR", message } });
    });
  }

  test("every filter is rejected with the list's own message", async () => {
    const filters = [
      "state=ca",
      "state=ZZ",
      "fhirVersion=R6",
      "fhirVersion=UNKNOWN",
      "access=admin",
      "smartSupported=yes",
      "hasResource=patient",
      "hasResource=Patient,,Observation",
      `hasResource=${Array.from({ length: 21 }, (_, i) => `Type${String.fromCharCode(65 + i)}`).join(",")}`,
      `query=${"a".repeat(201)}`,
      `vendor=${"v".repeat(101)}`,
      "query=%E0%A4%A",
    ];
    for (const filter of filters) {
      const list = await app.handle(new Request(`http://localhost/api/v1/endpoints?${filter}`));
      const exported = await exportText(app, `format=csv&${filter}`);
      expect({ filter, status: exported.response.status }).toEqual({ filter, status: 400 });
      expect({ filter, body: JSON.parse(exported.text) }).toEqual({ filter, body: await list.json() });
    }
  });

  test("HEAD answers the headers without a body; other methods are 405", async () => {
    const head = await app.handle(new Request("http://localhost/api/v1/export?format=csv", { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await head.text()).toBe("");
    const post = await app.handle(new Request("http://localhost/api/v1/export?format=csv", { method: "POST" }));
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toContain("GET");
  });
});

describe("OpenAPI", () => {
  test("documents the route: format and the list's filters, no paging, an example of each format", async () => {
    const body = (await (await app.handle(new Request("http://localhost/docs/json"))).json()) as {
      paths: Record<string, { get: unknown }>;
    };
    const operation = body.paths["/api/v1/export"]!.get as {
      description: string;
      parameters: { name: string; required: boolean }[];
      responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
    };
    const names = operation.parameters.map((p) => p.name).sort();
    expect(names).toEqual([...FILTER_PARAMETERS, "format"].sort());
    expect(operation.parameters.find((p) => p.name === "format")!.required).toBe(true);
    const content = operation.responses["200"]!.content!;
    expect(Object.keys(content).sort()).toEqual(["application/fhir+json", "application/x-ndjson", "text/csv"]);
    for (const type of Object.keys(content)) expect(content[type]!.example).toBeTruthy();
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "304", "400", "429"]));
    for (const format of ["format=csv", "format=ndjson", "format=fhir"])
      expect(operation.description).toContain(format);
  });
});
