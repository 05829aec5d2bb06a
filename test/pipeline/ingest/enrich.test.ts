import { describe, expect, test } from "bun:test";
import { enrichEntry, repairPublishedUrl } from "../../../src/pipeline/ingest/enrich";
import { placeOfZip, stateOfNamePrefix } from "../../../src/pipeline/ingest/enrich/place";
import { fhirVersionOfUrl } from "../../../src/pipeline/ingest/enrich/version-of-url";
import { normaliseEntries } from "../../../src/pipeline/ingest/normalise";
import type { RawEntry } from "../../../src/pipeline/ingest/types";
import { unusableReason } from "../../../src/pipeline/ingest/unusable";
import { normalisedEntry } from "./helpers";

const raw = (url: string, more: Partial<RawEntry> = {}): RawEntry => ({
  url,
  organizationName: null,
  npi: null,
  city: null,
  state: null,
  zipCode: null,
  fhirVersion: null,
  ...more,
});

describe("published URL repair", () => {
  test.each([
    [
      ": https://fhirserver.astronautehr.com:9443/fhir-server/api/v4/",
      "https://fhirserver.astronautehr.com:9443/fhir-server/api/v4/",
      "cleaned",
    ],
    ['"https://a.example/fhir', "https://a.example/fhir", "cleaned"],
    ["fhir.footholdtechnology.com/cgc", "https://fhir.footholdtechnology.com/cgc", "scheme-assumed"],
    ["beta.cyfluentchart.com/FHIRapi/", "https://beta.cyfluentchart.com/FHIRapi/", "scheme-assumed"],
    ["beta.cyfluentchart.com /FHIRapi/", "https://beta.cyfluentchart.com/FHIRapi/", "scheme-assumed"],
  ] as const)("%p → %p (%s)", (published, repaired, kind) => {
    expect(repairPublishedUrl(published)).toEqual({ url: repaired, repair: expect.any(String), kind });
  });

  test.each([
    "https://fine.example/fhir",
    "see https://a.example/fhir",
    "ftp://a.example/fhir",
    "localhost/fhir",
    "not a url",
    "",
  ])("%p is left as published", (published) => {
    expect(repairPublishedUrl(published)).toEqual({ url: published, repair: null, kind: "published" });
  });

  test("normalisation counts repaired URLs it accepted and still skips what it cannot use", () => {
    const result = normaliseEntries(
      [
        raw("fhir.footholdtechnology.com/cgc"),
        raw(": https://b.example/r4"),
        raw("not a url"),
        raw("https://c.example"),
      ],
      { vendorId: "acme", listFhirVersion: null },
    );
    expect(result.entries.map((e) => e.url)).toEqual([
      "https://fhir.footholdtechnology.com/cgc",
      "https://b.example/r4",
      "https://c.example",
    ]);
    expect(result.repairs).toEqual([
      {
        published: "fhir.footholdtechnology.com/cgc",
        url: "https://fhir.footholdtechnology.com/cgc",
        organizationName: null,
        repair: "https:// added before a host name",
        kind: "scheme-assumed",
      },
      {
        published: ": https://b.example/r4",
        url: "https://b.example/r4",
        organizationName: null,
        repair: '": " before the scheme removed',
        kind: "cleaned",
      },
    ]);
    expect(result.dropped).toEqual([
      { published: "not a url", organizationName: null, reason: "whitespace or control characters inside the URL" },
    ]);
  });
});

