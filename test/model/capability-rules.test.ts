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

/** A SMART configuration whole for every kind (Aidbox-like), to change one thing at a time. */
const WHOLE = {
  authorization_endpoint: "https://auth.example/authorize",
  token_endpoint: "https://auth.example/token",
  capabilities: [
    "launch-ehr",
    "launch-standalone",
    "client-public",
    "client-confidential-asymmetric",
    "context-ehr-patient",
    "context-ehr-encounter",
    "context-standalone-patient",
    "permission-patient",
    "permission-user",
  ],
  grant_types_supported: ["authorization_code", "client_credentials"],
  code_challenge_methods_supported: ["S256"],
  scopes_supported: ["system/*.rs"],
  token_endpoint_auth_methods_supported: ["private_key_jwt"],
  token_endpoint_auth_signing_alg_values_supported: ["ES384"],
};
const STATEMENT = { resourceType: "CapabilityStatement", fhirVersion: "4.0.1", kind: "instance" };

test("ready by one set of two: the note names the apps it serves and what the other set's lack", () => {
  const without = (...codes: string[]) => ({
    ...WHOLE,
    capabilities: WHOLE.capabilities.filter((c) => !codes.includes(c)),
  });
  const standaloneOnly = report(STATEMENT, without("launch-ehr")).verdict;
  expect(standaloneOnly.patientApps).toEqual({
    status: "ready",
    sets: ["patient-standalone"],
    reasons: [],
    notes: [
      "ready for standalone patient apps (Patient Access for Standalone Apps); apps launched from the patient portal: missing launch-ehr",
    ],
  });
  expect(standaloneOnly.providerApps.notes).toEqual([
    "ready for standalone clinician apps (Clinician Access for Standalone); apps launched from the EHR: missing launch-ehr",
  ]);
  const ehrOnly = report(STATEMENT, without("launch-standalone")).verdict.providerApps;
  expect([ehrOnly.status, ehrOnly.sets, ehrOnly.notes]).toEqual([
    "ready",
    ["clinician-ehr-launch"],
    [
      "ready for apps launched from the EHR (Clinician Access for EHR Launch); standalone clinician apps: missing launch-standalone",
    ],
  ]);
  // Both sets whole: no note. Partial (no PKCE) with a set whole: the set named, no note.
  expect(report(STATEMENT, WHOLE).verdict.patientApps.notes).toEqual([]);
  const noPkce = report(STATEMENT, { ...without("launch-ehr"), code_challenge_methods_supported: [] }).verdict;
  expect([noPkce.patientApps.status, noPkce.patientApps.sets, noPkce.patientApps.notes]).toEqual([
    "partial",
    ["patient-standalone"],
    [],
  ]);
});

test("backend services: every property of the asymmetric discovery sentence is one rule, missing or lacking alike", () => {
  const backend = (smart: Record<string, unknown>) => report(STATEMENT, smart).verdict.backendServices;
  expect(backend(WHOLE)).toEqual({ status: "ready", sets: ["backend-services"], reasons: [], notes: [] });
  const { scopes_supported: _s, ...noScopes } = WHOLE;
  const { token_endpoint_auth_methods_supported: _m, ...noMethods } = WHOLE;
  const { token_endpoint_auth_signing_alg_values_supported: _a, ...noAlgs } = WHOLE;
  const cases: [Record<string, unknown>, string][] = [
    [noScopes, "scopes_supported not advertised"],
    [noMethods, "token_endpoint_auth_methods_supported not advertised"],
    [noAlgs, "token_endpoint_auth_signing_alg_values_supported not advertised"],
    [
      { ...WHOLE, capabilities: WHOLE.capabilities.filter((c) => c !== "client-confidential-asymmetric") },
      "client-confidential-asymmetric not declared (how a server advertises JWT client authentication), though token_endpoint_auth_methods_supported lists private_key_jwt",
    ],
    [
      { ...WHOLE, token_endpoint_auth_methods_supported: ["client_secret_basic"] },
      "token_endpoint_auth_methods_supported lists client_secret_basic but not private_key_jwt",
    ],
    [
      { ...WHOLE, token_endpoint_auth_signing_alg_values_supported: ["RS256", "HS256"] },
      "token_endpoint_auth_signing_alg_values_supported lists RS256, HS256, neither RS384 nor ES384",
    ],
  ];
  for (const [smart, words] of cases) {
    const verdict = backend(smart);
    expect([words, verdict.status, verdict.sets, verdict.reasons.length]).toEqual([words, "partial", [], 1]);
    expect(verdict.reasons[0]).toStartWith(words);
  }
  // The same facts the supports= facet and the asymmetric check read.
  expect(report(STATEMENT, noScopes).facets.smart.backendServices).toBe(false);
  expect(report(STATEMENT, WHOLE).facets.smart.backendServices).toBe(true);
  expect(report(STATEMENT, noScopes).checks.find((c) => c.id === "smart-asymmetric-profile")).toEqual({
    id: "smart-asymmetric-profile",
    ok: false,
    detail: "scopes_supported not advertised",
  });
});

test("SMART named without discovery, by code or by text; other services are not offered", () => {
  const naming = (service: Record<string, unknown>) =>
    report({ ...STATEMENT, rest: [{ mode: "server", security: { service: [service] } }] }, null).verdict;
  for (const service of [{ coding: [{ code: "SMART-on-FHIR" }] }, { text: "SMART on FHIR" }]) {
    const verdict = naming(service);
    expect([verdict.patientApps.status, verdict.providerApps.status, verdict.backendServices.status]).toEqual([
      "partial",
      "partial",
      "no",
    ]);
    expect(verdict.patientApps.reasons[0]).toStartWith("SMART, not discoverable");
  }
  // "OAuth" (or a name merely containing SMART) is not SMART named.
  for (const service of [{ coding: [{ code: "OAuth" }] }, { text: "SMART-on-FHIR-like portal" }])
    expect(naming(service).patientApps.status).toBe("no");
});

test("any extension URL ending in oauth-uris holds the OAuth URIs; a URL merely containing it does not", () => {
  const withExtension = (url: string) =>
    report(
      {
        ...STATEMENT,
        rest: [
          {
            security: {
              extension: [
                {
                  url,
                  extension: [
                    { url: "authorize", valueUri: "https://auth.example/authorize" },
                    { url: "token", valueUri: "https://auth.example/token" },
                  ],
                },
              ],
            },
          },
        ],
      },
      null,
    ).facets;
  for (const url of [
    "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
    "http://vendor.example/fhir/StructureDefinition/soarian-oauth-uris",
  ])
    expect([url, withExtension(url).access.declared, withExtension(url).smart.tokenUrl]).toEqual([
      url,
      "oauth-uris",
      "https://auth.example/token",
    ]);
  expect(withExtension("http://vendor.example/StructureDefinition/oauth-uris-v2").access.declared).toBe("none");
});

test("unknown after a failed probe names its cause; without one, what is known", () => {
  const failed = (failure: { error: string | null; httpStatus: number | null } | null) =>
    capabilityReport({
      probed: true,
      statement: null,
      smart: null,
      statedVersion: null,
      url: "https://x.example",
      failure,
    }).verdict.patientApps.reasons;
  expect(failed({ error: "http_status", httpStatus: 503 })).toEqual([
    "the last probe failed: /metadata answered HTTP 503 (http_status), and no SMART configuration was read",
  ]);
  expect(failed({ error: "certificate_untrusted", httpStatus: null })[0]).toContain("untrusted");
  expect(failed(null)).toEqual(["the last probe returned neither a CapabilityStatement nor a SMART configuration"]);
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
