/**
 * What a list item must be before it is stored: a well-formed http(s) URL (otherwise the item is
 * skipped and counted), text without control characters, and text decoded right when a CSV or
 * flat list is not UTF-8 (Windows-1252, as spreadsheets save it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { normaliseEntries } from "../../../src/pipeline/ingest/normalise";
import type { RawEntry } from "../../../src/pipeline/ingest/types";
import { writeAcmeRegistry } from "../../support/acme";
import { query, removeTempDirs, runCli, tempDir, writeFile } from "./cli-helpers";

const raw = (url: string, organizationName: string | null = "Clinic"): RawEntry => ({
  url,
  organizationName,
  npi: null,
  city: null,
  state: null,
  zipCode: null,
  fhirVersion: null,
});

const normalise = (items: RawEntry[]) => normaliseEntries(items, { vendorId: "acme", listFhirVersion: null });

/** Every URL here is malformed or unsafe to store and serve. */
const HOSTILE_URLS = [
  "https://x.example.com/fhir\u0000\n<script>",
  "https://x.example.com/fh ir",
  "https://x.example.com/fhir\u001b[31m",
  "https://x.example.com/\u0007bell",
  "https://x.example.com/\u202eevil",
  "https://user:pass@cred.example.com/fhir",
  "https://user@cred.example.com/fhir",
  "https://@cred.example.com/fhir",
  `https://${"a".repeat(70_000)}.example.com/fhir`,
  `https://${"a".repeat(64)}.example.com/fhir`,
  `https://${Array.from({ length: 64 }, () => "abc").join(".")}.com/fhir`,
  "https://bad port.example.com:99999/",
  "https://port.example.com:99999/fhir",
  "https://port.example.com:0/fhir",
  "https://port.example.com:-1/fhir",
  "https://-dash.example.com/fhir",
  "https://dash-.example.com/fhir",
  "https://a..b.example.com/fhir",
  "https://under_score.example.com/fhir",
  "https://x.example.com\\@evil.example.com/fhir",
  "https:\\\\evil.example.com/fhir",
  "https:evil.example.com/fhir",
  "https:///evil.example.com/fhir",
  "https://",
  "javascript:alert(1)//https://x.example.com",
  "file:///etc/passwd",
  "ftp://x.example.com/fhir",
  "data:text/plain,https://x.example.com",
];

describe("list items with a malformed URL are skipped and counted", () => {
  test("every hostile URL is rejected", () => {
    const result = normalise(HOSTILE_URLS.map((url, i) => raw(url, `Hostile ${i}`)));
    expect(result.entries.map((e) => e.url)).toEqual([]);
    expect(result.dropped).toHaveLength(HOSTILE_URLS.length);
  });

  test("well-formed URLs are kept: surrounding whitespace trimmed, ports, IP literals, IDN, trailing dot", () => {
    const result = normalise([
      raw("  https://Fhir.Example.com:8443/r4/  ", "A"),
      raw("\thttp://fhir.example.org/api/FHIR/R4\r\n", "B"),
      raw("https://10.1.2.3/fhir", "C"),
      raw("https://[2001:db8::1]:9443/fhir", "D"),
      raw("https://bücher.example.de/fhir", "E"),
      raw("https://fhir.example.com./r4", "F"),
      raw("HTTPS://FHIR.NORTHWELL.EDU/FHIR", "G"),
      raw("https://fhir.example.com/r4?tenant=a%20b#x", "H"),
      raw(`https://${"a".repeat(63)}.example.com/fhir`, "I"),
    ]);
    expect(result.dropped).toHaveLength(0);
    expect(result.entries.map((e) => [e.organizationName, e.url])).toEqual([
      ["A", "https://fhir.example.com:8443/r4"],
      ["B", "http://fhir.example.org/api/FHIR/R4"],
      ["C", "https://10.1.2.3/fhir"],
      ["D", "https://[2001:db8::1]:9443/fhir"],
      ["E", "https://bücher.example.de/fhir"],
      ["F", "https://fhir.example.com./r4"],
      ["G", "https://fhir.northwell.edu/FHIR"],
      ["H", "https://fhir.example.com/r4?tenant=a%20b#x"],
      ["I", `https://${"a".repeat(63)}.example.com/fhir`],
    ]);
  });
});

describe("text fields lose control characters", () => {
  test("NUL, ESC, BEL, DEL and C1 controls are removed; line breaks and tabs become spaces", () => {
    const [entry] = normalise([
      {
        url: "https://fhir.example.com/r4",
        organizationName: "Evil\u0000 Clinic\u001b[31m\u0007\u007f\u009b of\nthe\tValley",
        npi: null,
        city: "Dal\u0000las\u0008",
        state: "TX\u0000",
        zipCode: "75001\u0000",
        fhirVersion: null,
      },
    ]).entries;
    expect(entry).toMatchObject({
      organizationName: "Evil Clinic[31m of the Valley",
      city: "Dallas",
      state: "TX",
      zipCode: "75001",
    });
  });

  test("a name made only of control characters is no name", () => {
    const [entry] = normalise([raw("https://fhir.example.com/r4", "\u0000\u0007\u001b")]).entries;
    expect(entry?.organizationName).toBeNull();
  });
});

