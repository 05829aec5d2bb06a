import { parseBoundedObject } from "./bounded-json";
import { releaseOfVersion } from "./fhir-version";
import { ERROR_KIND_WORDS, type ErrorKind } from "./probe";
import type { FhirVersion } from "./types";

/**
 * What a server offers, read from the two documents a probe keeps (its CapabilityStatement or
 * DSTU2 Conformance, and its SMART configuration): facets, conformance checks and the verdict
 * per kind of app. Pure: the same documents always give the same answer, so every stored result
 * can be derived again from the stored bodies when these rules change (`npm run derive`).
 * Every field of a document is optional; `null`, a wrong type or an unknown key counts as absent.
 */

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null;
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;
const strings = (value: unknown): string[] => [
  ...new Set(asArray(value).flatMap((v) => (typeof v === "string" && v.trim() !== "" ? [v.trim()] : []))),
];
/** A canonical as R4 writes it (a string) or as DSTU2/STU3 do (a Reference `{reference}`). */
const canonical = (value: unknown): string | null => asString(value) ?? asString(asObject(value)?.reference);

interface UsCoreFacet {
  declared: boolean;
  versions: string[];
}
interface BulkDataFacet {
  system: boolean;
  group: boolean;
  patient: boolean;
}
interface SmartFacet {
  v1: boolean;
  v2: boolean;
  pkceS256: boolean;
  pkcePlain: boolean;
  launchEhr: boolean;
  launchStandalone: boolean;
  backendServices: boolean;
  authorizeUrl: string | null;
  tokenUrl: string | null;
  scopes: string[];
  permissionOffline: boolean;
  clientTypes: ClientType[];
  openIdConnect: boolean;
  issuer: string | null;
  jwksUri: string | null;
  registrationUrl: string | null;
  signingAlgorithms: string[];
}
/** How a server declares the authorization it wants (docs/api.md, Facets). */
export const ACCESS_DECLARATIONS = ["smart-configuration", "oauth-uris", "security-service", "none"] as const;
type AccessDeclaration = (typeof ACCESS_DECLARATIONS)[number];
interface AccessFacet {
  declared: AccessDeclaration;
  services: string[];
}
/** SMART's client types (Conformance, Client Types), in the order the facet lists them. */
export const CLIENT_TYPES = [
  "client-public",
  "client-confidential-symmetric",
  "client-confidential-asymmetric",
] as const;
type ClientType = (typeof CLIENT_TYPES)[number];
/**
 * What the documents say. The answer's `summary.tls` is not among them: it is the URL's host's
 * own, measured by the probe's handshake (src/directory/tls-checks.ts).
 */
export interface CapabilityFacets {
  usCore: UsCoreFacet;
  bulkData: BulkDataFacet;
  smart: SmartFacet;
  access: AccessFacet;
  payer: PayerFacet;
}

/** An implementation guide the statement declares conformance with, and the versions it names. */
interface GuideFacet {
  declared: boolean;
  versions: string[];
}
/**
 * What a health plan's Patient Access API declares (CMS Interoperability and Patient Access
 * rule): the payer implementation guides, and whether claims are served as ExplanationOfBenefit.
 */
interface PayerFacet {
  /** CARIN Consumer Directed Payer Data Exchange (CARIN Blue Button). */
  carinBlueButton: GuideFacet;
  /** Da Vinci Payer Data Exchange (PDex). */
  pdex: GuideFacet;
  /** Da Vinci PDex Plan Net: the plan's provider directory. */
  planNet: GuideFacet;
  explanationOfBenefit: boolean;
}

interface Check {
  id: CheckId;
  /** true: holds; false: does not; null: cannot apply (not probed, or nothing to check it on). */
  ok: boolean | null;
  detail: string;
}

/**
 * The verdict's statuses, the one list the docs, the OpenAPI document, the statistics and the
 * page derive from (VERDICT_STATUS_MEANINGS says what each means).
 */
export const VERDICT_STATUSES = ["ready", "partial", "no", "undeclared", "unknown"] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];
/** What each status means, for the docs, the OpenAPI document and the page. */
export const VERDICT_STATUS_MEANINGS: Record<VerdictStatus, string> = {
  ready:
    "a whole set of this kind of app (`sets` names it; a note says when it is one of two) is declared in a SMART configuration, with what it needs (PKCE S256, or the asymmetric profile's discovery), on a verified server whose base URL and endpoints are https",
  partial:
    "offered but incomplete: the server declares this kind of access (or names SMART-on-FHIR without discovery), and `reasons` names each thing missing",
  no: "not offered: the server declares authorization, but nothing of this kind of app (or an empty capabilities list)",
  undeclared:
    "nothing declared: no SMART configuration, no OAuth URIs and no security service in the CapabilityStatement (open, or access by means not published)",
  unknown: "not probed yet, or the last probe returned neither document (`reasons` gives its cause)",
};
interface AppVerdict {
  status: VerdictStatus;
  /** The sets whose every member the documents declare (CAPABILITY_SETS); the status says whether the rest holds. */
  sets: CapabilitySetId[];
  reasons: string[];
  /** For `ready`: what it is ready for when one set of two holds, and what the other set's apps lack. */
  notes: string[];
}
export const APP_KINDS = ["patientApps", "providerApps", "backendServices"] as const;
export type AppKind = (typeof APP_KINDS)[number];
export type Verdict = Record<AppKind, AppVerdict>;

/** The `supports=` filter values, each a facet that holds. */
export const SUPPORTS = [
  "us-core",
  "bulk-export",
  "smart-v2",
  "pkce",
  "backend-services",
  "launch-ehr",
  "launch-standalone",
  "permission-offline",
  "sso-openid-connect",
  "dynamic-registration",
  ...CLIENT_TYPES,
  "carin-bb",
  "davinci-pdex",
  "plan-net",
  "explanation-of-benefit",
] as const;
export type Supports = (typeof SUPPORTS)[number];
/** The `ready=` filter values, each the app kind whose verdict is `ready`. */
export const READY = ["patient-apps", "provider-apps", "backend-services"] as const;
export type Ready = (typeof READY)[number];
export const READY_KIND: Record<Ready, AppKind> = {
  "patient-apps": "patientApps",
  "provider-apps": "providerApps",
  "backend-services": "backendServices",
};

