/**
 * The server answers the sample probe replays: CapabilityStatements (DSTU2 servers answer with a
 * `Conformance`) and SMART configurations, written by us in the shapes real servers return.
 */

type Json = Record<string, unknown>;

const US_CORE_R4 = [
  "AllergyIntolerance",
  "CarePlan",
  "CareTeam",
  "Condition",
  "Device",
  "DiagnosticReport",
  "DocumentReference",
  "Encounter",
  "Goal",
  "Immunization",
  "Location",
  "Medication",
  "MedicationRequest",
  "Observation",
  "Organization",
  "Patient",
  "Practitioner",
  "PractitionerRole",
  "Procedure",
  "Provenance",
] as const;

const SEARCH_PARAMS: Record<string, [string, string][]> = {
  Patient: [
    ["_id", "token"],
    ["identifier", "token"],
    ["name", "string"],
    ["birthdate", "date"],
    ["gender", "token"],
  ],
  Observation: [
    ["patient", "reference"],
    ["category", "token"],
    ["code", "token"],
    ["date", "date"],
  ],
  Condition: [
    ["patient", "reference"],
    ["category", "token"],
    ["clinical-status", "token"],
  ],
  Encounter: [
    ["patient", "reference"],
    ["date", "date"],
  ],
};

interface StatementSpec {
  resourceType: "CapabilityStatement" | "Conformance";
  fhirVersion: string;
  publisher: string;
  software: [string, string];
  date: string;
  resources: readonly string[];
  /** Where the OAuth endpoints live; omitted for servers without SMART. */
  oauth?: { authorize: string; token: string };
  description: string;
}

function securityServiceSystem(fhirVersion: string): string {
  return fhirVersion.startsWith("4") || fhirVersion.startsWith("5")
    ? "http://terminology.hl7.org/CodeSystem/restful-security-service"
    : "http://hl7.org/fhir/restful-security-service";
}

function statement(spec: StatementSpec): Json {
  const dstu = spec.resourceType === "Conformance";
  const interactions = dstu ? ["read", "search-type"] : ["read", "search-type"];
  const resource = [...spec.resources].sort().map((type) => {
    const entry: Json = { type, interaction: interactions.map((code) => ({ code })) };
    const params = SEARCH_PARAMS[type];
    if (params) entry.searchParam = params.map(([name, kind]) => ({ name, type: kind }));
    return entry;
  });
  const security: Json = {
    service: [
      {
        coding: [{ system: securityServiceSystem(spec.fhirVersion), code: "SMART-on-FHIR" }],
        text: "OAuth2 using SMART-on-FHIR profile (see http://docs.smarthealthit.org)",
      },
    ],
  };
  if (spec.oauth) {
    security.extension = [
      {
        url: "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
        extension: [
          { url: "authorize", valueUri: spec.oauth.authorize },
          { url: "token", valueUri: spec.oauth.token },
        ],
      },
    ];
  }
  const out: Json = {
    resourceType: spec.resourceType,
    status: "active",
    date: spec.date,
    publisher: spec.publisher,
    kind: "instance",
    software: { name: spec.software[0], version: spec.software[1] },
    implementation: { description: spec.description },
    fhirVersion: spec.fhirVersion,
  };
  if (dstu) out.acceptUnknown = "no";
  out.format = ["json", "xml"];
  out.rest = [{ mode: "server", security, resource }];
  return out;
}

function smart(spec: { issuer: string; capabilities: string[]; grantTypes: string[]; scopes: string[] }): Json {
  return {
    issuer: spec.issuer,
    authorization_endpoint: `${spec.issuer}/oauth2/authorize`,
    token_endpoint: `${spec.issuer}/oauth2/token`,
    token_endpoint_auth_methods_supported: ["client_secret_basic", "private_key_jwt"],
    grant_types_supported: spec.grantTypes,
    scopes_supported: spec.scopes,
    response_types_supported: ["code"],
    capabilities: spec.capabilities,
    code_challenge_methods_supported: ["S256"],
  };
}