describe("state and city", () => {
  test("from a ZIP or ZIP+4; unknown ZIP → null", () => {
    expect(placeOfZip("02114")).toEqual({ state: "MA", city: "Boston" });
    expect(placeOfZip("32073-3035")).toMatchObject({ state: "FL" });
    expect(placeOfZip("00000")).toBeNull();
    expect(placeOfZip(null)).toBeNull();
  });

  test("a ZIP the table does not know: the state its first three digits settle, no city", () => {
    // Every 936xx ZIP the table knows is in California, every 075xx in New Jersey.
    expect(placeOfZip("93697")).toEqual({ state: "CA", city: null });
    expect(placeOfZip("07562")).toEqual({ state: "NJ", city: null });
    expect(placeOfZip("071122016")).toMatchObject({ state: "NJ" });
    // 063xx is Connecticut but for one New York ZIP: the prefix settles nothing. 819xx is unused.
    expect(placeOfZip("06300")).toBeNull();
    expect(placeOfZip("81909")).toBeNull();
  });

  test('from an "XX - Name" prefix when XX is a USPS code', () => {
    expect(stateOfNamePrefix("NC - Sollus Pediatrics")).toBe("NC");
    expect(stateOfNamePrefix("PR - Clinica")).toBe("PR");
    expect(stateOfNamePrefix("ZZ - Somewhere")).toBeNull();
    expect(stateOfNamePrefix("NC-Sollus")).toBeNull();
    expect(stateOfNamePrefix("Sollus Pediatrics")).toBeNull();
  });

  test("published values win; the ZIP comes before the name prefix; the name stays as published", () => {
    expect(enrichEntry(normalisedEntry({ state: "TX", zipCode: "02114" }), null)).toMatchObject({
      state: "TX",
      city: null,
    });
    expect(enrichEntry(normalisedEntry({ city: "Somerville", zipCode: "02114" }), null)).toMatchObject({
      state: "MA",
      city: "Somerville",
    });
    expect(enrichEntry(normalisedEntry({ organizationName: "NC - X", zipCode: "02114" }), null).state).toBe("MA");
    expect(enrichEntry(normalisedEntry({ organizationName: "NC - X" }), null)).toMatchObject({
      state: "NC",
      city: null,
      organizationName: "NC - X",
    });
  });
});

describe("fhirVersion before a probe", () => {
  test.each([
    ["https://fhir-myrecord.cerner.com/r4/abc", "R4"],
    ["https://api.platform.athenahealth.com/fhir/r4", "R4"],
    ["https://epicproxy.et1043.epichosted.com/FHIRProxy/api/FHIR/DSTU2/", "DSTU2"],
    ["https://mtrestapis.achosp.org:443/v2/argonaut/v1", "DSTU2"],
    ["https://mtrestapis.achosp.org:443/v1/uscore/R4", "R4"],
    ["https://fhir.netsmartcloud.com/uscore/v1", "R4"],
    ["https://fhirserver.astronautehr.com:9443/fhir-server/api/v4", "R4"],
    ["https://api.prod.1life.com/fhir/4.0", "R4"],
    ["https://fhir.cozeva.com/4_0_0", "R4"],
    ["https://fhir.example/api/4.0.1", "R4"],
    // Two parts name FHIR's version only right after `fhir`: elsewhere it may be the vendor's API's.
    ["https://api.prod.1life.com/fhir/chirp/4.0", null],
    ["https://fhir.example/api/3.0", null],
    ["https://fhir.example/fhir/3.0.2", "STU3"],
    ["https://fhirprod.bl0.hos.allscriptscloud.com/R2/fhir", "DSTU2"],
    ["https://fhir.example/R3/open", "STU3"],
    ["https://argonauttwfhir.open.allscripts.com/FHIR", "DSTU2"],
    ["https://app.meldrx.com/api/fhir/7b595cb8", null],
    ["https://fhir.example/v4/x", null],
  ])("%p → %p", (url, version) => {
    expect(fhirVersionOfUrl(url)).toBe(version as never);
  });

  test("the developer's one version only when nothing else names one", () => {
    const list = (url: string, listFhirVersion: "DSTU2" | null = null) =>
      normaliseEntries([raw(url)], { vendorId: "acme", listFhirVersion, defaultFhirVersion: "R4" }).entries[0]!
        .listFhirVersion;
    expect(list("https://a.example/fhir")).toBe("R4");
    expect(list("https://a.example/v2/argonaut/v1")).toBe("DSTU2");
    expect(list("https://a.example/fhir", "DSTU2")).toBe("DSTU2");
    expect(
      normaliseEntries([raw("https://a.example/fhir")], { vendorId: "acme", listFhirVersion: null }).entries[0]!
        .listFhirVersion,
    ).toBe("UNKNOWN");
  });
});

