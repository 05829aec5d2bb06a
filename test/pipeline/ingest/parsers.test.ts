import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { detectFormat, parseCsv, parseCsvRows, parseList } from "../../../src/pipeline/ingest/parsers";
import { UnparseableListError } from "../../../src/pipeline/ingest/types";
import { fixture } from "./helpers";

const read = (name: string) => readFileSync(fixture(name), "utf8");

describe("FHIR Bundle with Organization.endpoint links (Oracle Health shape)", () => {
  const result = parseList(read("oracle-bundle.json"));

  test("yields one item per (Endpoint, Organization) link and counts the malformed items", () => {
    expect(result.format).toBe("fhir-bundle");
    expect(result.entries).toHaveLength(4);
    // dangling Organization reference, Endpoint without address, Direct endpoint, entry without resource
    expect(result.skipped).toBe(4);
  });

  test("follows the reference even when the Endpoint id differs from the tenant in its address", () => {
    const lakeside = result.entries.find((e) => e.url.includes("t1-A-b2"));
    expect(lakeside).toEqual({
      url: "https://fhir-myrecord.cerner.com/r4/t1-A-b2/",
      organizationName: "  Lakeside   Family Clinic ",
      npi: "1234567893", // published under the typo system http://hl7.org.fhir/sid/us-npi
      city: "Oakland",
      state: "California",
      zipCode: "946121234",
      fhirVersion: null,
    });
  });

  test("resolves absolute and urn:uuid references, takes the first 10-digit NPI, reads the version extension", () => {
    const riverside = result.entries.filter((e) => e.organizationName === "Riverside Health");
    expect(riverside).toHaveLength(2);
    expect(riverside.map((e) => e.npi)).toEqual(["1987654321", "1987654321"]);
    const hilltop = result.entries.find((e) => e.organizationName === "Hilltop Pediatrics");
    expect(hilltop?.fhirVersion).toBe("3.0.2");
    expect(hilltop?.zipCode).toBe("1841");
  });

  test("an Organization without an address yields null address fields", () => {
    const riverside = result.entries.find((e) => e.organizationName === "Riverside Health");
    expect([riverside?.city, riverside?.state, riverside?.zipCode]).toEqual([null, null, null]);
  });
});

describe("FHIR Bundle of Endpoints with a contained Organization (Epic shape)", () => {
  const result = parseList(read("epic-bundle.json"));

  test("finds the contained Organization whether managingOrganization has a '#' or not", () => {
    expect(result.entries.map((e) => e.organizationName)).toEqual([
      "Kaiser Permanente – Georgia",
      "Kaiser Permanente – Oregon – SW Washington",
      "Allina Health System",
      "ALLINA HEALTH SYSTEM",
      "Altru Health System", // no managingOrganization: Endpoint.name
    ]);
    expect(result.skipped).toBe(1); // the Endpoint without an address
  });
});

describe("Lantern's flat JSON and plain arrays like it", () => {
  test("reads {Endpoints:[{URL, OrganizationName, NPIID, OrganizationZipCode}]}, skipping items without a URL", () => {
    const result = parseList(read("lantern.json"));
    expect(result.format).toBe("lantern-json");
    expect(result.entries).toHaveLength(5);
    expect(result.skipped).toBe(3);
    expect(result.entries[1]).toEqual({
      url: "https://fhir4.eclinicalworks.com/fhir/r4/HFD1AD/",
      organizationName: "Elion Krok, MD PC",
      npi: "1467081836",
      city: null,
      state: null,
      zipCode: "7052",
      fhirVersion: null,
    });
  });

  test("reads MEDHOST's array of {serviceBaseUrl, facilityName, npi}", () => {
    const result = parseList(read("medhost.json"));
    expect(result.entries.map((e) => [e.url, e.organizationName, e.npi])).toEqual([
      [
        "https://fhir.yourcareuniverse.net/tenant/d3fa4a41-8fe5-4a32-ab4d-8161e92df9f4",
        "Acadian Medical Center",
        "1396394961",
      ],
      [
        "https://fhir.yourcareuniverse.net/tenant/8e208ec0-3c40-457e-92b1-d5bc8bed18c3",
        "Alta Vista Regional Hospital",
        "",
      ],
    ]);
  });
});

