/**
 * CapabilityStatements and SMART configurations in the shapes real vendor servers write them: one
 * builder for the load-test generator (tools/generate/) and the bundled sample's recorded answers
 * (tools/sample/), with the resource and SMART capability lists both start from.
 */

type Json = Record<string, unknown>;

/** The types US certified APIs have listed since Argonaut (DSTU2). */
const CORE = [
  "AllergyIntolerance",
  "CarePlan",
  "Condition",
  "Device",
  "DiagnosticReport",
  "DocumentReference",
  "Encounter",
  "Goal",
  "Immunization",
  "Medication",
  "Observation",
  "Patient",
  "Practitioner",
  "Procedure",
] as const;

/** Argonaut Data Query (DSTU2). */
export const ARGONAUT = [...CORE, "Binary", "MedicationOrder", "MedicationStatement"] as const;

/** What STU3 servers of the Argonaut era list. */
export const STU3_CORE = [
  ...CORE,
  "Binary",
  "CareTeam",
  "Location",
  "MedicationRequest",
  "MedicationStatement",
  "Organization",
] as const;

/** US Core 3.1.1's profiled types (R4 servers certified under the Cures Update list at least these). */
export const US_CORE_3_1_1 = [
  ...CORE,
  "CareTeam",
  "Location",
  "MedicationRequest",
  "Organization",
  "PractitionerRole",
  "Provenance",
] as const;

/** `list` without `types`. */
export function without<T extends string>(list: readonly T[], ...types: T[]): T[] {
  return list.filter((type) => !types.includes(type));
}

export type SmartKind = "patient" | "provider" | "both" | "backend";

/** The SMART capabilities a server for patient apps, provider apps, both or backend services publishes. */
export const SMART_CAPABILITIES: Record<SmartKind, string[]> = {
  patient: [
    "launch-standalone",
    "client-public",
    "client-confidential-symmetric",
    "context-standalone-patient",
    "permission-patient",
    "permission-offline",
    "sso-openid-connect",
  ],
  provider: [
    "launch-ehr",
    "client-confidential-symmetric",
    "context-ehr-patient",
    "context-ehr-encounter",
    "permission-user",
    "permission-offline",
    "sso-openid-connect",
  ],
  both: [
    "launch-ehr",
    "launch-standalone",
    "client-public",
    "client-confidential-symmetric",
    "context-ehr-patient",
    "context-ehr-encounter",
    "context-standalone-patient",
    "permission-patient",
    "permission-user",
    "permission-offline",
    "permission-v2",
    "sso-openid-connect",
  ],
  /** Backend services only: a SMART configuration whose capabilities name no audience. */
  backend: ["client-confidential-asymmetric"],
};

/** The search parameters a server declares, by resource type. */
const SEARCH_PARAMS: Record<string, string[]> = {
  Patient: ["_id", "identifier", "family", "given", "birthdate", "gender", "name"],
  Observation: ["patient", "category", "code", "date", "_lastUpdated"],
  Condition: ["patient", "category", "clinical-status", "onset-date"],
  Encounter: ["patient", "date", "_id"],
  MedicationRequest: ["patient", "intent", "status"],
  DocumentReference: ["patient", "category", "type", "date"],
  Procedure: ["patient", "date"],
  Immunization: ["patient", "date"],
  AllergyIntolerance: ["patient", "clinical-status"],
  DiagnosticReport: ["patient", "category", "code", "date"],
};

function searchType(name: string): string {
  if (name === "patient") return "reference";
  if (name.includes("date") || name === "_lastUpdated") return "date";
  if (name === "name" || name === "family" || name === "given") return "string";
  return "token";
}

const BULK_DATA = "http://hl7.org/fhir/uv/bulkdata";

export interface StatementSpec {
  /** The release's version string; before STU3 (`1.0.2`, `0.0.82`) the document is a `Conformance`. */
  fhirVersion: string;
  publisher: string;
  software: { name: string; version: string };
  date: string;
  description: string;
  resources: readonly string[];
  /** Canonicals the server declares conformance with. */
  instantiates?: string[];
  /** Group declares the bulk-data `$export` operation. */
  groupExport?: boolean;
  /** The host of the OAuth endpoints (`https://<host>/oauth2/…`); absent: no oauth-uris extension. */
  oauthHost?: string;
}

