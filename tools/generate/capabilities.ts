import {
  ARGONAUT,
  capabilityStatement,
  SMART_CAPABILITIES,
  type SmartKind,
  STU3_CORE,
  smartConfiguration,
  US_CORE_3_1_1,
} from "../fhir/capability-documents";
import { Rng } from "./prng";

export type Version = "DSTU2" | "STU3" | "R4" | "R4B" | "R5";

/** The FHIR R4 resource types (plus the DSTU2 names some older servers still list). */
const R4_RESOURCE_TYPES = [
  "Account",
  "ActivityDefinition",
  "AdverseEvent",
  "AllergyIntolerance",
  "Appointment",
  "AppointmentResponse",
  "AuditEvent",
  "Basic",
  "Binary",
  "BiologicallyDerivedProduct",
  "BodyStructure",
  "Bundle",
  "CapabilityStatement",
  "CarePlan",
  "CareTeam",
  "CatalogEntry",
  "ChargeItem",
  "ChargeItemDefinition",
  "Claim",
  "ClaimResponse",
  "ClinicalImpression",
  "CodeSystem",
  "Communication",
  "CommunicationRequest",
  "CompartmentDefinition",
  "Composition",
  "ConceptMap",
  "Condition",
  "Consent",
  "Contract",
  "Coverage",
  "CoverageEligibilityRequest",
  "CoverageEligibilityResponse",
  "DetectedIssue",
  "Device",
  "DeviceDefinition",
  "DeviceMetric",
  "DeviceRequest",
  "DeviceUseStatement",
  "DiagnosticReport",
  "DocumentManifest",
  "DocumentReference",
  "EffectEvidenceSynthesis",
  "Encounter",
  "Endpoint",
  "EnrollmentRequest",
  "EnrollmentResponse",
  "EpisodeOfCare",
  "EventDefinition",
  "Evidence",
  "EvidenceVariable",
  "ExampleScenario",
  "ExplanationOfBenefit",
  "FamilyMemberHistory",
  "Flag",
  "Goal",
  "GraphDefinition",
  "Group",
  "GuidanceResponse",
  "HealthcareService",
  "ImagingStudy",
  "Immunization",
  "ImmunizationEvaluation",
  "ImmunizationRecommendation",
  "ImplementationGuide",
  "InsurancePlan",
  "Invoice",
  "Library",
  "Linkage",
  "List",
  "Location",
  "Measure",
  "MeasureReport",
  "Media",
  "Medication",
  "MedicationAdministration",
  "MedicationDispense",
  "MedicationKnowledge",
  "MedicationRequest",
  "MedicationStatement",
  "MedicinalProduct",
  "MedicinalProductAuthorization",
  "MedicinalProductContraindication",
  "MedicinalProductIndication",
  "MedicinalProductIngredient",
  "MedicinalProductInteraction",
  "MedicinalProductManufactured",
  "MedicinalProductPackaged",
  "MedicinalProductPharmaceutical",
  "MedicinalProductUndesirableEffect",
  "MessageDefinition",
  "MessageHeader",
  "MolecularSequence",
  "NamingSystem",
  "NutritionOrder",
  "Observation",
  "ObservationDefinition",
  "OperationDefinition",
  "OperationOutcome",
  "Organization",
  "OrganizationAffiliation",
  "Parameters",
  "Patient",
  "PaymentNotice",
  "PaymentReconciliation",
  "Person",
  "PlanDefinition",
  "Practitioner",
  "PractitionerRole",
  "Procedure",
  "Provenance",
  "Questionnaire",
  "QuestionnaireResponse",
  "RelatedPerson",
  "RequestGroup",
  "ResearchDefinition",
  "ResearchElementDefinition",
  "ResearchStudy",
  "ResearchSubject",
  "RiskAssessment",
  "RiskEvidenceSynthesis",
  "Schedule",
  "SearchParameter",
  "ServiceRequest",
  "Slot",
  "Specimen",
  "SpecimenDefinition",
  "StructureDefinition",
  "StructureMap",
  "Subscription",
  "Substance",
  "SubstanceNucleicAcid",
  "SubstancePolymer",
  "SubstanceProtein",
  "SubstanceReferenceInformation",
  "SubstanceSourceMaterial",
  "SubstanceSpecification",
  "SupplyDelivery",
  "SupplyRequest",
  "Task",
  "TerminologyCapabilities",
  "TestReport",
  "TestScript",
  "ValueSet",
  "VerificationResult",
  "VisionPrescription",
] as const;

/** US Core (R4 and later): 3.1.1's types and those later releases profile, with Binary for documents. */
const US_CORE = [
  ...US_CORE_3_1_1,
  "Binary",
  "Coverage",
  "MedicationDispense",
  "QuestionnaireResponse",
  "RelatedPerson",
  "ServiceRequest",
  "Specimen",
];