const PATIENT_CAPS = [
  "launch-standalone",
  "client-public",
  "client-confidential-symmetric",
  "context-standalone-patient",
  "permission-patient",
  "permission-offline",
  "sso-openid-connect",
];
const PROVIDER_CAPS = [
  "launch-ehr",
  "client-confidential-symmetric",
  "context-ehr-patient",
  "context-ehr-encounter",
  "permission-user",
  "sso-openid-connect",
];
const BOTH_CAPS = [
  "launch-ehr",
  "launch-standalone",
  "client-public",
  "client-confidential-symmetric",
  "client-confidential-asymmetric",
  "context-ehr-patient",
  "context-ehr-encounter",
  "context-standalone-patient",
  "permission-patient",
  "permission-user",
  "permission-offline",
  "permission-v2",
  "sso-openid-connect",
];
const PATIENT_SCOPES = ["openid", "fhirUser", "launch/patient", "offline_access", "patient/*.read"];
const USER_SCOPES = ["openid", "fhirUser", "launch", "online_access", "user/*.read"];

/** Every answer file, by its path under db/sample/answers/. Values are serialized by the generator. */
export function answerDocuments(): Record<string, Json> {
  const oauth = (host: string) => ({
    authorize: `https://${host}/oauth2/authorize`,
    token: `https://${host}/oauth2/token`,
  });
  return {
    "metadata/dstu1-legacy.json": statement({
      resourceType: "Conformance",
      fhirVersion: "0.0.82",
      publisher: "MEDITECH",
      software: ["MEDITECH MAGIC FHIR Pilot", "0.8"],
      date: "2015-03-02",
      resources: ["Patient", "Observation", "Condition", "MedicationPrescription"],
      description: "Pilot server from before DSTU2 (its version maps to UNKNOWN)",
    }),
    "metadata/dstu2-epic.json": statement({
      resourceType: "Conformance",
      fhirVersion: "1.0.2",
      publisher: "Epic Systems Corporation",
      software: ["Epic", "August 2021"],
      date: "2021-10-04T10:20:30Z",
      oauth: oauth("fhir.epic.example"),
      description: "Epic DSTU2 FHIR API",
      resources: [
        "AllergyIntolerance",
        "Binary",
        "CarePlan",
        "Condition",
        "Device",
        "DiagnosticReport",
        "DocumentReference",
        "Encounter",
        "FamilyMemberHistory",
        "Goal",
        "Immunization",
        "MedicationOrder",
        "MedicationStatement",
        "Observation",
        "Patient",
        "Practitioner",
        "Procedure",
      ],
    }),
    "metadata/dstu2-oracle.json": statement({
      resourceType: "Conformance",
      fhirVersion: "1.0.2",
      publisher: "Cerner",
      software: ["Millennium", "2021.09"],
      date: "2021-09-15T00:00:00Z",
      oauth: oauth("authorization.cerner.com"),
      description: "Cerner Millennium DSTU2",
      resources: [
        "AllergyIntolerance",
        "Appointment",
        "Binary",
        "CarePlan",
        "Condition",
        "Contract",
        "Device",
        "DiagnosticReport",
        "DocumentReference",
        "Encounter",
        "Goal",
        "Immunization",
        "Medication",
        "MedicationAdministration",
        "MedicationOrder",
        "MedicationStatement",
        "Observation",
        "Patient",
        "Person",
        "Practitioner",
        "Procedure",
        "ProcedureRequest",
        "RelatedPerson",
        "Schedule",
        "Slot",
      ],
    }),
    "metadata/dstu2-veradigm.json": statement({
      resourceType: "Conformance",
      fhirVersion: "1.0.2",
      publisher: "Veradigm",
      software: ["Unity FHIR", "20.1"],
      date: "2020-06-01",
      oauth: oauth("fhir.fhirpoint.open.allscripts.com"),
      description: "Veradigm (Allscripts) DSTU2",
      resources: [
        "AllergyIntolerance",
        "CarePlan",
        "Condition",
        "DiagnosticReport",
        "DocumentReference",
        "Encounter",
        "Immunization",
        "MedicationOrder",
        "MedicationStatement",
        "Observation",
        "Patient",
        "Procedure",
      ],
    }),
    "metadata/dstu2-meditech.json": statement({
      resourceType: "Conformance",
      fhirVersion: "1.0.2",
      publisher: "MEDITECH",
      software: ["MEDITECH Expanse", "2.1"],
      date: "2019-11-20",
      oauth: oauth("meditech.cloud"),
      description: "MEDITECH DSTU2 Argonaut",
      resources: [
        "AllergyIntolerance",
        "CarePlan",
        "Condition",
        "Device",
        "DiagnosticReport",
        "DocumentReference",
        "Goal",
        "Immunization",
        "MedicationStatement",
        "Observation",
        "Patient",
        "Procedure",
      ],
    }),
    "metadata/stu3-greenway.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "3.0.2",
      publisher: "Greenway Health",
      software: ["Intergy FHIR", "3.4"],
      date: "2020-02-10",
      oauth: oauth("fhir.greenwayhealth.com"),
      description: "Greenway Intergy STU3",
      resources: [
        "AllergyIntolerance",
        "Appointment",
        "Binary",
        "CarePlan",
        "CareTeam",
        "Condition",
        "Device",
        "DiagnosticReport",
        "DocumentReference",
        "Encounter",
        "Goal",
        "Immunization",
        "Location",
        "Medication",
        "MedicationRequest",
        "MedicationStatement",
        "Observation",
        "Organization",
        "Patient",
        "Practitioner",
        "Procedure",
        "ProcedureRequest",
      ],
    }),
    "metadata/r4-oracle.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "Oracle Health",
      software: ["Millennium", "2025.01"],
      date: "2025-01-15T00:00:00Z",
      oauth: oauth("authorization.cerner.com"),
      description: "Oracle Health Millennium Platform R4",
      resources: [
        ...US_CORE_R4,
        "Account",
        "Appointment",
        "Binary",
        "ChargeItem",
        "Communication",
        "Consent",
        "Coverage",
        "FamilyMemberHistory",
        "InsurancePlan",
        "MedicationAdministration",
        "MedicationDispense",
        "NutritionOrder",
        "Person",
        "Questionnaire",
        "QuestionnaireResponse",
        "RelatedPerson",
        "Schedule",
        "ServiceRequest",
        "Slot",
        "Specimen",
      ],
    }),
    "metadata/r4-epic.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "Epic Systems Corporation",
      software: ["Epic", "November 2025"],
      date: "2025-11-03T00:00:00Z",
      oauth: oauth("fhir.epic.example"),
      description: "Epic R4 FHIR API",
      resources: [
        ...US_CORE_R4,
        "Appointment",
        "Binary",
        "BodyStructure",
        "Communication",
        "Consent",
        "Coverage",
        "DeviceRequest",
        "ExplanationOfBenefit",
        "FamilyMemberHistory",
        "Flag",
        "Group",
        "List",
        "MedicationAdministration",
        "MedicationDispense",
        "NutritionOrder",
        "Questionnaire",
        "QuestionnaireResponse",
        "RelatedPerson",
        "RequestGroup",
        "ResearchStudy",
        "ServiceRequest",
        "Specimen",
        "Substance",
        "Task",
      ],
    }),
    "metadata/r4-eclinicalworks.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "eClinicalWorks",
      software: ["eClinicalWorks FHIR", "12.0"],
      date: "2024-05-20",
      oauth: oauth("oauthserver.eclinicalworks.com"),
      description: "eClinicalWorks US Core 3.1.1",
      resources: [...US_CORE_R4],
    }),
    "metadata/r4-athenahealth.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "athenahealth",
      software: ["athenaOne FHIR", "25.3"],
      date: "2025-03-10",
      oauth: oauth("api.platform.athenahealth.com"),
      description: "athenahealth R4 (one base URL for every practice)",
      resources: [...US_CORE_R4, "Binary", "Coverage", "QuestionnaireResponse", "ServiceRequest", "Specimen"],
    }),
    "metadata/r4-nextgen.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "NextGen Healthcare",
      software: ["NextGen Enterprise FHIR", "6.2"],
      date: "2024-09-01",
      description: "NextGen Enterprise R4",
      resources: [
        "AllergyIntolerance",
        "CarePlan",
        "CareTeam",
        "Condition",
        "Device",
        "DiagnosticReport",
        "DocumentReference",
        "Encounter",
        "Goal",
        "Immunization",
        "Location",
        "MedicationRequest",
        "Observation",
        "Organization",
        "Patient",
        "Practitioner",
        "Procedure",
        "Provenance",
      ],
    }),
    "metadata/r4-veradigm.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "Veradigm",
      software: ["Veradigm FHIR", "23.2"],
      date: "2023-08-01",
      oauth: oauth("fhir.fhirpoint.open.allscripts.com"),
      description: "Veradigm R4",
      resources: [...US_CORE_R4, "Binary", "Coverage"],
    }),
    "metadata/r4-meditech.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "MEDITECH",
      software: ["MEDITECH Expanse", "2.2"],
      date: "2024-01-10",
      oauth: oauth("meditech.cloud"),
      description: "MEDITECH Expanse US Core",
      resources: US_CORE_R4.filter((type) => type !== "PractitionerRole" && type !== "Location"),
    }),
    "metadata/r4-practice-fusion.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.0.1",
      publisher: "Practice Fusion",
      software: ["Practice Fusion FHIR", "4.1"],
      date: "2023-03-14",
      oauth: oauth("api.practicefusion.com"),
      description: "Practice Fusion R4",
      resources: US_CORE_R4.filter((type) => type !== "Location"),
    }),
    "metadata/r4b-greenway.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "4.3.0",
      publisher: "Greenway Health",
      software: ["Greenway FHIR Gateway", "5.0"],
      date: "2025-06-30",
      oauth: oauth("fhir.greenwayhealth.com"),
      description: "Greenway R4B",
      resources: [
        ...US_CORE_R4,
        "Appointment",
        "Coverage",
        "Questionnaire",
        "QuestionnaireResponse",
        "ServiceRequest",
        "SubscriptionTopic",
        "Subscription",
      ],
    }),
    "metadata/r5-practice-fusion.json": statement({
      resourceType: "CapabilityStatement",
      fhirVersion: "5.0.0",
      publisher: "Practice Fusion",
      software: ["Practice Fusion FHIR", "5.0-preview"],
      date: "2025-10-01",
      oauth: oauth("api.practicefusion.com"),
      description: "Practice Fusion R5 preview",
      resources: [
        ...US_CORE_R4,
        "Appointment",
        "DeviceUsage",
        "Subscription",
        "SubscriptionTopic",
        "Transport",
        "InventoryItem",
        "Requirements",
      ],
    }),
    "smart/patient-oracle.json": smart({
      issuer: "https://authorization.cerner.com",
      capabilities: PATIENT_CAPS,
      grantTypes: ["authorization_code"],
      scopes: PATIENT_SCOPES,
    }),
    "smart/provider-oracle.json": smart({
      issuer: "https://authorization.cerner.com",
      capabilities: PROVIDER_CAPS,
      grantTypes: ["authorization_code", "client_credentials"],
      scopes: USER_SCOPES,
    }),
    "smart/both-epic.json": smart({
      issuer: "https://fhir.epic.example/interconnect-fhir-oauth",
      capabilities: BOTH_CAPS,
      grantTypes: ["authorization_code", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
      scopes: [...PATIENT_SCOPES, "launch", "user/*.read"],
    }),
    "smart/both-eclinicalworks.json": smart({
      issuer: "https://oauthserver.eclinicalworks.com",
      capabilities: BOTH_CAPS.slice(0, 11),
      grantTypes: ["authorization_code", "refresh_token"],
      scopes: [...PATIENT_SCOPES, "launch", "user/*.read"],
    }),
    "smart/both-athenahealth.json": smart({
      issuer: "https://api.platform.athenahealth.com",
      capabilities: BOTH_CAPS,
      grantTypes: ["authorization_code", "client_credentials", "refresh_token"],
      scopes: [...PATIENT_SCOPES, "launch", "user/*.read", "system/*.read"],
    }),
    "smart/provider-veradigm.json": smart({
      issuer: "https://fhir.fhirpoint.open.allscripts.com",
      capabilities: PROVIDER_CAPS,
      grantTypes: ["authorization_code"],
      scopes: USER_SCOPES,
    }),
    "smart/patient-greenway.json": smart({
      issuer: "https://fhir.greenwayhealth.com",
      capabilities: PATIENT_CAPS.slice(0, 5),
      grantTypes: ["authorization_code", "refresh_token"],
      scopes: PATIENT_SCOPES,
    }),
    "smart/both-practice-fusion.json": smart({
      issuer: "https://api.practicefusion.com",
      capabilities: BOTH_CAPS.slice(0, 10),
      grantTypes: ["authorization_code"],
      scopes: [...PATIENT_SCOPES, "launch"],
    }),
    "smart/patient-meditech.json": smart({
      issuer: "https://meditech.cloud",
      capabilities: PATIENT_CAPS,
      grantTypes: ["authorization_code"],
      scopes: PATIENT_SCOPES,
    }),
    "smart/backend-only.json": smart({
      issuer: "https://fhir.nextgen.com/nge/prod/auth",
      capabilities: [],
      grantTypes: ["client_credentials"],
      scopes: ["system/*.read"],
    }),
    "errors/unauthorized.json": {
      resourceType: "OperationOutcome",
      issue: [{ severity: "error", code: "login", diagnostics: "Authentication is required to access this resource." }],
    },
    "errors/not-found.json": {
      resourceType: "OperationOutcome",
      issue: [{ severity: "error", code: "not-found", diagnostics: "The requested resource was not found." }],
    },
  };
}