/** What the rules read: the parsed documents (null when that probe returned none), and what else is known. */
export interface CapabilityInput {
  /** False while the URL has never been probed. */
  probed: boolean;
  statement: Json | null;
  smart: Json | null;
  /** The release the entry's list or URL states for this server, when one does. */
  statedVersion: FhirVersion | null;
  /** The entry's base URL (null while unprobed): SMART and Backend Services require TLS. */
  url: string | null;
  /** What the stored probe record says of /metadata when it kept neither document (the `unknown` reason). */
  failure?: ProbeFailure | null;
}
/** Why a probe's /metadata gave no CapabilityStatement: its stored error kind and HTTP status. */
export interface ProbeFailure {
  error: string | null;
  httpStatus: number | null;
}

// --- facets -------------------------------------------------------------------------------

const US_CORE = /^https?:\/\/hl7\.org\/fhir\/us\/core\//;

/** Every canonical the statement declares conformance with: instantiates, implementationGuide, profiles. */
function declaredCanonicals(statement: Json): string[] {
  const out: string[] = [];
  const push = (value: unknown) => {
    const c = canonical(value);
    if (c !== null) out.push(c);
  };
  for (const value of asArray(statement.instantiates)) push(value);
  for (const value of asArray(statement.implementationGuide)) push(value);
  for (const value of asArray(statement.profile)) push(value);
  for (const rest of asArray(statement.rest))
    for (const resource of asArray(asObject(rest)?.resource)) {
      const r = asObject(resource);
      push(r?.profile);
      for (const value of asArray(r?.supportedProfile)) push(value);
    }
  return out;
}

const versionParts = (v: string) => v.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
function compareVersions(a: string, b: string): number {
  const x = versionParts(a);
  const y = versionParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? -1;
    const q = y[i] ?? -1;
    if (p === q) continue;
    if (typeof p === "number" && typeof q === "number") return p - q;
    return String(p) < String(q) ? -1 : 1;
  }
  return 0;
}

function usCoreFacet(statement: Json | null): UsCoreFacet {
  return guideFacet(statement, US_CORE);
}

/** The canonicals of the payer implementation guides (their ImplementationGuide, profiles, CapabilityStatements). */
const CARIN_BB = /^https?:\/\/hl7\.org\/fhir\/us\/carin-bb\//;
const PDEX = /^https?:\/\/hl7\.org\/fhir\/us\/davinci-pdex\//;
const PLAN_NET = /^https?:\/\/hl7\.org\/fhir\/us\/davinci-pdex-plan-net\//;

function payerFacet(statement: Json | null, resources: string[]): PayerFacet {
  return {
    carinBlueButton: guideFacet(statement, CARIN_BB),
    pdex: guideFacet(statement, PDEX),
    planNet: guideFacet(statement, PLAN_NET),
    explanationOfBenefit: resources.includes("ExplanationOfBenefit"),
  };
}

/** Whether the statement declares a canonical of the guide `pattern` matches, and the versions after `|`. */
function guideFacet(statement: Json | null, pattern: RegExp): GuideFacet {
  if (!statement) return { declared: false, versions: [] };
  const canonicals = declaredCanonicals(statement).filter((c) => pattern.test(c));
  const versions = new Set<string>();
  for (const c of canonicals) {
    const bar = c.indexOf("|");
    const version = bar === -1 ? "" : c.slice(bar + 1).trim();
    if (version !== "") versions.add(version);
  }
  return { declared: canonicals.length > 0, versions: [...versions].sort(compareVersions) };
}

const BULK_CAPABILITY_STATEMENT = /^https?:\/\/hl7\.org\/fhir\/uv\/bulkdata\/CapabilityStatement\/bulk-data(\|.*)?$/;
const BULK_DEFINITION = /\/uv\/bulkdata\/OperationDefinition\/(export|patient-export|group-export)(\|.*)?$/;

/** Which export an operation declares: by its definition's canonical, else by its name. */
function exportKind(operation: unknown): "export" | "patient-export" | "group-export" | null {
  const o = asObject(operation);
  const definition = canonical(o?.definition);
  const byDefinition = definition === null ? null : BULK_DEFINITION.exec(definition);
  if (byDefinition) return byDefinition[1] as "export" | "patient-export" | "group-export";
  const name = asString(o?.name)?.replace(/^\$/, "").toLowerCase();
  return name === "export" || name === "patient-export" || name === "group-export" ? name : null;
}

function bulkDataFacet(statement: Json | null): BulkDataFacet {
  const facet = { system: false, group: false, patient: false };
  if (!statement) return facet;
  for (const rest of asArray(statement.rest)) {
    const r = asObject(rest);
    for (const operation of asArray(r?.operation)) {
      const kind = exportKind(operation);
      if (kind === "export") facet.system = true;
      else if (kind === "patient-export") facet.patient = true;
      else if (kind === "group-export") facet.group = true;
    }
    for (const resource of asArray(r?.resource)) {
      const type = asString(asObject(resource)?.type);
      if (type !== "Patient" && type !== "Group") continue;
      for (const operation of asArray(asObject(resource)?.operation)) {
        const kind = exportKind(operation);
        if (kind === null) continue;
        if (type === "Patient" && kind !== "group-export") facet.patient = true;
        if (type === "Group" && kind !== "patient-export") facet.group = true;
      }
    }
  }
  // The bulk-data CapabilityStatement alone, with no level declared, says the system level.
  if (
    !facet.system &&
    !facet.group &&
    !facet.patient &&
    strings(statement.instantiates).some((c) => BULK_CAPABILITY_STATEMENT.test(c))
  )
    facet.system = true;
  return facet;
}

/**
 * The oauth-uris extension, as servers write its URL: `http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris`
 * (nested `authorize`/`token` extensions), with a stray prefix (`http://DSTU2/fhir-registry…`),
 * under a vendor's own URL ending in `oauth-uris` (Soarian's DSTU2 statement; `…/StructureDefinition/<vendor>-oauth-uris`
 * too: any URL that ends in it), or the pre-DSTU2
 * form with the URI's name after `#` and its `valueUri` on the extension itself.
 */
