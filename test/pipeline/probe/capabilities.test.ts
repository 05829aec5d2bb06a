import { afterAll, describe, expect, test } from "bun:test";
import { probeUrl } from "../../../src/pipeline/probe";
import { fixture, json, realCapability, serve } from "./helpers";

const SMART_CERNER = "authorization_cerner_smart_response.json";
const SMART_SANDBOX = "fhir_sandbox_smart_response.json";

/** name → [metadata file, smart file, read from test/fixtures/real/capabilities?] */
const SITES: Record<string, [string, string, boolean]> = {
  "epic-dstu2": ["epic_capability_dstu2.json", SMART_CERNER, true],
  "epic-stu3": ["epic_capability_stu3.json", SMART_SANDBOX, true],
  "cerner-dstu2": ["cerner_capability_dstu2.json", SMART_CERNER, true],
  "meditech-dstu2": ["meditech_capability_dstu2.json", SMART_SANDBOX, true],
  "allscripts-dstu2": ["allscripts_capability_dstu2.json", SMART_SANDBOX, true],
  "azure-r4": ["supported_profiles_r4.json", SMART_CERNER, true],
  "own-r4": ["r4-capability.json", "smart-patient.json", false],
  "own-r4b": ["r4b-capability.json", "smart-no-audience.json", false],
  "own-r5": ["r5-capability.json", "smart-provider.json", false],
};

const read = (file: string, real: boolean) => (real ? realCapability(file) : fixture(file));

const server = serve({}, (request) => {
  const [, site, ...rest] = new URL(request.url).pathname.split("/");
  const entry = SITES[site ?? ""];
  if (!entry) return new Response("not found", { status: 404 });
  const path = rest.join("/");
  // Real servers answer with a FHIR media type; the SMART file is plain JSON.
  if (path === "metadata")
    return json(read(entry[0], entry[2]), 200, { "content-type": "application/fhir+json;charset=UTF-8" });
  if (path === ".well-known/smart-configuration") return json(read(entry[1], entry[2]));
  return new Response("not found", { status: 404 });
});
afterAll(() => server.stop());

const probe = (site: string) => probeUrl(`${server.url}/${site}`, { allowPrivate: true, timeoutMs: 5000 });

interface Expectation {
  fhirVersion: string;
  softwareName: string | null;
  softwareVersion: string | null;
  resourceCount: number;
  someResources: string[];
  smart: string;
}

const CERNER_CAPS = [
  "launch-ehr",
  "launch-standalone",
  "client-public",
  "client-confidential-symmetric",
  "sso-openid-connect",
  "context-banner",
  "context-style",
  "context-ehr-patient",
  "context-ehr-encounter",
  "permission-patient",
  "permission-user",
  "permission-v2",
  "authorize-post",
];
const SANDBOX_CAPS = [
  "launch-ehr",
  "client-public",
  "client-confidential-symmetric",
  "permission-patient",
  "permission-user",
];

const REAL: Record<string, Expectation> = {
  "epic-dstu2": {
    fhirVersion: "DSTU2",
    softwareName: "May 2019",
    softwareVersion: "8.8.0.1",
    resourceCount: 17,
    someResources: ["AllergyIntolerance", "MedicationOrder", "Patient"],
    smart: SMART_CERNER,
  },
  "epic-stu3": {
    fhirVersion: "STU3",
    softwareName: "February 2019",
    softwareVersion: "8.7.0.1",
    resourceCount: 22,
    someResources: ["Appointment", "Binary", "Patient"],
    smart: SMART_SANDBOX,
  },
  "cerner-dstu2": {
    fhirVersion: "DSTU2",
    softwareName: null,
    softwareVersion: null,
    resourceCount: 27,
    someResources: ["Appointment", "CarePlan", "Patient"],
    smart: SMART_CERNER,
  },
  "meditech-dstu2": {
    fhirVersion: "DSTU2",
    softwareName: null,
    softwareVersion: null,
    resourceCount: 13,
    someResources: ["AllergyIntolerance", "Device", "Patient"],
    smart: SMART_SANDBOX,
  },
  "allscripts-dstu2": {
    fhirVersion: "DSTU2",
    softwareName: "Allscripts FHIR",
    softwareVersion: "19.4.121.0",
    resourceCount: 14,
    someResources: ["CarePlan", "Device", "Patient"],
    smart: SMART_SANDBOX,
  },
  "azure-r4": {
    fhirVersion: "R4",
    softwareName: "Azure API for FHIR",
    softwareVersion: "2.2.45",
    resourceCount: 39,
    someResources: ["Account", "ActivityDefinition", "DeviceUseStatement"],
    smart: SMART_CERNER,
  },
};