describe("CSV", () => {
  test("RFC 4180 quoting: delimiters, doubled quotes and line breaks inside quotes, CRLF, BOM", () => {
    expect(parseCsvRows('\ufeffa,b\r\n"x, y","say ""hi""\r\nthere"\r\n\r\nlast,row')).toEqual([
      ["a", "b"],
      ["x, y", 'say "hi"\r\nthere'],
      ["last", "row"],
    ]);
  });

  test("guesses the columns from the header row", () => {
    const result = parseList(read("list.csv"));
    expect(result.format).toBe("csv");
    expect(result.skipped).toBe(1);
    expect(result.entries.map((e) => [e.organizationName, e.url, e.npi, e.city, e.state, e.zipCode])).toEqual([
      [
        "Smith, Jones & Partners",
        "https://fhir.medent.com/r4/practice/1001",
        "1234567893",
        "Albany",
        "new york",
        "12207",
      ],
      [
        'Quoted "Name" Clinic',
        "https://fhir.medent.com/r4/practice/1002",
        "",
        "Saint\r\nPaul",
        "Minnesota",
        "55101-1234",
      ],
      ["Plain Practice", "https://fhir.medent.com/r4/practice/1003", "", "Buffalo", "NYC", "14201"],
    ]);
  });

  test("uses a list's column mapping by header name or index; a file without a header starts with data", () => {
    const byName = parseCsv(read("list.csv"), { url: "fhir base url", organizationName: "NPI" });
    expect(byName.entries[0]?.organizationName).toBe("1234567893");
    const byIndex = parseCsv(read("no-header.csv"), { url: 0, organizationName: 1, state: 2 });
    expect(byIndex.entries.map((e) => [e.url, e.organizationName, e.state])).toEqual([
      ["https://fhir.example.net/r4/a", "Alpha Practice", "TX"],
      ["https://fhir.example.net/r4/b", "Beta Practice", "Puerto Rico"],
    ]);
    expect(parseCsv(read("no-header.csv")).entries.map((e) => e.url)).toHaveLength(2);
  });

  test("an address column is not mistaken for the URL", () => {
    const text =
      "Organization Name,Street Address,FHIR Endpoint URL,City,State,Zip Code\r\nNorth Clinic,1 Elm St,https://fhir.north.test/r4,Reno,Nevada,89501\r\n";
    expect(parseCsv(text).entries).toEqual([
      {
        url: "https://fhir.north.test/r4",
        organizationName: "North Clinic",
        npi: null,
        city: "Reno",
        state: "Nevada",
        zipCode: "89501",
        fhirVersion: null,
      },
    ]);
    expect(parseCsv("Name,Address,URL\nSouth Clinic,2 Oak St,https://fhir.south.test/r4\n").entries[0]?.url).toBe(
      "https://fhir.south.test/r4",
    );
  });

  test("a CSV without any URL column is unparseable", () => {
    expect(() => parseCsv("name,city\nA,B\n")).toThrow(UnparseableListError);
  });
});

describe("detectFormat and unparseable bodies", () => {
  test("detects each format from the content alone", () => {
    expect(detectFormat(read("oracle-bundle.json"))).toBe("fhir-bundle");
    expect(detectFormat(read("epic-bundle.json"))).toBe("fhir-bundle");
    expect(detectFormat(read("lantern.json"))).toBe("lantern-json");
    expect(detectFormat(read("medhost.json"))).toBe("lantern-json");
    expect(detectFormat(read("list.csv"))).toBe("csv");
    expect(detectFormat(read("no-header.csv"))).toBe("csv");
  });

  test("HTML, broken JSON, other JSON and plain text are not lists", () => {
    for (const body of [
      "<!doctype html><html><body>Endpoints</body></html>",
      '{"resourceType": "Bund',
      '{"hello": 1}',
      "just text",
      "",
    ]) {
      expect(detectFormat(body)).toBeNull();
      expect(() => parseList(body)).toThrow(UnparseableListError);
    }
  });
});
