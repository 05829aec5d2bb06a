import { parseBoundedObject } from "./bounded-json";
import { releaseOfVersion } from "./fhir-version";
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
}
/**
 * What the documents say. The answer's `summary.tls` is not among them: it is the URL's host's
 * own, measured by the probe's handshake (src/directory/tls-checks.ts).
 */
export interface CapabilityFacets {
  usCore: UsCoreFacet;
  bulkData: BulkDataFacet;
  smart: SmartFacet;
}

interface Check {
  id: CheckId;
  /** true: holds; false: does not; null: cannot apply (not probed, or nothing to check it on). */
  ok: boolean | null;
  detail: string;
}

export const VERDICT_STATUSES = ["ready", "partial", "no", "unknown"] as const;
type VerdictStatus = (typeof VERDICT_STATUSES)[number];
interface AppVerdict {
  status: VerdictStatus;
  reasons: string[];
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
  if (!statement) return { declared: false, versions: [] };
  const canonicals = declaredCanonicals(statement).filter((c) => US_CORE.test(c));
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
 * (nested `authorize`/`token` extensions), with a stray prefix (`http://DSTU2/fhir-registry…`), or
 * the pre-DSTU2 form with the URI's name after `#` and its `valueUri` on the extension itself.
 */
const OAUTH_URIS = /fhir-registry\.smarthealthit\.org\/(StructureDefinition|Profile)\/oauth-uris(#(\w+))?$/;
const SMART_CAPABILITIES_EXTENSION = /fhir-registry\.smarthealthit\.org\/StructureDefinition\/capabilities$/;

/**
 * What a CapabilityStatement says about SMART in `rest[].security` (how DSTU2/STU3 servers
 * published it): the oauth-uris extension's `authorize` and `token`, and SMART v1's
 * capabilities extension.
 */
function statementSecurity(statement: Json | null): {
  authorize: string | null;
  token: string | null;
  capabilities: string[];
} {
  let authorize: string | null = null;
  let token: string | null = null;
  const capabilities: string[] = [];
  for (const rest of asArray(statement?.rest))
    for (const extension of asArray(asObject(asObject(rest)?.security)?.extension)) {
      const e = asObject(extension);
      const url = asString(e?.url) ?? "";
      const oauth = OAUTH_URIS.exec(url);
      const take = (name: unknown, holder: Json | null) => {
        const uri = asString(holder?.valueUri) ?? asString(holder?.valueUrl);
        if (name === "authorize") authorize ??= uri;
        if (name === "token") token ??= uri;
      };
      if (oauth?.[3] !== undefined) take(oauth[3], e);
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
  return { authorize, token, capabilities };
}

/** A SMART v2 scope: `patient/Observation.rs`, `user/*.cruds`, with or without a `?` query. */
const V2_SCOPE = /^(patient|user|system)\/[A-Za-z*]+\.(?=[cruds])c?r?u?d?s?(\?.*)?$/;
/** A SMART v1 scope: `patient/Observation.read`, `user/*.*`. */
const V1_SCOPE = /^(patient|user|system)\/[A-Za-z*]+\.(read|write|\*)$/;

/** What the SMART configuration (or, without one, the statement's security) publishes. */
interface SmartSources {
  /** A SMART configuration was returned, or the statement publishes OAuth URIs. */
  published: boolean;
  capabilities: string[];
  grantTypes: string[];
  authMethods: string[];
  challengeMethods: string[];
  authorizeUrl: string | null;
  tokenUrl: string | null;
  scopes: string[];
}

function smartSources(statement: Json | null, smart: Json | null): SmartSources {
  const security = statementSecurity(statement);
  return {
    published: smart !== null || security.authorize !== null || security.token !== null,
    capabilities: smart && Array.isArray(smart.capabilities) ? strings(smart.capabilities) : security.capabilities,
    grantTypes: strings(smart?.grant_types_supported),
    // `token_endpoint_auth_methods` is not standard, but servers publish it.
    authMethods: [
      ...new Set([
        ...strings(smart?.token_endpoint_auth_methods_supported),
        ...strings(smart?.token_endpoint_auth_methods),
      ]),
    ],
    challengeMethods: strings(smart?.code_challenge_methods_supported),
    authorizeUrl: asString(smart?.authorization_endpoint) ?? security.authorize,
    tokenUrl: asString(smart?.token_endpoint) ?? security.token,
    scopes: strings(smart?.scopes_supported),
  };
}

const asymmetric = (s: SmartSources) =>
  s.authMethods.includes("private_key_jwt") || s.capabilities.includes("client-confidential-asymmetric");

function smartFacet(s: SmartSources): SmartFacet {
  const v2 = s.capabilities.includes("permission-v2") || s.scopes.some((scope) => V2_SCOPE.test(scope));
  const v1 =
    s.capabilities.includes("permission-v1") ||
    s.scopes.some((scope) => V1_SCOPE.test(scope)) ||
    // SMART v1 is what a server speaks that publishes SMART and says nothing of v2.
    (s.published && !v2);
  return {
    v1,
    v2,
    pkceS256: s.challengeMethods.includes("S256"),
    pkcePlain: s.challengeMethods.includes("plain"),
    launchEhr: s.capabilities.includes("launch-ehr"),
    launchStandalone: s.capabilities.includes("launch-standalone"),
    backendServices: s.grantTypes.includes("client_credentials") && asymmetric(s),
    authorizeUrl: s.authorizeUrl,
    tokenUrl: s.tokenUrl,
    scopes: s.scopes,
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

const LANTERN = "ONC Lantern R4 validation (lantern-back-end capabilityhandler/validation/r4validation.go)";
const SMART_DISCOVERY = "SMART App Launch 2.x, Conformance: /.well-known/smart-configuration";
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

const httpsEndpoint = (url: string | null, what: string) =>
  url === null
    ? { ok: false, detail: `no ${what}` }
    : /^https:\/\//i.test(url)
      ? { ok: true, detail: url }
      : { ok: false, detail: `${url} is not https` };

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
    source: `${LANTERN}; FHIR R4 http.html#capabilities`,
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
    source: LANTERN,
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
    source: `${LANTERN}; FHIR R4 capabilitystatement.html`,
    run: onStatement((statement) => {
      const kind = asString(statement.kind);
      return { ok: kind === "instance", detail: kind === null ? "no kind" : `kind is ${kind}` };
    }),
  },
  {
    id: "format-json",
    verifies:
      "`format` lists JSON (`json`, `application/json`, `application/fhir+json` or DSTU2's `application/json+fhir`)",
    source: `${LANTERN} (MimeTypeValid); FHIR R4 http.html#mime-type`,
    run: onStatement((statement) => {
      const formats = strings(statement.format);
      const ok = formats.some((f) => /^(json|application\/(fhir\+)?json|application\/json\+fhir)(;|$)/i.test(f));
      return { ok, detail: formats.length === 0 ? "no format" : `format: ${formats.join(", ")}` };
    }),
  },
  {
    id: "describes-software",
    verifies: "`software` or `implementation` is present",
    source: `${LANTERN} (DescribeEndpointValid, KindValid)`,
    run: onStatement((statement) => {
      const present = ["software", "implementation"].filter((key) => asObject(statement[key]) !== null);
      return { ok: present.length > 0, detail: present.length > 0 ? present.join(" and ") : "neither" };
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
    source: `${LANTERN} (SmartHTTPResponseValid); ${SMART_DISCOVERY}`,
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
    source: `${LANTERN} (UniqueResources); FHIR R4 capabilitystatement.html cpb-9`,
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
    source: `${LANTERN} (SearchParamsUnique); FHIR R4 capabilitystatement.html cpb-12`,
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
    id: "smart-authorize-endpoint",
    verifies:
      "an authorization endpoint is published (SMART configuration, or the statement's oauth-uris extension) and is https",
    source: SMART_DISCOVERY,
    run: (c) =>
      !c.probed ? NOT_PROBED : httpsEndpoint(c.sources.authorizeUrl, "authorization_endpoint or oauth-uris authorize"),
  },
  {
    id: "smart-token-endpoint",
    verifies:
      "a token endpoint is published (SMART configuration, or the statement's oauth-uris extension) and is https",
    source: SMART_DISCOVERY,
    run: (c) => (!c.probed ? NOT_PROBED : httpsEndpoint(c.sources.tokenUrl, "token_endpoint or oauth-uris token")),
  },
  {
    id: "smart-pkce-s256",
    verifies: "`code_challenge_methods_supported` includes `S256`",
    source: `${SMART_DISCOVERY} (PKCE is required in SMART 2)`,
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
    source: `${SMART_DISCOVERY} (servers SHALL NOT support plain)`,
    run: onSmart((_, c) =>
      c.sources.challengeMethods.includes("plain")
        ? { ok: false, detail: "plain is supported" }
        : { ok: true, detail: "plain is not listed" },
    ),
  },
  {
    id: "smart-capabilities",
    verifies: "`capabilities` is published",
    source: SMART_DISCOVERY,
    run: publishedList("capabilities", (list) => `${list.length} capabilities`),
  },
  {
    id: "smart-grant-types",
    verifies: "`grant_types_supported` is published",
    source: SMART_DISCOVERY,
    run: publishedList("grant_types_supported", (list) => list.join(", ") || "empty"),
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
  RULES.filter((rule) => "handshake" in rule).map((rule) => rule.id),
);
/** Every check, in order: id, what it verifies and its source (the documented list). */
export const CHECKS: readonly { id: CheckId; verifies: string; source: string }[] = RULES.map(
  ({ id, verifies, source }) => ({ id, verifies, source }),
);

// --- verdict ------------------------------------------------------------------------------

function verdictOf(c: RuleContext, facets: CapabilityFacets): Verdict {
  if (!c.probed) {
    const unknown = { status: "unknown" as const, reasons: ["not probed yet"] };
    return { patientApps: unknown, providerApps: unknown, backendServices: unknown };
  }
  const s = facets.smart;
  const noSmart: AppVerdict = {
    status: "no",
    reasons: ["no SMART configuration and no OAuth URIs in the CapabilityStatement"],
  };
  if (!c.sources.published) return { patientApps: noSmart, providerApps: noSmart, backendServices: noSmart };
  const common: string[] = [];
  if (c.statement === null) common.push("not verified: /metadata returned no CapabilityStatement");
  const authorize = httpsEndpoint(s.authorizeUrl, "authorization endpoint");
  const token = httpsEndpoint(s.tokenUrl, "token endpoint");
  const launchApp = (launch: boolean, name: string): AppVerdict => {
    const reasons = [...common];
    if (!launch) reasons.push(`no ${name} in SMART capabilities`);
    if (!authorize.ok) reasons.push(authorize.detail);
    if (!token.ok) reasons.push(token.detail);
    if (!s.pkceS256) reasons.push("PKCE S256 not published");
    return { status: reasons.length === 0 ? "ready" : "partial", reasons };
  };
  const backend = (): AppVerdict => {
    const credentials = c.sources.grantTypes.includes("client_credentials");
    const asym = asymmetric(c.sources);
    const system =
      c.sources.capabilities.includes("permission-system") || s.scopes.some((scope) => scope.startsWith("system/"));
    // The Bulk Data IG requires SMART Backend Services of a server that exports.
    const bulk = facets.bulkData.system || facets.bulkData.group || facets.bulkData.patient;
    if (!credentials && !asym && !system && !bulk)
      return {
        status: "no",
        reasons: ["no client_credentials grant, asymmetric client authentication, system scopes or bulk export"],
      };
    const reasons = [...common];
    if (!credentials) reasons.push("no client_credentials in grant_types_supported");
    if (!asym) reasons.push("no private_key_jwt or client-confidential-asymmetric");
    if (!token.ok) reasons.push(token.detail);
    return { status: reasons.length === 0 ? "ready" : "partial", reasons };
  };
  return {
    patientApps: launchApp(s.launchStandalone, "launch-standalone"),
    providerApps: launchApp(s.launchEhr, "launch-ehr"),
    backendServices: backend(),
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
  };
  const checks = RULES.map((rule): Check => ({ id: rule.id, ...rule.run(context) }));
  return { facets, checks, verdict: verdictOf(context, facets) };
}

/** The `supports=` values a report's facets hold, in SUPPORTS order. */
export function supportsOf({ usCore, bulkData, smart }: CapabilityFacets): Supports[] {
  const holds: Record<Supports, boolean> = {
    "us-core": usCore.declared,
    "bulk-export": bulkData.system || bulkData.group || bulkData.patient,
    "smart-v2": smart.v2,
    pkce: smart.pkceS256,
    "backend-services": smart.backendServices,
    "launch-ehr": smart.launchEhr,
    "launch-standalone": smart.launchStandalone,
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