describe("the developer's certified version, only where nothing contradicts it", () => {
  const versions = (urls: string[]) =>
    normaliseEntries(
      urls.map((url) => raw(url)),
      { vendorId: "acme", listFhirVersion: null, defaultFhirVersion: "R4" },
    ).entries.map((e) => [e.url, e.listFhirVersion, e.versionEvidence]);

  test("a list whose URLs name another version has more than one API: its unversioned URLs stay UNKNOWN", () => {
    expect(versions(["https://a.example/R2/fhir", "https://b.example/fhir"])).toEqual([
      ["https://a.example/R2/fhir", "DSTU2", "url"],
      ["https://b.example/fhir", "UNKNOWN", null],
    ]);
  });

  test("an unversioned URL on a host that also publishes /R4/ is not assumed R4; other hosts are, marked developer", () => {
    expect(versions(["https://a.example/R4/fhir", "https://a.example/fhir", "https://b.example/fhir"])).toEqual([
      ["https://a.example/R4/fhir", "R4", "url"],
      ["https://a.example/fhir", "UNKNOWN", null],
      ["https://b.example/fhir", "R4", "developer"],
    ]);
  });
});

describe("URL repair: whitespace inside a URL", () => {
  test.each([
    [
      "https://enhancedeyecare.ficintegrations.com\t/API/PCg4Nt/R4",
      "https://enhancedeyecare.ficintegrations.com/API/PCg4Nt/R4",
      "whitespace inside the URL removed",
    ],
    ["https://host.example/ fhir/r4", "https://host.example/fhir/r4", "whitespace inside the URL removed"],
    [": https://host.example/fhir", "https://host.example/fhir", '": " before the scheme removed'],
    // A loopback or private address before a whole host name is never the public server: dropped.
    [
      "https://127.0.0.1\teyeassociatesofgreenbayscwi.ficintegrations.com/API/GMPibL/R4",
      "https://eyeassociatesofgreenbayscwi.ficintegrations.com/API/GMPibL/R4",
      "127.0.0.1, a non-public address, removed before the host name",
    ],
    [
      "http://localhost clinic.example.com/fhir",
      "http://clinic.example.com/fhir",
      expect.stringContaining("localhost"),
    ],
    // A public address, or words that are no host name, stay: which one was meant is not plain.
    ["https://8.8.8.8\tclinic.example.com/API", "https://8.8.8.8\tclinic.example.com/API", null],
    ["https://127.0.0.1\tmy clinic/API", "https://127.0.0.1\tmy clinic/API", null],
    ["https://host.example/My Practice", "https://host.example/My Practice", null],
  ])("%p", (published, url, repair) => {
    expect(repairPublishedUrl(published)).toEqual({
      url,
      repair,
      kind: repair === null ? "published" : "cleaned",
    });
  });
});