// Windows-1252 bytes of "Clínica Señor de los Milagros" and "Café Ñandú Health € Clinic".
const LATIN1_CSV = Buffer.from(
  "url,organization name,city\r\n" +
    "https://fhir.clinica.example/r4,Cl\xednica Se\xf1or de los Milagros,San Juan\r\n" +
    "https://fhir.cafe.example/r4,Caf\xe9 \xd1and\xfa Health \x80 Clinic,Ponce\r\n",
  "latin1",
);
const LATIN1_FLAT = Buffer.from(
  '{"Endpoints":[{"URL":"https://fhir.clinica.example/r4","OrganizationName":"Cl\xednica Se\xf1or"}]}',
  "latin1",
);
const UTF8_CSV = "url,organization name\nhttps://fhir.utf8.example/r4,Clínica Señor ☃\n";

describe("lists that are not UTF-8 are read as Windows-1252", () => {
  let server: ReturnType<typeof Bun.serve>;
  const bodies = new Map<string, { body: Uint8Array | string; type: string }>();
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const found = bodies.get(new URL(request.url).pathname);
        return found
          ? new Response(found.body, { headers: { "content-type": found.type } })
          : new Response("not found", { status: 404 });
      },
    });
  });
  afterAll(() => {
    server.stop(true);
    removeTempDirs();
  });

  function setup() {
    const dir = tempDir();
    const db = join(dir, "directory.sqlite");
    const registry = writeAcmeRegistry(join(dir, "vendors.json"), [
      { id: "acme-list", url: `http://127.0.0.1:${server.port}/list`, format: "csv", fhirVersion: "R4" },
    ]);
    const run = (...args: string[]) =>
      runCli(["--vendor", "acme", "--registry", registry, ...args], {
        DATABASE_PATH: db,
        ALLOW_PRIVATE_NETWORK: "true",
      });
    const names = () =>
      query<{ organization_name: string; city: string | null }>(
        db,
        "SELECT organization_name, city FROM entries ORDER BY 1",
      );
    return { dir, run, names };
  }

  test("a Latin-1 CSV file: accented names intact, no replacement characters", async () => {
    const { dir, run, names } = setup();
    const result = await run("--file", writeFile(dir, "latin1.csv", LATIN1_CSV));
    expect(result.code).toBe(0);
    expect(names()).toEqual([
      { organization_name: "Café Ñandú Health € Clinic", city: "Ponce" },
      { organization_name: "Clínica Señor de los Milagros", city: "San Juan" },
    ]);
  });

  test("a Latin-1 CSV over HTTP without a charset", async () => {
    const { run, names } = setup();
    bodies.set("/list", { body: new Uint8Array(LATIN1_CSV), type: "text/csv" });
    const result = await run();
    expect(result.code).toBe(0);
    expect(names().map((n) => n.organization_name)).toEqual([
      "Café Ñandú Health € Clinic",
      "Clínica Señor de los Milagros",
    ]);
  });

  test("a Latin-1 flat JSON list file", async () => {
    const { dir, run, names } = setup();
    const result = await run("--file", writeFile(dir, "latin1.json", LATIN1_FLAT));
    expect(result.code).toBe(0);
    expect(names().map((n) => n.organization_name)).toEqual(["Clínica Señor"]);
  });

  test("control: a UTF-8 CSV is read as UTF-8", async () => {
    const { run, names } = setup();
    bodies.set("/list", { body: UTF8_CSV, type: "text/csv; charset=utf-8" });
    const result = await run();
    expect(result.code).toBe(0);
    expect(names().map((n) => n.organization_name)).toEqual(["Clínica Señor ☃"]);
  });
});

describe("the ingest summary counts the skipped items", () => {
  afterAll(removeTempDirs);

  test("a flat list with hostile URLs: the good items are added, the others counted as skipped", async () => {
    const dir = tempDir();
    const items = [
      { URL: "https://good.example.com/fhir/r4", OrganizationName: "Good\u0000 Clinic\u001b[2J" },
      ...HOSTILE_URLS.map((URL, i) => ({ URL, OrganizationName: `Hostile ${i}` })),
    ];
    const file = writeFile(dir, "hostile.json", JSON.stringify({ Endpoints: items }));
    const db = join(dir, "directory.sqlite");
    const result = await runCli(["--vendor", "meditech", "--file", file], { DATABASE_PATH: db });
    expect(result.code).toBe(0);
    expect(result.output).toContain(`1 added, 0 updated, 0 unchanged, 0 removed, ${HOSTILE_URLS.length} skipped`);
    expect(query(db, "SELECT url, organization_name FROM entries")).toEqual([
      { url: "https://good.example.com/fhir/r4", organization_name: "Good Clinic[2J" },
    ]);
  });
});