describe("real CapabilityStatements and SMART configurations (test/fixtures/real/capabilities)", () => {
  test.each(Object.keys(REAL))("%s → success with the right summary", async (site) => {
    const want = REAL[site]!;
    const result = await probe(site);
    expect(result.probeStatus).toBe("success");
    expect(result.entryStatus).toBe("verified");
    expect(result.errorKind).toBeNull();
    const s = result.summary;
    expect(s.fhirVersion).toBe(want.fhirVersion as never);
    expect(s.softwareName).toBe(want.softwareName);
    expect(s.softwareVersion).toBe(want.softwareVersion);
    expect(s.supportedResourceCount).toBe(want.resourceCount);
    expect(s.supportedResources).toHaveLength(want.resourceCount);
    expect(s.supportedResources).toEqual([...s.supportedResources].sort());
    for (const r of want.someResources) expect(s.supportedResources).toContain(r);
    expect(s.smartSupported).toBe(true);
    expect(s.smartCapabilities).toEqual(want.smart === SMART_CERNER ? CERNER_CAPS : SANDBOX_CAPS);
    // Neither real SMART configuration publishes grant_types_supported.
    expect(s.grantTypes).toEqual([]);
    expect(result.access).toEqual(["patient", "provider"]);
    // The bodies are kept exactly as the server sent them.
    expect(result.metadata.body).toBe(realCapability(SITES[site]![0]));
    expect(result.smart.body).toBe(realCapability(want.smart));
  });

  test("DSTU2 servers answer with resourceType Conformance", async () => {
    const result = await probe("epic-dstu2");
    expect(result.metadata.json?.resourceType).toBe("Conformance");
    expect(result.metadata.ok).toBe(true);
  });
});

describe("our own R4, R4B and R5 fixtures", () => {
  test("R4 → success, patient access, grant types, duplicate resources merged", async () => {
    const result = await probe("own-r4");
    expect(result.probeStatus).toBe("success");
    expect(result.summary).toEqual({
      fhirVersion: "R4",
      softwareName: "Test EHR",
      softwareVersion: "4.0.1e2",
      supportedResourceCount: 4,
      supportedResources: ["AllergyIntolerance", "Condition", "Observation", "Patient"],
      smartSupported: true,
      smartCapabilities: [
        "launch-standalone",
        "context-standalone-patient",
        "client-public",
        "permission-patient",
        "permission-offline",
      ],
      grantTypes: ["authorization_code", "client_credentials"],
    });
    expect(result.access).toEqual(["patient"]);
    // Byte-exact: escapes, spacing and number forms a JSON round trip would change survive.
    const raw = fixture("r4-capability.json");
    expect(result.metadata.body).toBe(raw);
    expect(JSON.stringify(JSON.parse(raw))).not.toBe(raw);
    expect(result.metadata.body).toContain("\\u00e9");
    expect(result.metadata.body).toContain("1.0e2");
  });

  test("R4B → success, no audience from SMART", async () => {
    const result = await probe("own-r4b");
    expect(result.probeStatus).toBe("success");
    expect(result.summary.fhirVersion).toBe("R4B");
    expect(result.summary.supportedResources).toEqual(["Encounter", "MedicationRequest", "Patient"]);
    expect(result.summary.grantTypes).toEqual(["client_credentials"]);
    expect(result.summary.softwareVersion).toBe("1.2");
    expect(result.access).toBeNull();
  });

  test("R5 → success, provider access", async () => {
    const result = await probe("own-r5");
    expect(result.probeStatus).toBe("success");
    expect(result.summary.fhirVersion).toBe("R5");
    expect(result.summary.softwareName).toBe("R5 Server");
    expect(result.summary.softwareVersion).toBeNull();
    expect(result.summary.supportedResources).toEqual(["Patient", "Subscription", "SubscriptionTopic"]);
    expect(result.summary.grantTypes).toEqual(["authorization_code"]);
    expect(result.access).toEqual(["provider"]);
    expect(result.smart.body).toBe(fixture("smart-provider.json"));
  });

  test("requests carry Accept and the User-Agent naming the service, version and a contact URL", async () => {
    server.requests.length = 0;
    await probe("own-r4");
    const metadata = server.requests.find((r) => r.path.endsWith("/metadata"))!;
    const smart = server.requests.find((r) => r.path.endsWith("/smart-configuration"))!;
    expect(metadata.headers.get("accept")).toBe("application/fhir+json");
    expect(smart.headers.get("accept")).toBe("application/json");
    const ua = metadata.headers.get("user-agent")!;
    expect(ua).toMatch(/^EndpointDirectory\/\d+\.\d+\.\d+ \(\+https?:\/\/\S+\)$/);
    expect(ua).toContain(`/${(await import("../../../package.json")).version} `);
  });
});