/**
 * A CapabilityStatement (a `Conformance` before STU3), elements in FHIR's JSON order: each resource
 * is read and searched (Patient and Observation also versioned), with the search parameters of
 * SEARCH_PARAMS; security names SMART-on-FHIR with the code system of the release.
 */
export function capabilityStatement(spec: StatementSpec): Json {
  const conformance = Number(spec.fhirVersion.split(".")[0]) < 3;
  const resource = [...spec.resources].sort().map((type) => {
    const interaction = [{ code: "read" }, { code: "search-type" }];
    if (type === "Patient" || type === "Observation") interaction.push({ code: "vread" });
    const params = SEARCH_PARAMS[type];
    return {
      type,
      interaction,
      searchParam: params?.map((name) => ({ name, type: searchType(name) })),
      operation:
        spec.groupExport && type === "Group"
          ? [{ name: "export", definition: `${BULK_DATA}/OperationDefinition/group-export` }]
          : undefined,
    };
  });
  const oauthUris = spec.oauthHost && {
    url: "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
    extension: [
      { url: "authorize", valueUri: `https://${spec.oauthHost}/oauth2/authorize` },
      { url: "token", valueUri: `https://${spec.oauthHost}/oauth2/token` },
    ],
  };
  const securityCodes = Number(spec.fhirVersion.split(".")[0]) >= 4 ? "terminology.hl7.org/CodeSystem" : "hl7.org/fhir";
  return {
    resourceType: conformance ? "Conformance" : "CapabilityStatement",
    status: "active",
    date: spec.date,
    publisher: spec.publisher,
    kind: "instance",
    instantiates: spec.instantiates,
    software: spec.software,
    implementation: { description: spec.description },
    fhirVersion: spec.fhirVersion,
    acceptUnknown: conformance ? "no" : undefined,
    format: ["json", "xml"],
    rest: [
      {
        mode: "server",
        security: {
          extension: oauthUris ? [oauthUris] : undefined,
          service: [
            {
              coding: [{ system: `http://${securityCodes}/restful-security-service`, code: "SMART-on-FHIR" }],
              text: "OAuth2 using SMART-on-FHIR profile (see http://docs.smarthealthit.org)",
            },
          ],
        },
        resource,
      },
    ],
  };
}

export interface SmartSpec {
  /** The authorization server; its endpoints are under `<issuer>/oauth2/`. */
  issuer: string;
  capabilities: readonly string[];
  grantTypes: readonly string[];
  scopes: readonly string[];
  /** Publishes `<issuer>/oauth2/register` for OAuth dynamic client registration. */
  registration?: true;
}

/** A SMART configuration (`.well-known/smart-configuration`); a backend-only server takes signed JWTs only. */
export function smartConfiguration(spec: SmartSpec): Json {
  const backendOnly = spec.grantTypes.every((grant) => grant === "client_credentials");
  return {
    issuer: spec.issuer,
    jwks_uri: `${spec.issuer}/oauth2/jwks`,
    authorization_endpoint: `${spec.issuer}/oauth2/authorize`,
    token_endpoint: `${spec.issuer}/oauth2/token`,
    ...(spec.registration ? { registration_endpoint: `${spec.issuer}/oauth2/register` } : {}),
    token_endpoint_auth_methods_supported: backendOnly
      ? ["private_key_jwt"]
      : ["client_secret_basic", "private_key_jwt"],
    // What SMART's asymmetric client authentication names (the server validates at least one).
    token_endpoint_auth_signing_alg_values_supported: ["RS384", "ES384"],
    grant_types_supported: spec.grantTypes,
    scopes_supported: spec.scopes,
    response_types_supported: ["code"],
    capabilities: spec.capabilities,
    code_challenge_methods_supported: ["S256"],
  };
}