const OAUTH_URIS = /oauth-uris(#(\w+))?$/;
const SMART_CAPABILITIES_EXTENSION = /fhir-registry\.smarthealthit\.org\/StructureDefinition\/capabilities$/;

/**
 * What a CapabilityStatement says about authorization in `rest[].security` (how DSTU2/STU3
 * servers published SMART): the oauth-uris extension's `authorize` and `token`, SMART v1's
 * capabilities extension, and the security services it names (`OAuth`, `SMART-on-FHIR`, …).
 */
function statementSecurity(statement: Json | null): {
  authorize: string | null;
  token: string | null;
  capabilities: string[];
  services: string[];
} {
  let authorize: string | null = null;
  let token: string | null = null;
  const capabilities: string[] = [];
  const services = new Set<string>();
  for (const rest of asArray(statement?.rest)) {
    const security = asObject(asObject(rest)?.security);
    for (const service of asArray(security?.service)) {
      const s = asObject(service);
      const codes = asArray(s?.coding).flatMap((c) => asString(asObject(c)?.code) ?? []);
      for (const name of codes.length > 0 ? codes : [asString(s?.text)].flatMap((t) => t ?? [])) services.add(name);
    }
    for (const extension of asArray(security?.extension)) {
      const e = asObject(extension);
      const url = asString(e?.url) ?? "";
      const oauth = OAUTH_URIS.exec(url);
      const take = (name: unknown, holder: Json | null) => {
        const uri = asString(holder?.valueUri) ?? asString(holder?.valueUrl);
        if (name === "authorize") authorize ??= uri;
        if (name === "token") token ??= uri;
      };
      if (oauth?.[2] !== undefined) take(oauth[2], e);
      else if (oauth)
        for (const inner of asArray(e?.extension)) {
          const i = asObject(inner);
          take(i?.url, i);
        }
      if (e !== null && SMART_CAPABILITIES_EXTENSION.test(url)) {
        const code = asString(e.valueCode);
        if (code !== null) capabilities.push(code);
      }
    }
  }
  return { authorize, token, capabilities, services: [...services] };
}

/** A SMART v2 scope: `patient/Observation.rs`, `user/*.cruds`, with or without a `?` query. */
const V2_SCOPE = /^(patient|user|system)\/[A-Za-z*]+\.(?=[cruds])c?r?u?d?s?(\?.*)?$/;
/** A SMART v1 scope: `patient/Observation.read`, `user/*.*`. */
const V1_SCOPE = /^(patient|user|system)\/[A-Za-z*]+\.(read|write|\*)$/;

/** What the SMART configuration (or, without one, the statement's security) publishes. */
interface SmartSources {
  /** How access is declared (the access facet). */
  access: AccessFacet;
  capabilities: string[];
  /** The SMART configuration published `capabilities` as a list (possibly empty). */
  capabilitiesListed: boolean;
  /** `grant_types_supported` was published as a list. */
  grantTypesListed: boolean;
  grantTypes: string[];
  /** `token_endpoint_auth_methods_supported` as published. */
  authMethods: string[];
  authMethodsListed: boolean;
  /** The non-standard `token_endpoint_auth_methods` some servers publish instead; null when absent. */
  nonStandardAuthMethods: string[] | null;
  signingAlgorithms: string[];
  signingAlgorithmsListed: boolean;
  challengeMethods: string[];
  authorizeUrl: string | null;
  tokenUrl: string | null;
  issuer: string | null;
  jwksUri: string | null;
  registrationUrl: string | null;
  scopes: string[];
  scopesListed: boolean;
}

function smartSources(statement: Json | null, smart: Json | null): SmartSources {
  const security = statementSecurity(statement);
  const oauthUris = security.authorize !== null || security.token !== null;
  return {
    access: {
      declared:
        smart !== null
          ? "smart-configuration"
          : oauthUris
            ? "oauth-uris"
            : security.services.length > 0
              ? "security-service"
              : "none",
      services: security.services,
    },
    // With a SMART configuration, its own `capabilities` (REQUIRED) are the capabilities: a value
    // that is not a list publishes none, and the statement's deprecated extension does not stand in.
    capabilities: smart !== null ? strings(smart.capabilities) : security.capabilities,
    capabilitiesListed: Array.isArray(smart?.capabilities),
    grantTypesListed: Array.isArray(smart?.grant_types_supported),
    grantTypes: strings(smart?.grant_types_supported),
    authMethods: strings(smart?.token_endpoint_auth_methods_supported),
    authMethodsListed: Array.isArray(smart?.token_endpoint_auth_methods_supported),
    nonStandardAuthMethods: Array.isArray(smart?.token_endpoint_auth_methods)
      ? strings(smart.token_endpoint_auth_methods)
      : null,
    signingAlgorithms: strings(smart?.token_endpoint_auth_signing_alg_values_supported),
    signingAlgorithmsListed: Array.isArray(smart?.token_endpoint_auth_signing_alg_values_supported),
    challengeMethods: strings(smart?.code_challenge_methods_supported),
    authorizeUrl: asString(smart?.authorization_endpoint) ?? security.authorize,
    tokenUrl: asString(smart?.token_endpoint) ?? security.token,
    issuer: asString(smart?.issuer),
    jwksUri: asString(smart?.jwks_uri),
    registrationUrl: asString(smart?.registration_endpoint),
    scopes: strings(smart?.scopes_supported),
    scopesListed: Array.isArray(smart?.scopes_supported),
  };
}

/** An absolute https URL with a host (`https://` alone, `$HOST/token` or `https:///x` are not). */
function isHttpsUrl(value: string | null): boolean {
  if (value === null || !/^https:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * What of a base URL the rules read: whether it is https. Memos of derived values key on it
 * beside the documents.
 */
export const schemeOf = (url: string | null): "https" | "other" => (isHttpsUrl(url) ? "https" : "other");

/** The signing algorithms SMART's asymmetric client authentication names (servers validate at least one). */
const NAMED_ALGORITHMS = ["RS384", "ES384"];

/** Asymmetric client authentication is claimed: the capability, or `private_key_jwt` under either key. */
const asymmetricClaimed = (s: SmartSources) =>
  s.capabilities.includes("client-confidential-asymmetric") ||
  s.authMethods.includes("private_key_jwt") ||
  (s.nonStandardAuthMethods ?? []).includes("private_key_jwt");

/**
 * The Backend Services set as declared: `client_credentials` and the asymmetric profile's whole
 * discovery (the capability, `scopes_supported`, `private_key_jwt`, `RS384` or `ES384`, a token endpoint).
 */
const backendDeclared = (s: SmartSources) =>
  s.grantTypes.includes("client_credentials") && s.tokenUrl !== null && asymmetricDiscoveryGaps(s).length === 0;

const openIdConnectOf = (s: SmartSources) =>
  s.capabilities.includes("sso-openid-connect") && isHttpsUrl(s.issuer) && isHttpsUrl(s.jwksUri);

/** A launch capability is declared: SMART 2.2 then requires `authorization_endpoint`. */
const declaresLaunch = (s: SmartSources) =>
  s.capabilities.includes("launch-ehr") || s.capabilities.includes("launch-standalone");

function smartFacet(s: SmartSources): SmartFacet {
  const v2 = s.capabilities.includes("permission-v2") || s.scopes.some((scope) => V2_SCOPE.test(scope));
  const v1 =
    s.capabilities.includes("permission-v1") ||
    s.scopes.some((scope) => V1_SCOPE.test(scope)) ||
    // Without a sign of v2, SMART v1 is what a server speaks that publishes OAuth URIs in its
    // statement (v1's mechanism) or declares a launch; a configuration of two URLs says nothing.
    (!v2 && (s.access.declared === "oauth-uris" || declaresLaunch(s)));
  return {
    v1,
    v2,
    pkceS256: s.challengeMethods.includes("S256"),
    pkcePlain: s.challengeMethods.includes("plain"),
    launchEhr: s.capabilities.includes("launch-ehr"),
    launchStandalone: s.capabilities.includes("launch-standalone"),
    backendServices: backendDeclared(s),
    authorizeUrl: s.authorizeUrl,
    tokenUrl: s.tokenUrl,
    scopes: s.scopes,
    permissionOffline: s.capabilities.includes("permission-offline"),
    clientTypes: CLIENT_TYPES.filter((type) => s.capabilities.includes(type)),
    openIdConnect: openIdConnectOf(s),
    issuer: s.issuer,
    jwksUri: s.jwksUri,
    registrationUrl: s.registrationUrl,
    signingAlgorithms: s.signingAlgorithms,
  };
}

// --- checks -------------------------------------------------------------------------------

/** The resource types Lantern counts as US Core besides Patient. */
const US_CORE_RESOURCES = new Set([
  "AllergyIntolerance",
  "CarePlan",
  "CareTeam",
  "Condition",
  "DiagnosticReport",
  "DocumentReference",
  "Encounter",
  "Goal",
  "Immunization",
  "Device",
  "Observation",
  "Location",
  "Medication",
  "MedicationRequest",
  "Organization",
  "Practitioner",
  "PractitionerRole",
  "Procedure",
  "Provenance",
]);

/** What every rule sees: the input, and what the facets already read from it. */
interface RuleContext extends CapabilityInput {
  sources: SmartSources;
  resources: string[];
}

interface Rule {
  id: string;
  /** What it verifies (docs/api.md and the OpenAPI document print it). */
  verifies: string;
  /** Where the requirement comes from. */
  source: string;
  run(c: RuleContext): Outcome;
  /**
   * Measured by the probe's handshake with the URL's host, not read from the documents: `run`
   * says "not yet measured", and each URL's answer carries its own (src/directory/tls-checks.ts).
   */
  handshake?: true;
}

const LANTERN =
  "ONC Lantern R4 validation (lantern-back-end capabilityreceiver/pkg/capabilityhandler/validation/r4validation.go)";
const SMART_DISCOVERY = "SMART App Launch 2.2, Conformance: /.well-known/smart-configuration";
const FHIR_CPB = "FHIR R4 capabilitystatement.html";
const NOT_PROBED = { ok: null, detail: "not probed yet" };
const NO_STATEMENT = { ok: null, detail: "no CapabilityStatement to check" };
const NO_SMART = { ok: false, detail: "no SMART configuration" };
const NOT_MEASURED = { ok: null, detail: "not yet measured" };

/** A rule on the CapabilityStatement: null when there is none. */
type Outcome = { ok: boolean | null; detail: string };
const onStatement =
  (run: (statement: Json, c: RuleContext) => Outcome) =>
  (c: RuleContext): Outcome =>
    !c.probed ? NOT_PROBED : c.statement === null ? NO_STATEMENT : run(c.statement, c);
/** A rule on the SMART configuration: false when the server published none. */
const onSmart =
  (run: (smart: Json, c: RuleContext) => Outcome) =>
  (c: RuleContext): Outcome =>
    !c.probed ? NOT_PROBED : c.smart === null ? NO_SMART : run(c.smart, c);

/** A rule that the SMART configuration publishes `key` as a list (its strings described by `describe`). */
const publishedList = (key: string, describe: (list: string[]) => string) =>
  onSmart((smart) =>
    Array.isArray(smart[key])
      ? { ok: true, detail: describe(strings(smart[key])) }
      : { ok: false, detail: `no ${key}` },
  );

const httpsEndpoint = (url: string | null, what: string): Outcome =>
  url === null
    ? { ok: false, detail: `no ${what}` }
    : isHttpsUrl(url)
      ? { ok: true, detail: url }
      : { ok: false, detail: `${what} ${url} is not an https URL with a host` };

/** Duplicates in a list, in order of first repetition. */
const duplicates = (values: string[]) => {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
};

/**
 * The checks, in the order they are listed. Ids are stable (a client may key on them); a new
 * rule is one more entry. Each verifies one requirement of a published source.
 */
const RULES = [
  {
    id: "capability-statement",
    verifies: "GET [base]/metadata returns a CapabilityStatement (or DSTU2 Conformance) as JSON",
    source: `${LANTERN} (CapStatExists); FHIR R4 http.html#capabilities`,
    run: (c) =>
      !c.probed
        ? NOT_PROBED
        : c.statement === null
          ? { ok: false, detail: "/metadata returned no CapabilityStatement" }
          : { ok: true, detail: `resourceType ${asString(c.statement.resourceType) ?? "(none)"}` },
  },
  {
    id: "fhir-version-matches",
    verifies: "`fhirVersion` belongs to the release the endpoint's list or URL states",
    source: `${FHIR_CPB} (fhirVersion); the entry's list or URL`,
    run: onStatement((statement, c) => {
      const raw = asString(statement.fhirVersion);
      const release = raw === null ? null : releaseOfVersion(raw);
      if (c.statedVersion === null)
        return { ok: null, detail: `fhirVersion ${raw ?? "(none)"}; no version stated by the list or URL` };
      return {
        ok: release === c.statedVersion,
        detail: `fhirVersion ${raw ?? "(none)"} (${release ?? "unknown release"}); the list or URL states ${c.statedVersion}`,
      };
    }),
  },
  {
    id: "kind-instance",
    verifies: "`kind` is `instance`: the statement describes this running server",
    source: `${LANTERN} (KindValid); ${FHIR_CPB}`,
    run: onStatement((statement) => {
      const kind = asString(statement.kind);
      return { ok: kind === "instance", detail: kind === null ? "no kind" : `kind is ${kind}` };
    }),
  },
  {
    id: "format-json",
    verifies:
      "`format` lists JSON (`json`, `application/json`, `application/fhir+json` or DSTU2's `application/json+fhir`)",
    source: `${FHIR_CPB} (format); FHIR R4 http.html#mime-type`,
    run: onStatement((statement) => {
      const formats = strings(statement.format);
      const ok = formats.some((f) => /^(json|application\/(fhir\+)?json|application\/json\+fhir)(;|$)/i.test(f));
      return { ok, detail: formats.length === 0 ? "no format" : `format: ${formats.join(", ")}` };
    }),
  },
  {
    id: "describes-software",
    verifies: "`description`, `software` or `implementation` is present",
    source: `${FHIR_CPB} cpb-2; ${LANTERN} (DescribeEndpointValid)`,
    run: onStatement((statement) => {
      const present = [
        ...(asString(statement.description) !== null ? ["description"] : []),
        ...["software", "implementation"].filter((key) => asObject(statement[key]) !== null),
      ];
      return { ok: present.length > 0, detail: present.length > 0 ? present.join(", ") : "none of the three" };
    }),
  },
  {
    id: "patient-resource",
    verifies: "`rest[].resource[]` includes Patient",
    source: `${LANTERN} (PatientResourceExists); US Core Server CapabilityStatement`,
    run: onStatement((_, c) =>
      c.resources.includes("Patient") ? { ok: true, detail: "Patient" } : { ok: false, detail: "no Patient resource" },
    ),
  },
  {
    id: "us-core-resource",
    verifies: "at least one US Core resource besides Patient is supported",
    source: `${LANTERN} (OtherResourceExists); US Core Server CapabilityStatement`,
    run: onStatement((_, c) => {
      const found = c.resources.filter((type) => US_CORE_RESOURCES.has(type));
      return found.length > 0
        ? { ok: true, detail: `${found.length} (${found.slice(0, 5).join(", ")}${found.length > 5 ? ", …" : ""})` }
        : { ok: false, detail: "none besides Patient" };
    }),
  },
  {
    id: "smart-configuration",
    verifies: "GET [base]/.well-known/smart-configuration returns a JSON object",
    source: `${LANTERN} (SmartResponseExists); ${SMART_DISCOVERY}`,
    run: (c) =>
      !c.probed
        ? NOT_PROBED
        : c.smart === null
          ? { ok: false, detail: "no SMART configuration was returned" }
          : { ok: true, detail: `${Object.keys(c.smart).length} fields` },
  },
  {
    id: "unique-resources",
    verifies: "each resource type is described once per `rest` mode",
    source: `${LANTERN} (UniqueResources); ${FHIR_CPB} cpb-9`,
    run: onStatement((statement) => {
      const repeated = asArray(statement.rest).flatMap((rest) =>
        duplicates(asArray(asObject(rest)?.resource).flatMap((r) => asString(asObject(r)?.type) ?? [])),
      );
      return repeated.length === 0
        ? { ok: true, detail: "each type once" }
        : { ok: false, detail: `repeated: ${repeated.slice(0, 5).join(", ")}` };
    }),
  },
  {
    id: "unique-search-params",
    verifies: "search parameter names are unique within each resource",
    source: `${LANTERN} (SearchParamsUnique); ${FHIR_CPB} cpb-12`,
    run: onStatement((statement) => {
      const repeated: string[] = [];
      for (const rest of asArray(statement.rest))
        for (const resource of asArray(asObject(rest)?.resource)) {
          const r = asObject(resource);
          const names = asArray(r?.searchParam).flatMap((p) => asString(asObject(p)?.name) ?? []);
          for (const name of duplicates(names)) repeated.push(`${asString(r?.type) ?? "?"}.${name}`);
        }
      return repeated.length === 0
        ? { ok: true, detail: "unique" }
        : { ok: false, detail: `repeated: ${repeated.slice(0, 5).join(", ")}` };
    }),
  },
  {
    id: "instance-implementation",
    verifies: "a statement of `kind` `instance` has `implementation` (null for another kind)",
    source: `${FHIR_CPB} cpb-14; ${LANTERN} (KindValid: instance needs implementation)`,
    run: onStatement((statement) => {
      const kind = asString(statement.kind);
      if (kind !== "instance") return { ok: null, detail: `kind is ${kind ?? "absent"}: not an instance` };
      return asObject(statement.implementation) !== null
        ? { ok: true, detail: "implementation present" }
        : { ok: false, detail: "kind instance without implementation" };
    }),
  },
  {
    id: "smart-authorize-endpoint",
    verifies:
      "an authorization endpoint (SMART configuration, or the statement's oauth-uris extension) is an https URL; required with `launch-ehr` or `launch-standalone` (null when neither is declared and none is published)",
    source: `${SMART_DISCOVERY} (authorization_endpoint: CONDITIONAL)`,
    run: (c) =>
      !c.probed
        ? NOT_PROBED
        : c.sources.authorizeUrl === null && !declaresLaunch(c.sources)
          ? { ok: null, detail: "no launch declared: not required" }
          : httpsEndpoint(c.sources.authorizeUrl, "authorization_endpoint or oauth-uris authorize"),
  },
  {
    id: "smart-token-endpoint",
    verifies:
      "a token endpoint is published (SMART configuration, or the statement's oauth-uris extension) and is an https URL",
    source: `${SMART_DISCOVERY} (token_endpoint: REQUIRED)`,
    run: (c) => (!c.probed ? NOT_PROBED : httpsEndpoint(c.sources.tokenUrl, "token_endpoint or oauth-uris token")),
  },
  {
    id: "smart-pkce-s256",
    verifies: "`code_challenge_methods_supported` is published and includes `S256`",
    source: `${SMART_DISCOVERY} (code_challenge_methods_supported: REQUIRED, S256 SHALL be included)`,
    run: onSmart((_, c) => {
      const methods = c.sources.challengeMethods;
      return {
        ok: methods.includes("S256"),
        detail: methods.length === 0 ? "no code_challenge_methods_supported" : methods.join(", "),
      };
    }),
  },
  {
    id: "smart-no-pkce-plain",
    verifies: "`code_challenge_methods_supported` does not include `plain`",
    source: `${SMART_DISCOVERY} (plain SHALL NOT be included)`,
    run: onSmart((_, c) =>
      c.sources.challengeMethods.includes("plain")
        ? { ok: false, detail: "plain is supported" }
        : { ok: true, detail: "plain is not listed" },
    ),
  },
  {
    id: "smart-capabilities",
    verifies: "`capabilities` is published as a list",
    source: `${SMART_DISCOVERY} (capabilities: REQUIRED)`,
    run: publishedList("capabilities", (list) => `${list.length} capabilities`),
  },
  {
    id: "smart-grant-types",
    verifies: "`grant_types_supported` is published as a list",
    source: `${SMART_DISCOVERY} (grant_types_supported: REQUIRED)`,
    run: publishedList("grant_types_supported", (list) => list.join(", ") || "empty"),
  },
  {
    id: "smart-openid-connect",
    verifies:
      "with `sso-openid-connect` declared, `issuer` and `jwks_uri` are https URLs (null when it is not declared)",
    source: `${SMART_DISCOVERY} (issuer, jwks_uri: CONDITIONAL on sso-openid-connect)`,
    run: onSmart((_, c) => {
      if (!c.sources.capabilities.includes("sso-openid-connect"))
        return { ok: null, detail: "sso-openid-connect not declared" };
      const wrong = [
        ["issuer", c.sources.issuer],
        ["jwks_uri", c.sources.jwksUri],
      ].flatMap(([key, value]) =>
        isHttpsUrl(value ?? null) ? [] : [value === null ? `no ${key}` : `${key} is not https`],
      );
      return wrong.length === 0
        ? { ok: true, detail: `issuer ${c.sources.issuer}` }
        : { ok: false, detail: wrong.join("; ") };
    }),
  },
  {
    id: "smart-asymmetric-profile",
    verifies:
      "with asymmetric client authentication claimed (`client-confidential-asymmetric`, or `private_key_jwt` under any key), the whole discovery the profile names: the capability, `scopes_supported`, `token_endpoint_auth_methods_supported` with `private_key_jwt`, `token_endpoint_auth_signing_alg_values_supported` with `RS384` or `ES384` (null when none is claimed)",
    source: "SMART App Launch 2.2, Client Authentication: Asymmetric (Advertising server support)",
    run: onSmart((_, c) => {
      if (!asymmetricClaimed(c.sources)) return { ok: null, detail: "asymmetric authentication not declared" };
      const gaps = asymmetricDiscoveryGaps(c.sources).map(({ gap }) => gap);
      return gaps.length === 0
        ? { ok: true, detail: `private_key_jwt with ${c.sources.signingAlgorithms.join(", ")}` }
        : { ok: false, detail: gaps.join("; ") };
    }),
  },
  {
    id: "tls-1.2-or-later",
    verifies: "the connection to the server used TLS 1.2 or later",
    source: "US Core Security; ONC Lantern TLSVersion",
    run: () => NOT_MEASURED,
    handshake: true,
  },
  {
    id: "certificate-valid-30-days",
    verifies: "the server's certificate verifies and stays valid for at least 30 more days",
    source: "RFC 5280; operational practice",
    run: () => NOT_MEASURED,
    handshake: true,
  },
  {
    id: "metadata-on-same-host",
    verifies: "/metadata was answered by the base URL's own host (no redirect to another host)",
    source: "FHIR R4 http.html#capabilities",
    run: () => NOT_MEASURED,
    handshake: true,
  },
] as const satisfies readonly Rule[];

export type CheckId = (typeof RULES)[number]["id"];
/** The checks the probe's handshake measures per URL (the last ones of the list). */
export const HANDSHAKE_CHECK_IDS: ReadonlySet<string> = new Set(
  RULES.filter((rule: Rule) => rule.handshake === true).map((rule) => rule.id),
);
/** Every check, in order: id, what it verifies and its source (the documented list). */
export const CHECKS: readonly { id: CheckId; verifies: string; source: string }[] = RULES.map(
  ({ id, verifies, source }) => ({ id, verifies, source }),
);

// --- verdict ------------------------------------------------------------------------------

/**
 * The sets a verdict names: SMART App Launch 2.2's four capability sets (Conformance, Capability
 * Sets) and SMART Backend Services (not a capability set there: its discovery requirements are
 * Client Authentication: Asymmetric's "Advertising server support").
 */
export const CAPABILITY_SETS = [
  "patient-standalone",
  "patient-ehr-launch",
  "clinician-ehr-launch",
  "clinician-standalone",
  "backend-services",
] as const;
export type CapabilitySetId = (typeof CAPABILITY_SETS)[number];

/** A SMART App Launch 2.2 capability set (Conformance, Capability Sets) of a kind of app. */
interface CapabilitySet {
  id: Exclude<CapabilitySetId, "backend-services">;
  name: string;
  /** The apps it serves, as a note names them ("standalone patient apps"). */
  apps: string;
  /** Its capabilities besides the client type, launch mode first. */
  capabilities: string[];
}
/** Each set also needs `client-public` or `client-confidential-symmetric` (`client-confidential-asymmetric` MAY be added). */
export const SET_CLIENT_TYPES = ["client-public", "client-confidential-symmetric"];

/**
 * The capability sets of each kind of app that launches, in the order a reason is taken from
 * when none is complete and two are equally near; and the capabilities that say a server offers
 * that kind at all (the audience rule of the entry's `access`).
 */
export const LAUNCH_KINDS: Record<"patientApps" | "providerApps", { sets: CapabilitySet[]; offeredBy: string[] }> = {
  patientApps: {
    sets: [
      {
        id: "patient-standalone",
        name: "Patient Access for Standalone Apps",
        apps: "standalone patient apps",
        capabilities: ["launch-standalone", "context-standalone-patient", "permission-patient"],
      },
      {
        id: "patient-ehr-launch",
        name: "Patient Access for EHR Launch",
        apps: "apps launched from the patient portal",
        capabilities: ["launch-ehr", "context-ehr-patient", "permission-patient"],
      },
    ],
    offeredBy: ["launch-standalone", "context-standalone-patient", "permission-patient"],
  },
  providerApps: {
    sets: [
      {
        id: "clinician-ehr-launch",
        name: "Clinician Access for EHR Launch",
        apps: "apps launched from the EHR",
        capabilities: [
          "launch-ehr",
          "context-ehr-patient",
          "context-ehr-encounter",
          "permission-user",
          "permission-patient",
        ],
      },
      {
        id: "clinician-standalone",
        name: "Clinician Access for Standalone",
        apps: "standalone clinician apps",
        capabilities: ["launch-standalone", "permission-user", "permission-patient"],
      },
    ],
    offeredBy: ["launch-ehr", "context-ehr-patient", "permission-user"],
  },
};

/** The names of every set, by id (docs, OpenAPI descriptions, the page). */
export const CAPABILITY_SET_NAMES: Record<CapabilitySetId, string> = {
  ...(Object.fromEntries(
    Object.values(LAUNCH_KINDS).flatMap((kind) => kind.sets.map((set) => [set.id, set.name])),
  ) as Record<CapabilitySet["id"], string>),
  "backend-services": "SMART Backend Services",
};

/** What a set lacks of the declared capabilities: its missing codes, the client type as one. */
function missingOf(set: CapabilitySet, capabilities: string[]): string[] {
  const missing = set.capabilities.filter((code) => !capabilities.includes(code));
  if (!SET_CLIENT_TYPES.some((type) => capabilities.includes(type)))
    missing.splice(1, 0, SET_CLIENT_TYPES.join(" or "));
  return missing;
}

/** Requirements every kind shares: a verified server over https that publishes SMART 2.2's configuration. */
function commonReasons(c: RuleContext): string[] {
  const reasons: string[] = [];
  if (!isHttpsUrl(c.url)) reasons.push("the base URL is not https (SMART requires TLS)");
  if (c.statement === null) reasons.push("not verified: /metadata returned no CapabilityStatement");
  if (c.smart === null)
    reasons.push(
      "no /.well-known/smart-configuration (SMART 2.2 requires it; OAuth URIs in the CapabilityStatement are deprecated)",
    );
  return reasons;
}

const verdictOfReasons = (sets: CapabilitySetId[], reasons: string[], notes: string[] = []): AppVerdict => ({
  status: reasons.length === 0 ? "ready" : "partial",
  sets,
  reasons,
  notes: reasons.length === 0 ? notes : [],
});

/**
 * A launching kind (patient or clinician apps). `ready` by one set of two says, in a note, which
 * apps it serves and what the other set's apps lack.
 */
function launchVerdict(c: RuleContext, kind: "patientApps" | "providerApps"): AppVerdict {
  const { sets, offeredBy } = LAUNCH_KINDS[kind];
  const s = c.sources;
  if (s.capabilitiesListed && s.capabilities.length === 0)
    return {
      status: "no",
      sets: [],
      reasons: ["capabilities is an empty list: the SMART configuration declares no capability set"],
      notes: [],
    };
  if (s.capabilities.length > 0 && !offeredBy.some((code) => s.capabilities.includes(code)))
    return { status: "no", sets: [], reasons: [`declares none of ${offeredBy.join(", ")}`], notes: [] };
  const reasons = commonReasons(c);
  const missing = sets.map((set) => ({ set, missing: missingOf(set, s.capabilities) }));
  const whole = missing.filter((m) => m.missing.length === 0);
  if (s.capabilities.length === 0)
    reasons.push(
      c.smart !== null ? "capabilities not published as a list (REQUIRED)" : "no SMART capabilities published",
    );
  else if (whole.length === 0) {
    const nearest = missing.reduce((best, next) => (next.missing.length < best.missing.length ? next : best));
    for (const code of nearest.missing) reasons.push(`${code} not declared (${nearest.set.name})`);
  }
  if (c.smart !== null) {
    if (!s.grantTypesListed) reasons.push("no grant_types_supported (REQUIRED)");
    else if (!s.grantTypes.includes("authorization_code"))
      reasons.push("authorization_code not in grant_types_supported");
    if (!s.challengeMethods.includes("S256")) reasons.push("code_challenge_methods_supported lacks S256");
    if (s.challengeMethods.includes("plain")) reasons.push("code_challenge_methods_supported includes plain");
  }
  const authorize = httpsEndpoint(s.authorizeUrl, "authorization_endpoint");
  if (!authorize.ok) reasons.push(authorize.detail);
  const token = httpsEndpoint(s.tokenUrl, "token_endpoint");
  if (!token.ok) reasons.push(token.detail);
  const notes =
    whole.length === 1
      ? missing
          .filter((m) => m.missing.length > 0)
          .map(
            (m) =>
              `ready for ${whole[0]!.set.apps} (${whole[0]!.set.name}); ${m.set.apps}: missing ${m.missing.join(", ")}`,
          )
      : [];
  return verdictOfReasons(
    whole.map((m) => m.set.id),
    reasons,
    notes,
  );
}

/**
 * What a Backend Services client reads of the SMART configuration, each a property Client
 * Authentication: Asymmetric's discovery requirements name ("configuration properties include
 * `token_endpoint`, `scopes_supported`, `token_endpoint_auth_methods_supported` (with values that
 * include `private_key_jwt`), and `token_endpoint_auth_signing_alg_values_supported` (with values
 * that include at least one of `RS384`, `ES384`)"), with what it lacks and what a client can
 * expect. One rule for them all: each missing or lacking property makes the kind `partial`.
 */
function asymmetricDiscoveryGaps(s: SmartSources): { gap: string; why: string }[] {
  const gaps: { gap: string; why: string }[] = [];
  const NAMED = " (the asymmetric profile's discovery names it";
  if (!s.capabilities.includes("client-confidential-asymmetric"))
    gaps.push({
      gap: "client-confidential-asymmetric not declared",
      why: ` (how a server advertises JWT client authentication)${
        s.authMethods.includes("private_key_jwt")
          ? ", though token_endpoint_auth_methods_supported lists private_key_jwt"
          : ""
      }`,
    });
  if (!s.scopesListed)
    gaps.push({
      gap: "scopes_supported not advertised",
      why: `${NAMED}): a client can request only the system/ scopes agreed at registration`,
    });
  if (!s.authMethodsListed)
    gaps.push({
      gap: "token_endpoint_auth_methods_supported not advertised",
      why: `${NAMED}, with private_key_jwt)${
        s.nonStandardAuthMethods === null
          ? ""
          : `; the non-standard token_endpoint_auth_methods is published instead, listing ${s.nonStandardAuthMethods.join(", ") || "nothing"}`
      }: whether private_key_jwt is accepted is not said where a client looks`,
    });
  else if (!s.authMethods.includes("private_key_jwt"))
    gaps.push({
      gap: `token_endpoint_auth_methods_supported lists ${s.authMethods.join(", ") || "nothing"} but not private_key_jwt`,
      why: ": JWT client authentication is not offered at this token endpoint",
    });
  if (!s.signingAlgorithmsListed)
    gaps.push({
      gap: "token_endpoint_auth_signing_alg_values_supported not advertised",
      why: `${NAMED}, with RS384 or ES384): the server SHALL validate at least one of them, so a client signing with RS384 or ES384 (clients SHALL support both) may be accepted, but which one is not said`,
    });
  else if (!s.signingAlgorithms.some((alg) => NAMED_ALGORITHMS.includes(alg)))
    gaps.push({
      gap: `token_endpoint_auth_signing_alg_values_supported lists ${s.signingAlgorithms.join(", ") || "nothing"}, neither RS384 nor ES384`,
      why: ": a client signing as SMART requires may be refused",
    });
  return gaps;
}

function backendVerdict(c: RuleContext): AppVerdict {
  const s = c.sources;
  const offered =
    s.grantTypes.includes("client_credentials") ||
    s.scopes.some((scope) => scope.startsWith("system/")) ||
    asymmetricClaimed(s);
  if (!offered)
    return {
      status: "no",
      sets: [],
      reasons: ["declares no client_credentials grant, system scopes or asymmetric client authentication"],
      notes: [],
    };
  const reasons = commonReasons(c);
  if (!s.grantTypesListed) reasons.push("no grant_types_supported (REQUIRED)");
  else if (!s.grantTypes.includes("client_credentials"))
    reasons.push("client_credentials not in grant_types_supported");
  if (c.smart !== null) reasons.push(...asymmetricDiscoveryGaps(s).map(({ gap, why }) => gap + why));
  const token = httpsEndpoint(s.tokenUrl, "token_endpoint");
  if (!token.ok) reasons.push(token.detail);
  return verdictOfReasons(backendDeclared(s) ? ["backend-services"] : [], reasons);
}

/** `unknown` when the last probe returned neither document: what happened, from its record. */
function failureReason(failure: ProbeFailure | null | undefined): string {
  if (failure === null || failure === undefined || failure.error === null)
    return "the last probe returned neither a CapabilityStatement nor a SMART configuration";
  const cause =
    failure.error === "http_status" && failure.httpStatus !== null
      ? `answered HTTP ${failure.httpStatus}`
      : (ERROR_KIND_WORDS[failure.error as ErrorKind] ?? failure.error);
  return `the last probe failed: /metadata ${cause} (${failure.error}), and no SMART configuration was read`;
}

/** A security service that names SMART on FHIR (FHIR's restful-security-service code `SMART-on-FHIR`). */
const namesSmart = (services: string[]) => services.some((service) => /^smart[- ]on[- ]fhir$/i.test(service));

function verdictOf(c: RuleContext): Verdict {
  const all = (verdict: AppVerdict): Verdict => ({
    patientApps: verdict,
    providerApps: verdict,
    backendServices: verdict,
  });
  const none = (status: VerdictStatus, reason: string): AppVerdict => ({
    status,
    sets: [],
    reasons: [reason],
    notes: [],
  });
  if (!c.probed)
    return all(
      none("unknown", "not probed yet: its /metadata and /.well-known/smart-configuration have not been read"),
    );
  if (c.statement === null && c.smart === null) return all(none("unknown", failureReason(c.failure)));
  if (c.sources.access.declared === "none")
    return all(
      none("undeclared", "declares no authorization: no SMART configuration, no OAuth URIs, no security service"),
    );
  if (c.sources.access.declared === "security-service") {
    const services = c.sources.access.services.join(", ");
    if (!namesSmart(c.sources.access.services))
      return all(none("no", `declares ${services} but neither a SMART configuration nor OAuth URIs`));
    // SMART, not discoverable: offered to launching apps, but an app cannot find where to authorize.
    const launch = none(
      "partial",
      `SMART, not discoverable: the CapabilityStatement names ${services} as its security service but publishes neither /.well-known/smart-configuration nor OAuth URIs, so an app cannot find its authorization and token endpoints`,
    );
    return {
      patientApps: launch,
      providerApps: launch,
      backendServices: none(
        "no",
        "declares no client_credentials grant, system scopes or asymmetric client authentication",
      ),
    };
  }
  return {
    patientApps: launchVerdict(c, "patientApps"),
    providerApps: launchVerdict(c, "providerApps"),
    backendServices: backendVerdict(c),
  };
}

// --- together -----------------------------------------------------------------------------

export interface CapabilityReport {
  facets: CapabilityFacets;
  checks: Check[];
  verdict: Verdict;
}

/** Distinct `rest[].resource[].type` values. */
const resourceTypes = (statement: Json | null) => [
  ...new Set(
    asArray(statement?.rest).flatMap((rest) =>
      asArray(asObject(rest)?.resource).flatMap((r) => asString(asObject(r)?.type) ?? []),
    ),
  ),
];

/** Facets, checks and verdict of one server, from its documents. */
export function capabilityReport(input: CapabilityInput): CapabilityReport {
  const statement = input.probed ? input.statement : null;
  const smart = input.probed ? input.smart : null;
  const sources = smartSources(statement, smart);
  const context: RuleContext = { ...input, statement, smart, sources, resources: resourceTypes(statement) };
  const facets: CapabilityFacets = {
    usCore: usCoreFacet(statement),
    bulkData: bulkDataFacet(statement),
    smart: smartFacet(sources),
    access: sources.access,
    payer: payerFacet(statement, context.resources),
  };
  const checks = RULES.map((rule): Check => ({ id: rule.id, ...rule.run(context) }));
  return { facets, checks, verdict: verdictOf(context) };
}

/** The `supports=` values a report's facets hold, in SUPPORTS order. */
export function supportsOf({ usCore, bulkData, smart, payer }: CapabilityFacets): Supports[] {
  const holds: Record<Supports, boolean> = {
    "permission-offline": smart.permissionOffline,
    "sso-openid-connect": smart.openIdConnect,
    "dynamic-registration": isHttpsUrl(smart.registrationUrl),
    "client-public": smart.clientTypes.includes("client-public"),
    "client-confidential-symmetric": smart.clientTypes.includes("client-confidential-symmetric"),
    "client-confidential-asymmetric": smart.clientTypes.includes("client-confidential-asymmetric"),
    "us-core": usCore.declared,
    "bulk-export": bulkData.system || bulkData.group || bulkData.patient,
    "smart-v2": smart.v2,
    pkce: smart.pkceS256,
    "backend-services": smart.backendServices,
    "launch-ehr": smart.launchEhr,
    "launch-standalone": smart.launchStandalone,
    "carin-bb": payer.carinBlueButton.declared,
    "davinci-pdex": payer.pdex.declared,
    "plan-net": payer.planNet.declared,
    "explanation-of-benefit": payer.explanationOfBenefit,
  };
  return SUPPORTS.filter((value) => holds[value]);
}

/** The verdict's statuses alone: what the directory stores per probe, filters and counts. */
export type VerdictStatuses = Record<AppKind, VerdictStatus>;
export const verdictStatuses = (verdict: Verdict): VerdictStatuses => ({
  patientApps: verdict.patientApps.status,
  providerApps: verdict.providerApps.status,
  backendServices: verdict.backendServices.status,
});

/** Parses a stored body; null when it is absent, not a JSON object or over JSON_BOUNDS (a hostile body stored before them). */
export function parseDocument(text: string | null): Json | null {
  return parseBoundedObject(text);
}