describe("URL repair: relative paths", () => {
  const maximeyes = Array.from({ length: 9 }, (_, i) => `https://fhir.maximeyes.com/api/practice${i}/R4`);
  const normalise = (urls: string[]) =>
    normaliseEntries(
      urls.map((url) => raw(url, { organizationName: url })),
      { vendorId: "acme", listFhirVersion: null },
    );

  test("resolved against the host of nearly all the list's URLs of the same shape", () => {
    const result = normalise([...maximeyes, "https://fhirqa.maximeyes.com/api/qa11/R4", "api/eyesite/R4"]);
    expect(result.entries.at(-1)).toMatchObject({
      url: "https://fhir.maximeyes.com/api/eyesite/R4",
      urlEvidence: "host-guessed",
      urlPublished: "api/eyesite/R4",
      organizationName: "api/eyesite/R4",
    });
    expect(result.repairs).toEqual([
      {
        published: "api/eyesite/R4",
        url: "https://fhir.maximeyes.com/api/eyesite/R4",
        organizationName: "api/eyesite/R4",
        repair:
          "relative path resolved against https://fhir.maximeyes.com, the host of 9 of the list's 10 URLs of the same shape",
        kind: "host-guessed",
      },
    ]);
    expect(result.dropped).toEqual([]);
  });

  test("dropped, with the reason, when no host or several hold the paths of that shape", () => {
    const split = normalise([
      ...maximeyes.slice(0, 5),
      ...maximeyes.slice(5).map((u) => u.replace("fhir.", "other.")),
      "api/x/R4",
    ]);
    const unknownShape = normalise([...maximeyes, "API/x/R4", "fhir/r4"]);
    expect(split.dropped).toEqual([
      {
        published: "api/x/R4",
        organizationName: "api/x/R4",
        reason: expect.stringContaining("of the list's 9 URLs of the same shape 5 are on https://fhir.maximeyes.com"),
      },
    ]);
    expect(unknownShape.dropped.map((d) => [d.published, d.reason])).toEqual([
      ["API/x/R4", expect.stringContaining("no URL of the same shape")],
      ["fhir/r4", expect.stringContaining("no URL of the same shape")],
    ]);
    expect([split.entries.length, unknownShape.entries.length]).toEqual([9, 9]);
  });
});

describe("unusable entries", () => {
  test.each([
    ["https://10.0.2.4/fhir", null, "non-public-address"],
    ["https://172.19.5.119/fhir", null, "non-public-address"],
    ["https://192.168.102.4:9443/fhir", null, "non-public-address"],
    ["http://169.254.1.1/fhir", null, "non-public-address"],
    ["http://[::1]/fhir", null, "non-public-address"],
    ["https://localhost/FHIR", null, "localhost"],
    ["https://se01ascmshvp/FHIR", null, "single-label-host"],
    ["https://sears-17-1-app.services.local/fhir", null, "internal-suffix"],
    ["https://emr.clinic.lan/fhir", null, "internal-suffix"],
    ["https://fhir.corp.internal/r4", null, "internal-suffix"],
    ["https://x.home.arpa/r4", null, "internal-suffix"],
    ["https://lv01ascmsh001vm.lv0.hos/FHIR", null, "internal-suffix"],
    ["https://dts-t03-scmweb2.rd.allscripts.com/FHIR", null, "internal-suffix"],
    ["https://hl7.org/fhir/R4/http.html", null, "web-page"],
    ["https://fhir.fhirpoint.open.allscripts.com/R4/fhir-OCC-FhirPoint-Echo?cust=10344843", null, "query-or-fragment"],
    ["https://fhir.example.com/r4#patient", null, "query-or-fragment"],
    ["https://api.platform.athenahealth.com/fhir/r4", "**DO NOT USE**", "do-not-use"],
    ["https://api.platform.athenahealth.com/fhir/r4", "XX_DO NOT USE_XXX", "do-not-use"],
    ["https://api.platform.athenahealth.com/fhir/r4", "NC - Sollus Pediatrics", null],
    ["https://fhir.example.com/r4", "Test Clinic", null],
    ["https://8.8.8.8/fhir", null, null],
    ["https://fhir.acme.test/r4", null, null],
  ])("%p (%p) → %p", (url, name, kind) => {
    expect(unusableReason(url, name)?.kind ?? null).toBe(kind as never);
  });

  test("with private networks allowed (local development), private and loopback hosts are usable; the rest is not", () => {
    for (const url of [
      "https://10.0.2.4/fhir",
      "http://127.0.0.1:8080/fhir",
      "http://[::1]/fhir",
      "https://localhost/FHIR",
    ])
      expect(unusableReason(url, null, true)).toBeNull();
    expect(unusableReason("https://se01ascmshvp/FHIR", null, true)?.kind).toBe("single-label-host");
    expect(unusableReason("https://emr.clinic.lan/fhir", null, true)?.kind).toBe("internal-suffix");
    expect(unusableReason("http://127.0.0.1/fhir", "**DO NOT USE**", true)?.kind).toBe("do-not-use");
  });
});
