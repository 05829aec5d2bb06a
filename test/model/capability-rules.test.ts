import { expect, test } from "bun:test";
import { CHECKS, capabilityReport } from "../../src/model/capability-rules";

const report = (statement: unknown, smart: unknown) =>
  capabilityReport({
    probed: true,
    statement: statement as Record<string, unknown> | null,
    smart: smart as Record<string, unknown> | null,
    statedVersion: null,
    url: "https://fhir.example.org/r4",
  });

test("nulls, wrong types and junk anywhere in either document are read as absent, never thrown on", () => {
  const junk = [null, 1, "x", [], {}, [null], [1, "x"], { reference: 3 }];
  for (const value of junk) {
    const statement = {
      resourceType: "CapabilityStatement",
      fhirVersion: value,
      kind: value,
      format: value,
      instantiates: value,
      implementationGuide: value,
      rest: [value, { resource: value, operation: value, security: { extension: [value, { url: value }] } }],
    };
    const smart = {
      authorization_endpoint: value,
      capabilities: value,
      grant_types_supported: value,
      code_challenge_methods_supported: value,
      token_endpoint_auth_methods: value,
      scopes_supported: value,
    };
    const { facets, checks, verdict } = report(statement, smart);
    expect(checks.map((c) => c.id)).toEqual(CHECKS.map((c) => c.id));
    expect(facets.smart.pkceS256).toBe(false);
    // Junk never makes a server ready: what is there is offered-but-incomplete or not offered.
    expect(["partial", "no"]).toContain(verdict.patientApps.status);
  }
});

test("unprobed: every check null (cannot apply), every verdict unknown", () => {
  const { checks, verdict } = capabilityReport({
    probed: false,
    statement: null,
    smart: null,
    statedVersion: null,
    url: null,
  });
  expect(new Set(checks.map((c) => c.ok))).toEqual(new Set([null]));
  expect(Object.values(verdict).map((v) => v.status)).toEqual(["unknown", "unknown", "unknown"]);
});

test("PKCE plain fails its check; versions of US Core canonicals sort as numbers", () => {
  const { facets, checks } = report(
    {
      instantiates: ["http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server|10.0.0"],
      rest: [
        {
          resource: [
            {
              type: "Patient",
              supportedProfile: ["http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient|3.1.1"],
            },
          ],
        },
      ],
    },
    { code_challenge_methods_supported: ["plain", "S256"] },
  );
  expect(facets.usCore).toEqual({ declared: true, versions: ["3.1.1", "10.0.0"] });
  expect(facets.smart.pkcePlain).toBe(true);
  expect(checks.find((c) => c.id === "smart-no-pkce-plain")?.ok).toBe(false);
});

test("docs/api.md lists every check, in the order the answer gives them", async () => {
  const docs = await Bun.file(new URL("../../docs/api.md", import.meta.url)).text();
  const section = docs.slice(docs.indexOf("#### Checks"), docs.indexOf("#### Verdict"));
  const listed = [...section.matchAll(/^\| `([a-z0-9.-]+)` \|/gm)].map((m) => m[1]);
  expect(listed).toEqual(CHECKS.map((c) => c.id));
});

test("payer guides: each by its own canonical root; PDex is not Plan Net, a look-alike path is neither", () => {
  const facets = (statement: Record<string, unknown>) =>
    report({ resourceType: "CapabilityStatement", ...statement }, null).facets.payer;
  // A Plan Net directory alone (its canonicals start like PDex's) is no PDex.
  expect(
    facets({
      instantiates: ["http://hl7.org/fhir/us/davinci-pdex-plan-net/CapabilityStatement/plan-net|1.1.0"],
      rest: [{ resource: [{ type: "InsurancePlan" }, { type: "PractitionerRole" }] }],
    }),
  ).toEqual({
    carinBlueButton: { declared: false, versions: [] },
    pdex: { declared: false, versions: [] },
    planNet: { declared: true, versions: ["1.1.0"] },
    explanationOfBenefit: false,
  });
  // Declared through a resource's profile (a DSTU2/STU3-style Reference too); unversioned adds none.
  expect(
    facets({
      rest: [
        {
          resource: [
            {
              type: "ExplanationOfBenefit",
              profile: { reference: "http://hl7.org/fhir/us/carin-bb/StructureDefinition/C4BB-ExplanationOfBenefit" },
            },
            {
              type: "Patient",
              supportedProfile: [
                "https://hl7.org/fhir/us/davinci-pdex/StructureDefinition/hrex-patient-demographics|2.0.0",
              ],
            },
          ],
        },
      ],
    }),
  ).toEqual({
    carinBlueButton: { declared: true, versions: [] },
    pdex: { declared: true, versions: ["2.0.0"] },
    planNet: { declared: false, versions: [] },
    explanationOfBenefit: true,
  });
  // Look-alikes: another guide's root that only begins with these names, a vendor's own URL.
  expect(
    facets({
      implementationGuide: [
        "http://hl7.org/fhir/us/carin-bb-extension/ImplementationGuide/x",
        "http://example.org/fhir/us/davinci-pdex/ImplementationGuide/copy",
        "http://hl7.org/fhir/us/davinci-pdex-formulary/ImplementationGuide/y",
      ],
    }),
  ).toEqual({
    carinBlueButton: { declared: false, versions: [] },
    pdex: { declared: false, versions: [] },
    planNet: { declared: false, versions: [] },
    explanationOfBenefit: false,
  });
});
