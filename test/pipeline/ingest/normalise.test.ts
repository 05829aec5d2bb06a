import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { fhirVersionFromUrl } from "../../../src/model/fhir-version";
import { normaliseEntries, normaliseNpi, normaliseZip } from "../../../src/pipeline/ingest/normalise";
import { parseList } from "../../../src/pipeline/ingest/parsers";
import { stateCode } from "../../../src/pipeline/ingest/state-code";
import { fhirVersionFromString } from "../../../src/pipeline/ingest/stated-version";
import { tenantIdFromUrl } from "../../../src/pipeline/ingest/tenant-rules";
import { expectedId, fixture } from "./helpers";

const parsed = (name: string) => parseList(readFileSync(fixture(name), "utf8")).entries;

describe("Oracle Health fixture, normalised", () => {
  const result = normaliseEntries(parsed("oracle-bundle.json"), { vendorId: "oracle-health", listFhirVersion: null });
  const byName = (name: string) => result.entries.find((e) => e.organizationName === name);

  test("duplicate (Endpoint, Organization) pairs collapse into one entry", () => {
    expect(result.entries).toHaveLength(3);
    expect(result.duplicates).toBe(1);
    expect(result.dropped).toHaveLength(0);
  });

  test("tenant from the URL, not the Endpoint id; NPI under the typo system; state name → code; ZIP+4 as published", () => {
    expect(byName("Lakeside Family Clinic")).toEqual({
      id: expectedId("oracle-health", "https://fhir-myrecord.cerner.com/r4/t1-A-b2", "1234567893", null),
      url: "https://fhir-myrecord.cerner.com/r4/t1-A-b2",
      organizationName: "Lakeside Family Clinic",
      npi: "1234567893",
      tenantId: "t1-A-b2",
      city: "Oakland",
      state: "CA",
      zipCode: "946121234",
      listFhirVersion: "R4",
      versionEvidence: "url",
      stateEvidence: "list",
      urlEvidence: "published",
      urlPublished: null,
      unusable: null,
      unusableDetail: null,
    });
  });

  test("scheme and host are lowercased, the path is kept", () => {
    expect(byName("Riverside Health")?.url).toBe(
      "https://fhir-myrecord.cerner.com/r4/ec2458f2-1e24-41c8-b71b-0e701af7583d",
    );
    expect(byName("Riverside Health")?.tenantId).toBe("ec2458f2-1e24-41c8-b71b-0e701af7583d");
  });

  test("the endpoint-fhir-version extension gives the version; a four-digit ZIP is not padded into a state", () => {
    const hilltop = byName("Hilltop Pediatrics");
    expect(hilltop?.listFhirVersion).toBe("STU3");
    expect(hilltop?.versionEvidence).toBe("list");
    expect(hilltop?.tenantId).toBeNull();
    // "1841" might be 01841 (Massachusetts) or a cut-off 5-digit ZIP anywhere; "ZZ" names no state.
    expect(hilltop?.zipCode).toBeNull();
    expect(hilltop?.state).toBeNull();
    expect(hilltop?.stateEvidence).toBeNull();
    expect(hilltop?.city).toBe("Springfield");
  });

  test("a version-specific list's version wins over every other hint", () => {
    const forced = normaliseEntries(parsed("oracle-bundle.json"), {
      vendorId: "oracle-health",
      listFhirVersion: "DSTU2",
    });
    expect(new Set(forced.entries.map((e) => e.listFhirVersion))).toEqual(new Set(["DSTU2"]));
  });
});

describe("Epic fixture, normalised", () => {
  const result = normaliseEntries(parsed("epic-bundle.json"), { vendorId: "epic", listFhirVersion: null });

  test("one entry per organization; entries share URLs; the same URL and name (any case) collapse", () => {
    expect(result.entries.map((e) => [e.url, e.organizationName, e.listFhirVersion])).toEqual([
      [
        "https://fhir.kp.org/service/ptnt_care/EpicEdiFhirRoutingSvc/v2014/esb-envlbl/200/api/FHIR/R4",
        "Kaiser Permanente – Georgia",
        "R4",
      ],
      [
        "https://fhir.kp.org/service/ptnt_care/EpicEdiFhirRoutingSvc/v2014/esb-envlbl/200/api/FHIR/R4",
        "Kaiser Permanente – Oregon – SW Washington",
        "R4",
      ],
      ["https://webproxy.allina.com/FHIR/api/FHIR/R4", "Allina Health System", "R4"],
      ["https://epicsoap.altru.org/fhir/api/FHIR/DSTU2", "Altru Health System", "DSTU2"],
    ]);
    expect(result.duplicates).toBe(1);
    expect(result.entries.every((e) => e.tenantId === null && e.npi === null)).toBe(true);
    expect(result.entries[2]?.id).toBe(
      expectedId("epic", "https://webproxy.allina.com/FHIR/api/FHIR/R4", null, "Allina Health System"),
    );
  });
});