const FHIR_VERSION_STRINGS: Record<Version, string> = {
  DSTU2: "1.0.2",
  STU3: "3.0.2",
  R4: "4.0.1",
  R4B: "4.3.0",
  R5: "5.0.0",
};

interface ResourceVariant {
  /** Distinct types, sorted: what `probes.supported_resources` holds. */
  resources: string[];
  /** The CapabilityStatement JSON, the same bytes from every server of this variant. */
  body: string;
}

export interface CapabilityProfile {
  key: string;
  version: Version;
  softwareName: string;
  softwareVersion: string;
  variants: ResourceVariant[];
}

export interface ProfileSpec {
  version: Version;
  softwareName: string;
  softwareVersion: string;
  /** How many types beyond the core set a server of this profile lists (min, max). */
  extra: [number, number];
  /** Chance that a variant leaves out one of Patient/Observation/Condition's neighbours or Condition itself. */
  dropCore: number;
}

function coreFor(version: Version): readonly string[] {
  if (version === "DSTU2") return ARGONAUT;
  if (version === "STU3") return STU3_CORE;
  return US_CORE;
}

/**
 * What a variant declares beyond its resources, so that every capability facet occurs
 * (docs/api.md, Facets): R4 and later variant 0 a versioned US Core and Group `$export`, variant
 * 1 an unversioned US Core, variant 2 neither.
 */
function declarations(spec: ProfileSpec, variant: number) {
  if (spec.version === "DSTU2" || spec.version === "STU3" || variant === 2)
    return { instantiates: undefined, groupExport: false };
  const usCore = "http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server";
  return variant === 0
    ? {
        instantiates: [`${usCore}|6.1.0`, "http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data"],
        groupExport: true,
      }
    : { instantiates: [usCore], groupExport: false };
}

/**
 * Three resource-list variants per (vendor, version): servers of one product release differ by
 * configuration, and every server of a variant answers the same bytes (no server address in
 * the statement), as real vendor releases do for thousands of tenants.
 */
export function buildProfile(
  seed: number,
  vendorId: string,
  publisher: string,
  oauthHost: string,
  spec: ProfileSpec,
): CapabilityProfile {
  const rng = new Rng(`${seed}:profile:${vendorId}:${spec.version}`);
  const core = coreFor(spec.version);
  const others = R4_RESOURCE_TYPES.filter((type) => !core.includes(type));
  const variants: ResourceVariant[] = [];
  for (let v = 0; v < 3; v++) {
    const set = new Set(core);
    if (rng.chance(spec.dropCore)) set.delete(rng.pick(["Condition", "Observation", "CarePlan", "Goal", "Device"]));
    if (rng.chance(spec.dropCore / 2)) set.delete("Condition");
    const extra = spec.extra[0] + rng.int(spec.extra[1] - spec.extra[0] + 1);
    for (const type of rng.sample(others, extra)) set.add(type);
    if (declarations(spec, v).groupExport) set.add("Group");
    const resources = [...set].sort();
    const statement = capabilityStatement({
      fhirVersion: FHIR_VERSION_STRINGS[spec.version],
      publisher,
      software: { name: spec.softwareName, version: spec.softwareVersion },
      date: "2025-09-15T00:00:00Z",
      description: `${publisher} FHIR API`,
      resources,
      ...declarations(spec, v),
      oauthHost,
    });
    variants.push({ resources, body: JSON.stringify(statement) });
  }
  return {
    key: `${vendorId}:${spec.version}`,
    version: spec.version,
    softwareName: spec.softwareName,
    softwareVersion: spec.softwareVersion,
    variants,
  };
}

export const SMART_GRANT_TYPES: Record<SmartKind, string[]> = {
  patient: ["authorization_code", "refresh_token"],
  provider: ["authorization_code", "refresh_token"],
  both: ["authorization_code", "refresh_token", "client_credentials"],
  backend: ["client_credentials"],
};

/** The audiences docs/api.md ("Access") derives from SMART capabilities (patient before provider), or null when none. */
export function smartAccess(kind: SmartKind): string | null {
  if (kind === "backend") return null;
  return kind === "both" ? '["patient","provider"]' : `["${kind}"]`;
}

/** A SMART configuration: one per vendor and kind, its endpoints on the vendor's authorization host. */
export function smartBody(kind: SmartKind, oauthHost: string): string {
  return JSON.stringify(
    smartConfiguration({
      issuer: `https://${oauthHost}`,
      capabilities: SMART_CAPABILITIES[kind],
      grantTypes: SMART_GRANT_TYPES[kind],
      ...(kind === "both" ? { registration: true as const } : {}),
      scopes: [
        "openid",
        "fhirUser",
        "launch",
        "launch/patient",
        "offline_access",
        "patient/*.read",
        "user/*.read",
        "system/*.read",
      ],
    }),
  );
}
