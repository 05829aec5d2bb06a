/**
 * Per-vendor rules that read the tenant (practice, organization) id from an endpoint URL.
 * docs/api.md, "Tenant ids": read it from the URL, never from a resource id. A vendor without a rule (Epic,
 * MEDITECH, athenahealth, NextGen, …) has no tenant id in its URLs: null.
 */
type TenantRule = (path: string) => string | null;

const GUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

function capture(pattern: RegExp): TenantRule {
  return (path) => pattern.exec(path)?.[1] ?? null;
}

/** The segment that follows a FHIR version segment: `/r4/<tenant>`, `/dstu2/<tenant>`. */
const afterVersionSegment = capture(/\/(?:dstu2|stu3|r4b|r4|r5)\/([^/?#]+)/i);

const RULES: Record<string, TenantRule> = {
  // https://fhir-myrecord.cerner.com/r4/<tenant GUID or 32-char id>
  "oracle-health": afterVersionSegment,
  // https://fhir4.eclinicalworks.com/fhir/r4/<practice code>
  eclinicalworks: afterVersionSegment,
  // https://fhir.fhirpoint.open.allscripts.com/fhirroute/open/<numeric practice id>
  veradigm: capture(/\/fhirroute\/(?:open|fhir)\/(\d+)(?=\/|$)/i),
  // https://fhir-api.fhirprod.aws.greenwayhealth.com/fhir/R4/<OID>
  greenway: capture(/\/(\d+(?:\.\d+){3,})(?=\/|$)/),
  // https://api.practicefusion.com/fhir/r4/v1/<GUID>
  "practice-fusion": capture(new RegExp(`/(${GUID})(?=/|$)`)),
  // https://fhir.yourcareuniverse.net/tenant/<GUID>
  medhost: capture(new RegExp(`/tenant/(${GUID})(?=/|$)`, "i")),
  // https://drchrono-fhirpresentation.everhealthsoftware.com/fhir/drchrono/<practice>/r4
  drchrono: capture(/\/fhir\/drchrono\/([^/?#]+)/i),
};

/** The tenant id in `url` by the rule of `vendorId`, or null. */
export function tenantIdFromUrl(vendorId: string, url: string): string | null {
  const rule = RULES[vendorId];
  if (!rule) return null;
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").replace(/[?#].*$/, "");
  return rule(path);
}