describe("Lantern fixture, normalised", () => {
  const result = normaliseEntries(parsed("lantern.json"), { vendorId: "eclinicalworks", listFhirVersion: null });

  test("practice code as tenant; empty name and bad NPI → null; non-http URL counted invalid", () => {
    expect(result.entries.map((e) => [e.tenantId, e.organizationName, e.npi, e.zipCode])).toEqual([
      ["DGIACA", "Surgical Associates", null, "59101"],
      ["HFD1AD", "Elion Krok, MD PC", "1467081836", null],
      ["EGBBCD", null, null, null],
    ]);
    expect(result.dropped).toHaveLength(1);
    expect(result.duplicates).toBe(1);
    expect(result.entries[2]?.id).toBe(
      expectedId("eclinicalworks", "https://fhir4.eclinicalworks.com/fhir/r4/EGBBCD", null, null),
    );
  });
});

describe("field rules", () => {
  test("states: codes in any case, full names, DC and territories; anything else null", () => {
    const cases: [string, string | null][] = [
      ["CA", "CA"],
      ["ca", "CA"],
      ["California", "CA"],
      ["NEW YORK", "NY"],
      [" new   hampshire ", "NH"],
      ["District of Columbia", "DC"],
      ["Washington DC", "DC"],
      ["Puerto Rico", "PR"],
      ["Guam", "GU"],
      ["U.S. Virgin Islands", "VI"],
      ["American Samoa", "AS"],
      ["Northern Mariana Islands", "MP"],
      ["ZZ", null],
      ["Calif", null],
      ["", null],
      ["Ontario", null],
    ];
    for (const [raw, code] of cases) expect([raw, stateCode(raw)]).toEqual([raw, code]);
  });

  test("all 50 states, DC and the five inhabited territories by name", () => {
    const names = [
      "Alabama",
      "Alaska",
      "Arizona",
      "Arkansas",
      "California",
      "Colorado",
      "Connecticut",
      "Delaware",
      "Florida",
      "Georgia",
      "Hawaii",
      "Idaho",
      "Illinois",
      "Indiana",
      "Iowa",
      "Kansas",
      "Kentucky",
      "Louisiana",
      "Maine",
      "Maryland",
      "Massachusetts",
      "Michigan",
      "Minnesota",
      "Mississippi",
      "Missouri",
      "Montana",
      "Nebraska",
      "Nevada",
      "New Hampshire",
      "New Jersey",
      "New Mexico",
      "New York",
      "North Carolina",
      "North Dakota",
      "Ohio",
      "Oklahoma",
      "Oregon",
      "Pennsylvania",
      "Rhode Island",
      "South Carolina",
      "South Dakota",
      "Tennessee",
      "Texas",
      "Utah",
      "Vermont",
      "Virginia",
      "Washington",
      "West Virginia",
      "Wisconsin",
      "Wyoming",
      "District of Columbia",
      "Puerto Rico",
      "Guam",
      "U.S. Virgin Islands",
      "American Samoa",
      "Northern Mariana Islands",
    ];
    const codes = names.map(stateCode);
    expect(codes.every((c) => c !== null && /^[A-Z]{2}$/.test(c))).toBe(true);
    expect(new Set(codes).size).toBe(56);
  });

  test("ZIP codes: as published, or the 5-digit ZIP they start with", () => {
    const cases: [string, string | null][] = [
      ["12345", "12345"],
      ["12345-6789", "12345-6789"],
      // ZIP+4 in nine bare digits is served as published, no hyphen added.
      ["071122016", "071122016"],
      // A stray character after the ZIP does not lose it.
      ["79761?", "79761"],
      ["KY1-1010", null],
      ["PG05", null],
      ["1841", null],
      ["4850", null],
      ["20814-191", "20814"],
      ["350954", null],
      ["CA", null],
      ["", null],
    ];
    for (const [raw, zip] of cases) expect([raw, normaliseZip(raw)]).toEqual([raw, zip]);
  });

  test("NPI is exactly 10 digits", () => {
    expect(normaliseNpi(" 1234567893 ")).toBe("1234567893");
    expect(normaliseNpi("123456789")).toBeNull();
    expect(normaliseNpi("12345678901")).toBeNull();
    expect(normaliseNpi("12345-6789")).toBeNull();
  });

  test("FHIR versions per the documented mapping", () => {
    const cases: [string, string | null][] = [
      ["0.4.0", "DSTU2"],
      ["1.0.2", "DSTU2"],
      ["1.1.0", "STU3"],
      ["1.8.0", "STU3"],
      ["3.0.2", "STU3"],
      ["3.2.0", "R4"],
      ["3.5a.0", "R4"],
      ["4.0.0", "R4"],
      ["4.0.1", "R4"],
      ["4.1.0", "R4B"],
      ["4.3.0", "R4B"],
      ["4.2.0", "R5"],
      ["4.4.0", "R5"],
      ["4.6.0", "R5"],
      ["5.0.0", "R5"],
      ["5.0.0-ballot", "R5"],
      ["r4", "R4"],
      ["DSTU2", "DSTU2"],
      ["0.0.82", null],
      ["3.1.0", null],
      ["6.0.0", null],
      ["latest", null],
    ];
    for (const [raw, version] of cases) expect([raw, fhirVersionFromString(raw)]).toEqual([raw, version]);
  });

  test("FHIR version from a path segment, never from the host", () => {
    expect(fhirVersionFromUrl("https://fhir.epic.org/api/FHIR/R4/")).toBe("R4");
    expect(fhirVersionFromUrl("https://fhir-ehr.cerner.com/dstu2/abc")).toBe("DSTU2");
    expect(fhirVersionFromUrl("https://x.org/fhir/r4b")).toBe("R4B");
    expect(fhirVersionFromUrl("https://r4/fhir")).toBeNull();
    expect(fhirVersionFromUrl("https://x.org/fhir/r4x/")).toBeNull();
  });

  test("tenant rules per vendor, read from the URL only", () => {
    const cases: [string, string, string | null][] = [
      [
        "oracle-health",
        "https://fhir-myrecord.cerner.com/r4/-c6Xwd-UlrvkHnaNj_A8a39Pa03efHEX",
        "-c6Xwd-UlrvkHnaNj_A8a39Pa03efHEX",
      ],
      [
        "oracle-health",
        "https://fhir-ehr.cerner.com/dstu2/0b8a0111-e8e6-4c26-a91c-5069cbc6b1ca/",
        "0b8a0111-e8e6-4c26-a91c-5069cbc6b1ca",
      ],
      ["eclinicalworks", "https://fhir4.eclinicalworks.com/fhir/r4/HFD1AD", "HFD1AD"],
      ["veradigm", "https://fhir.fhirpoint.open.allscripts.com/fhirroute/open/10552842", "10552842"],
      ["veradigm", "https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/10552842/", "10552842"],
      [
        "greenway",
        "https://fhir-api.fhirprod.aws.greenwayhealth.com/fhir/R4/2.16.840.1.113883.3.441.103",
        "2.16.840.1.113883.3.441.103",
      ],
      [
        "practice-fusion",
        "https://api.practicefusion.com/fhir/r4/v1/118b460b-8390-4754-8e4a-1dd5ee20f599",
        "118b460b-8390-4754-8e4a-1dd5ee20f599",
      ],
      [
        "medhost",
        "https://fhir.yourcareuniverse.net/tenant/d3fa4a41-8fe5-4a32-ab4d-8161e92df9f4",
        "d3fa4a41-8fe5-4a32-ab4d-8161e92df9f4",
      ],
      [
        "drchrono",
        "https://drchrono-fhirpresentation.everhealthsoftware.com/fhir/drchrono/drchrono_328539/r4",
        "drchrono_328539",
      ],
      ["epic", "https://fhir.kp.org/service/ptnt_care/api/FHIR/R4/abc", null],
      ["meditech", "https://ehr.example.org/v1/r4/1234", null],
      ["athenahealth", "https://api.platform.athenahealth.com/fhir/r4/195900", null],
      ["nextgen", "https://fhir.nextgen.com/nge/prod/fhir-api-r4/fhir/r4/8a1b", null],
      ["medhost", "https://fhir.yourcareuniverse.net/other/d3fa4a41-8fe5-4a32-ab4d-8161e92df9f4", null],
    ];
    for (const [vendor, url, tenant] of cases)
      expect([vendor, url, tenantIdFromUrl(vendor, url)]).toEqual([vendor, url, tenant]);
  });
});
