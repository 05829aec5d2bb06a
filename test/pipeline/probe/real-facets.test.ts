/**
 * What real servers publish, probed for real and read back through the API: every /metadata
 * document and SMART configuration in test/fixtures/real/real-capabilities and test/fixtures/real/capabilities
 * (and the hand-made ones in test/fixtures/probe/capability-sets, for what the data lacks) is
 * served by a local server over TLS (one site over plain http), probed (the probe's own fetch,
 * parse, handshake and store), and its facets, some checks and the verdict (statuses, the sets
 * each kind's verdict names, its notes and reasons) compared with what a careful reader of that
 * document expects. The expectations were written from SMART App Launch 2.2 (Conformance:
 * capability sets, the configuration's REQUIRED fields; Client Authentication: Asymmetric,
 * "Advertising server support", which Backend Services makes its discovery requirements) and FHIR
 * R4's CapabilityStatement invariants, reading each document, not by running the rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { probeDue } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { LANTERN_TEST_CAPABILITIES, SERVER_CAPABILITIES } from "../../support/real-data";
import { insertEntry, json, type Route, serve, serveTls, tempDb } from "./helpers";

const REAL = SERVER_CAPABILITIES;

type Status = "ready" | "partial" | "no" | "undeclared";
type Set =
  | "patient-standalone"
  | "patient-ehr-launch"
  | "clinician-ehr-launch"
  | "clinician-standalone"
  | "backend-services";
/** Both patient sets, both clinician sets: what a configuration declaring every launch capability holds. */
const PATIENT_BOTH: Set[] = ["patient-standalone", "patient-ehr-launch"];
const CLINICIAN_BOTH: Set[] = ["clinician-ehr-launch", "clinician-standalone"];
/** The Backend Services reason when the signing algorithms are not advertised (13 real servers). */
const NO_ALGS = "token_endpoint_auth_signing_alg_values_supported not advertised";
interface Expected {
  /** /metadata document (under real-capabilities/metadata, `capabilities/<file>` or `sets/<file>`); none → 404. */
  metadata?: string;
  /** SMART configuration (under real-capabilities/smart, `capabilities/<file>` or `sets/<file>`); none → 404. */
  smart?: string;
  /** The release segment of the base URL (what the list's URL states). */
  segment: "dstu2" | "stu3" | "r4";
  /** Served from a plain http base URL (every other site is served over TLS). */
  http?: true;
  usCore?: [declared: boolean, versions: string[]];
  /** The bulk export levels declared: s(ystem), g(roup), p(atient). */
  bulk?: string;
  /** The SMART flags that hold (FLAGS, in that order). */
  smartFlags?: string[];
  urls?: [authorize: string | null, token: string | null];
  /** How access is declared (summary.access.declared). */
  access: "smart-configuration" | "oauth-uris" | "security-service" | "none";
  /** patientApps, providerApps, backendServices. */
  verdict: [Status, Status, Status];
  /** Words each kind's reasons must contain, per kind (an app developer acts on them). */
  reasons?: [string[], string[], string[]];
  /** The sets each kind's verdict names (whole in the documents); none given: [] for every kind. */
  sets?: [Set[], Set[], Set[]];
  /** Each kind's notes, exactly; none given: [] for every kind. */
  notes?: [string[], string[], string[]];
  checks?: Record<string, boolean | null>;
}

const CERNER_TENANT = "https://authorization.cerner.com/tenants/ec2458f2-1e24-41c8-b71b-0e701af7583d/protocols/oauth2";
/** Every SMART flag but PKCE plain and the Backend Services set. */
const LAUNCHES = ["v1", "v2", "pkceS256", "launchEhr", "launchStandalone", "permissionOffline", "openIdConnect"];
/** No authorization declared at all: an open server, or one whose access is not published. */
const UNDECLARED: Pick<Expected, "smartFlags" | "verdict" | "urls" | "access"> = {
  smartFlags: [],
  verdict: ["undeclared", "undeclared", "undeclared"],
  urls: [null, null],
  access: "none",
};
/**
 * OAuth URIs in the statement alone (SMART v1's way): v1; the launches are offered but SMART 2.2's
 * /.well-known/smart-configuration and capabilities are missing; nothing of backend services.
 */
const OAUTH_URIS_ONLY: Pick<Expected, "smartFlags" | "verdict" | "access" | "reasons"> = {
  smartFlags: ["v1"],
  verdict: ["partial", "partial", "no"],
  access: "oauth-uris",
  reasons: [["no /.well-known/smart-configuration", "no SMART capabilities published"], [], []],
};
/** Served alone, without a /metadata document: never verified. */
const NOT_VERIFIED = "not verified: /metadata returned no CapabilityStatement";

const SITES: Record<string, Expected> = {
  "1up-dstu2": {
    metadata: "1uphealth__dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "s",
    ...UNDECLARED,
    checks: { "format-json": true, "kind-instance": true, "fhir-version-matches": true, "smart-configuration": false },
  },
  "1up-r4": {
    metadata: "1uphealth__r4.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "gp",
    ...OAUTH_URIS_ONLY,
    // A declared bulk export alone does not offer backend services.
    urls: ["https://auth.1up.health/oauth2/authorize/system", "https://auth.1up.health/oauth2/token"],
  },
  "1up-stu3": { metadata: "1uphealth__stu3.json", segment: "stu3", usCore: [false, []], bulk: "s", ...UNDECLARED },
  aidbox: {
    metadata: "aidbox__sandbox-r4.json",
    smart: "aidbox__sandbox.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "g",
    smartFlags: [
      "v1",
      "v2",
      "pkceS256",
      "launchEhr",
      "launchStandalone",
      "backendServices",
      "permissionOffline",
      "openIdConnect",
    ],
    urls: ["https://sandbox.aidbox.app/auth/authorize", "https://sandbox.aidbox.app/auth/token"],
    access: "smart-configuration",
    // Both patient and clinician sets whole, PKCE S256; the asymmetric profile's whole discovery
    // (the capability, scopes_supported, private_key_jwt, RS384).
    verdict: ["ready", "ready", "ready"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, ["backend-services"]],
    checks: {
      "describes-software": true,
      "instance-implementation": true,
      "smart-pkce-s256": true,
      "smart-no-pkce-plain": true,
      "smart-openid-connect": true,
      "smart-asymmetric-profile": true,
    },
  },
  "cerner-dstu2-open": {
    metadata: "cerner-millennium__fhircernercom-dstu2-open.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...UNDECLARED,
    // Only `description` describes it (cpb-2 accepts it); an instance without implementation (cpb-14).
    checks: {
      "describes-software": true,
      "instance-implementation": false,
      "patient-resource": true,
      "us-core-resource": true,
    },
  },
  "cerner-dstu2-secure": {
    metadata: "cerner-millennium__fhircernercom-dstu2-secure.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
    urls: [
      `${CERNER_TENANT}/profiles/smart-v1/personas/provider/authorize`,
      `${CERNER_TENANT}/profiles/smart-v1/token`,
    ],
    checks: { "smart-authorize-endpoint": true, "smart-token-endpoint": true, "smart-pkce-s256": false },
  },
  "cerner-r4-open-2019": {
    metadata: "cerner-millennium__fhircernercom-r4-open-2019.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    ...UNDECLARED,
    checks: { "fhir-version-matches": true },
  },
  "cerner-r4-open": {
    metadata: "cerner-millennium__fhircernercom-r4-open.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "",
    ...UNDECLARED,
  },
  "cerner-r4-secure-2019": {
    metadata: "cerner-millennium__fhircernercom-r4-secure-2019.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  "cerner-r4-secure-2022": {
    metadata: "cerner-millennium__fhircernercom-r4-secure-2022.json",
    smart: "cerner-millennium__fhircernercom-r4-2022.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    // sso-openid-connect without issuer or jwks_uri: not usable.
    smartFlags: ["v1", "launchEhr", "launchStandalone"],
    access: "smart-configuration",
    // The EHR-launch sets are whole, but no grant_types_supported (REQUIRED) and no PKCE; system
    // scopes offer backend services, without client_credentials or asymmetric authentication.
    // No context-standalone-patient: of the patient sets only the EHR launch (from a portal) is whole.
    verdict: ["partial", "partial", "partial"],
    sets: [["patient-ehr-launch"], CLINICIAN_BOTH, []],
    reasons: [
      ["no grant_types_supported (REQUIRED)", "code_challenge_methods_supported lacks S256"],
      ["no grant_types_supported (REQUIRED)", "code_challenge_methods_supported lacks S256"],
      [
        "client-confidential-asymmetric not declared",
        "token_endpoint_auth_methods_supported lists client_secret_basic but not private_key_jwt",
        NO_ALGS,
      ],
    ],
    checks: {
      "smart-grant-types": false,
      "smart-capabilities": true,
      "smart-pkce-s256": false,
      "smart-openid-connect": false,
    },
  },
  "cerner-r4-secure": {
    metadata: "cerner-millennium__fhircernercom-r4-secure.json",
    smart: "cerner-millennium__fhircernercom-r4.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "g",
    // The Backend Services set needs client-confidential-asymmetric declared (not the case here).
    smartFlags: ["v1", "launchEhr", "launchStandalone", "permissionOffline"],
    urls: [
      `${CERNER_TENANT}/profiles/smart-v1/personas/provider/authorize`,
      `${CERNER_TENANT}/profiles/smart-v1/token`,
    ],
    access: "smart-configuration",
    // No PKCE for the launches. private_key_jwt with RS384 and ES384, but capabilities lack
    // client-confidential-asymmetric, the way the asymmetric profile says a server advertises it.
    verdict: ["partial", "partial", "partial"],
    sets: [["patient-ehr-launch"], CLINICIAN_BOTH, []],
    reasons: [
      ["code_challenge_methods_supported lacks S256"],
      ["code_challenge_methods_supported lacks S256"],
      [
        "client-confidential-asymmetric not declared",
        "though token_endpoint_auth_methods_supported lists private_key_jwt",
      ],
    ],
    checks: { "smart-asymmetric-profile": false },
  },
  "cms-bfd-v1": {
    metadata: "cms-bfd__bluebutton-v1-stu3.json",
    segment: "stu3",
    usCore: [false, []],
    bulk: "",
    ...UNDECLARED,
    checks: { "unique-search-params": false, "unique-resources": true },
  },
  "cms-bfd-v2": {
    metadata: "cms-bfd__bluebutton-v2-r4.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    ...UNDECLARED,
    checks: { "unique-search-params": true },
  },
  ecw: {
    metadata: "eclinicalworks__fhir4-r4.json",
    smart: "eclinicalworks__fhir4.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "sg",
    smartFlags: LAUNCHES,
    access: "smart-configuration",
    // No token_endpoint_auth_signing_alg_values_supported: RS384/ES384 not named.
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [[], [], [NO_ALGS, "a client signing with RS384 or ES384"]],
  },
  "epic-dstu2": {
    metadata: "epic__sandbox-dstu2-may2026.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
    urls: [
      "https://fhir.epic.com/interconnect-fhir-oauth/oauth2/authorize",
      "https://fhir.epic.com/interconnect-fhir-oauth/oauth2/token",
    ],
  },
  "epic-r4": {
    metadata: "epic__sandbox-r4-may2026.json",
    smart: "epic__sandbox-r4.json",
    segment: "r4",
    usCore: [true, ["6.1.0"]],
    bulk: "g",
    smartFlags: LAUNCHES,
    access: "smart-configuration",
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [[], [], [NO_ALGS]],
    checks: {
      "kind-instance": true,
      "format-json": true,
      "us-core-resource": true,
      "fhir-version-matches": true,
      "smart-asymmetric-profile": false,
    },
  },
  "epic-stu3": {
    metadata: "epic__sandbox-stu3-may2026.json",
    segment: "stu3",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  devoted: {
    metadata: "hapi__devoted-health-provdir.json",
    smart: "devoted-health__minimal.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "",
    // Two URLs say nothing of SMART v1.
    smartFlags: [],
    urls: ["https://login.devoted.com/authorize", "https://login.devoted.com/oauth/token"],
    access: "smart-configuration",
    verdict: ["partial", "partial", "no"],
    reasons: [["capabilities not published as a list (REQUIRED)", "no grant_types_supported (REQUIRED)"], [], []],
    checks: {
      "patient-resource": false,
      "smart-configuration": true,
      "smart-capabilities": false,
      "smart-grant-types": false,
      "smart-no-pkce-plain": true,
      "smart-authorize-endpoint": true,
    },
  },
  "hapi-dstu2": {
    metadata: "hapi__inferno-community-hapi24-dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    // SMART v1's capabilities extension in the statement's security: whole sets, but no SMART configuration.
    smartFlags: ["v1", "launchEhr", "launchStandalone", "permissionOffline"],
    urls: ["https://sb-auth.smarthealthit.org/authorize", "https://sb-auth.smarthealthit.org/token"],
    access: "oauth-uris",
    verdict: ["partial", "partial", "no"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [["no /.well-known/smart-configuration"], ["no /.well-known/smart-configuration"], []],
  },
  "inferno-reference": {
    metadata: "inferno-reference-server__template.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "sgp",
    smartFlags: ["v1"],
    urls: ["$HOST/oauth/authorization", "$HOST/oauth/token"],
    access: "oauth-uris",
    verdict: ["partial", "partial", "no"],
    checks: { "smart-authorize-endpoint": false, "smart-token-endpoint": false, "describes-software": true },
  },
  modmed: {
    metadata: "modmed__ema-r4.json",
    smart: "modmed__ema.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "sgp",
    smartFlags: LAUNCHES,
    access: "smart-configuration",
    // client-confidential-asymmetric beside token_endpoint_auth_methods_supported of client_secret_post alone.
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [[], [], ["token_endpoint_auth_methods_supported lists client_secret_post but not private_key_jwt"]],
    checks: { "smart-asymmetric-profile": false, "smart-openid-connect": true },
  },
  nextgen: {
    metadata: "nextgen-office__hapi-r4.json",
    smart: "nextgen-office__keycloak.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "",
    smartFlags: LAUNCHES,
    access: "smart-configuration",
    // Neither scopes_supported nor the signing algorithms: two properties of one discovery sentence.
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [[], [], ["scopes_supported not advertised", NO_ALGS]],
  },
  "bulk-r4": {
    metadata: "smarthealthit-bulk-data-server__inferno-bulkdata-kit.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "gp",
    ...OAUTH_URIS_ONLY,
    urls: [null, "https://inferno.healthit.gov/bulk-data-server/auth/token"],
    // A token URI and no launch: the authorization endpoint is not required.
    checks: { "smart-authorize-endpoint": null, "smart-token-endpoint": true },
  },
  "bulk-stu3": {
    metadata: "smarthealthit-bulk-data-server__inferno-community-stu3.json",
    segment: "stu3",
    usCore: [false, []],
    bulk: "sgp",
    ...OAUTH_URIS_ONLY,
    urls: [null, "https://bulk-data.smarthealthit.org/auth/token"],
    checks: { "patient-resource": false, "smart-authorize-endpoint": null },
  },
  "smart-legacy": {
    metadata: "smarthealthit-legacy__clientpy-test-metadata-valid.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
    urls: ["https://authorize.smarthealthit.org/authorize", "https://authorize.smarthealthit.org/token"],
    checks: { "fhir-version-matches": false, "patient-resource": false, "describes-software": true },
  },
  smilecdr: {
    metadata: "smilecdr__jefferson-healthpartners-provdir.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
    checks: { "patient-resource": false, "us-core-resource": true },
  },
  "acp-stu3": {
    metadata: "capabilities/advantagecare_physicians_stu3.json",
    segment: "stu3",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  "allscripts-dstu2": {
    metadata: "capabilities/allscripts_capability_dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  "cerner-dstu2-prefixed": {
    metadata: "capabilities/cerner_capability_dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
    checks: { "smart-authorize-endpoint": true },
  },
  "epic-dstu2-ardent": {
    metadata: "capabilities/epic_capability_dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  "epic-stu3-cooper": {
    metadata: "capabilities/epic_capability_stu3.json",
    segment: "stu3",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  "meditech-dstu2": {
    metadata: "capabilities/meditech_capability_dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
    checks: { "kind-instance": false, "instance-implementation": null },
  },
  "cerner-dstu2-metadata": {
    metadata: "capabilities/metadata.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  "azure-r4": {
    metadata: "capabilities/supported_profiles_r4.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "sgp",
    ...OAUTH_URIS_ONLY,
    checks: { "kind-instance": false, "patient-resource": false },
  },
  "test-r4": {
    metadata: "capabilities/test_r4_capability_statement.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    // Names SMART-on-FHIR as its security service, but publishes neither a configuration nor OAuth URIs.
    smartFlags: [],
    access: "security-service",
    verdict: ["partial", "partial", "no"],
    reasons: [["SMART, not discoverable"], ["SMART, not discoverable"], []],
  },
  "wellstar-dstu2": {
    metadata: "capabilities/wellstar_capability_tester.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
  },
  // SMART configurations whose server's /metadata is not in the data: served alone, so not verified.
  aetna: {
    smart: "aetna__patient-access-sandbox.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: ["v1", "pkceS256", "launchStandalone"],
    access: "smart-configuration",
    // A standalone launch without patient context or patient scopes; nothing for clinicians.
    verdict: ["partial", "no", "no"],
    reasons: [
      [
        NOT_VERIFIED,
        "context-standalone-patient not declared (Patient Access for Standalone Apps)",
        "permission-patient not declared (Patient Access for Standalone Apps)",
      ],
      [],
      [],
    ],
    checks: { "capability-statement": false, "kind-instance": null, "smart-grant-types": false },
  },
  drchrono: {
    smart: "drchrono__everhealth-fhir.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: LAUNCHES,
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [[NOT_VERIFIED], [NOT_VERIFIED], [NOT_VERIFIED, NO_ALGS]],
  },
  "health-gorilla": {
    smart: "health-gorilla__www.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: ["v1", "launchStandalone", "permissionOffline"],
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
    reasons: [
      ["context-standalone-patient not declared"],
      ["permission-patient not declared (Clinician Access for Standalone)"],
      [
        "no grant_types_supported (REQUIRED)",
        "client-confidential-asymmetric not declared",
        // The key as published, not the standard one it stands for.
        "token_endpoint_auth_methods_supported not advertised",
        "the non-standard token_endpoint_auth_methods is published instead, listing none, client_secret_post, private_key_jwt",
        NO_ALGS,
      ],
    ],
  },
  "practice-fusion": {
    smart: "practice-fusion__api-practicefusion.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: LAUNCHES,
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [
      [NOT_VERIFIED],
      [NOT_VERIFIED],
      ["scopes_supported not advertised", "token_endpoint_auth_methods_supported not advertised", NO_ALGS],
    ],
  },
  "cerner-smart-shared": {
    smart: "capabilities/authorization_cerner_smart_response.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: ["v1", "v2", "pkceS256", "launchEhr", "launchStandalone"],
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
    sets: [["patient-ehr-launch"], CLINICIAN_BOTH, []],
  },
  "sandbox-smart-shared": {
    smart: "capabilities/fhir_sandbox_smart_response.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: ["v1", "launchEhr"],
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
  },
  // Hand-made from real documents (test/fixtures/probe/capability-sets/README.md): what the data lacks.
  "clinician-standalone": {
    metadata: "epic__sandbox-r4-may2026.json",
    smart: "sets/smart-clinician-standalone.json",
    segment: "r4",
    access: "smart-configuration",
    // Clinician Access for Standalone is whole; patients lack context-standalone-patient.
    verdict: ["partial", "ready", "partial"],
    sets: [[], ["clinician-standalone"], []],
    reasons: [
      ["context-standalone-patient not declared (Patient Access for Standalone Apps)"],
      [],
      ["client-confidential-asymmetric not declared", NO_ALGS],
    ],
    notes: [
      [],
      [
        "ready for standalone clinician apps (Clinician Access for Standalone); apps launched from the EHR: missing launch-ehr, context-ehr-patient, context-ehr-encounter",
      ],
      [],
    ],
  },
  "no-grant-types": {
    metadata: "epic__sandbox-r4-may2026.json",
    smart: "sets/smart-no-grant-types.json",
    segment: "r4",
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [
      ["no grant_types_supported (REQUIRED)"],
      ["no grant_types_supported (REQUIRED)"],
      ["no grant_types_supported (REQUIRED)"],
    ],
    checks: { "smart-grant-types": false },
  },
  "http-base": {
    metadata: "epic__sandbox-r4-may2026.json",
    smart: "epic__sandbox-r4.json",
    segment: "r4",
    http: true,
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [["the base URL is not https"], ["the base URL is not https"], ["the base URL is not https", NO_ALGS]],
  },
  "soarian-dstu2": {
    metadata: "sets/dstu2-vendor-oauth-uris.json",
    segment: "dstu2",
    ...OAUTH_URIS_ONLY,
    urls: [
      `${CERNER_TENANT}/profiles/smart-v1/personas/provider/authorize`,
      `${CERNER_TENANT}/profiles/smart-v1/token`,
    ],
  },
  "capabilities-string": {
    metadata: "hapi__inferno-community-hapi24-dstu2.json",
    smart: "sets/smart-capabilities-string.json",
    segment: "dstu2",
    access: "smart-configuration",
    // The statement's v1 capabilities extension does not stand in for the configuration's own.
    smartFlags: ["pkceS256"],
    verdict: ["partial", "partial", "partial"],
    reasons: [
      ["capabilities not published as a list (REQUIRED)"],
      ["capabilities not published as a list (REQUIRED)"],
      ["client-confidential-asymmetric not declared"],
    ],
    checks: { "smart-capabilities": false },
  },
  "authorize-no-host": {
    metadata: "epic__sandbox-r4-may2026.json",
    smart: "sets/smart-authorize-no-host.json",
    segment: "r4",
    access: "smart-configuration",
    verdict: ["partial", "partial", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [["authorization_endpoint https:// is not an https URL with a host"], [], []],
    checks: { "smart-authorize-endpoint": false },
  },
  "soarian-hyphen-dstu2": {
    metadata: "sets/dstu2-vendor-hyphen-oauth-uris.json",
    segment: "dstu2",
    // `…/StructureDefinition/soarian-oauth-uris` ends in `oauth-uris`: the same OAuth URIs.
    ...OAUTH_URIS_ONLY,
    urls: [
      `${CERNER_TENANT}/profiles/smart-v1/personas/provider/authorize`,
      `${CERNER_TENANT}/profiles/smart-v1/token`,
    ],
  },
  "smart-named-no-discovery": {
    metadata: "sets/r4-smart-named-no-discovery.json",
    segment: "r4",
    smartFlags: [],
    urls: [null, null],
    access: "security-service",
    // SMART, but an app cannot discover where to authorize; nothing says backend services.
    verdict: ["partial", "partial", "no"],
    reasons: [
      ["SMART, not discoverable", "neither /.well-known/smart-configuration nor OAuth URIs"],
      ["SMART, not discoverable"],
      ["declares no client_credentials grant"],
    ],
  },
  "empty-capabilities": {
    metadata: "epic__sandbox-r4-may2026.json",
    smart: "sets/smart-empty-capabilities.json",
    segment: "r4",
    access: "smart-configuration",
    // An empty list declares no capability set (from this list a client determines the sets).
    verdict: ["no", "no", "partial"],
    reasons: [
      ["capabilities is an empty list", "declares no capability set"],
      ["capabilities is an empty list"],
      [
        "client-confidential-asymmetric not declared",
        "though token_endpoint_auth_methods_supported lists private_key_jwt",
      ],
    ],
    checks: { "smart-capabilities": true },
  },
  "patient-ehr-launch-only": {
    metadata: "epic__sandbox-r4-may2026.json",
    smart: "sets/smart-patient-ehr-launch-only.json",
    segment: "r4",
    access: "smart-configuration",
    // Patient Access for EHR Launch (from a portal) counts for patient apps, with a note.
    verdict: ["ready", "ready", "partial"],
    sets: [["patient-ehr-launch"], CLINICIAN_BOTH, []],
    reasons: [[], [], [NO_ALGS]],
    notes: [
      [
        "ready for apps launched from the patient portal (Patient Access for EHR Launch); standalone patient apps: missing context-standalone-patient",
      ],
      [],
      [],
    ],
  },
  "no-auth-methods": {
    metadata: "aidbox__sandbox-r4.json",
    smart: "sets/smart-no-auth-methods.json",
    segment: "r4",
    access: "smart-configuration",
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [[], [], ["token_endpoint_auth_methods_supported not advertised", "whether private_key_jwt is accepted"]],
    checks: { "smart-asymmetric-profile": false },
  },
  "no-scopes": {
    metadata: "aidbox__sandbox-r4.json",
    smart: "sets/smart-no-scopes.json",
    segment: "r4",
    access: "smart-configuration",
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [[], [], ["scopes_supported not advertised"]],
    checks: { "smart-asymmetric-profile": false },
  },
  "private-key-jwt-without-capability": {
    metadata: "aidbox__sandbox-r4.json",
    smart: "sets/smart-private-key-jwt-without-capability.json",
    segment: "r4",
    access: "smart-configuration",
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [
      [],
      [],
      [
        "client-confidential-asymmetric not declared",
        "though token_endpoint_auth_methods_supported lists private_key_jwt",
      ],
    ],
    checks: { "smart-asymmetric-profile": false },
  },
  "nonstandard-auth-methods": {
    metadata: "aidbox__sandbox-r4.json",
    smart: "sets/smart-nonstandard-auth-methods.json",
    segment: "r4",
    access: "smart-configuration",
    verdict: ["ready", "ready", "partial"],
    sets: [PATIENT_BOTH, CLINICIAN_BOTH, []],
    reasons: [
      [],
      [],
      [
        "token_endpoint_auth_methods_supported not advertised",
        "the non-standard token_endpoint_auth_methods is published instead, listing client_secret_post, client_secret_basic, private_key_jwt",
      ],
    ],
  },
};

const SETS = join(import.meta.dir, "../../fixtures/probe/capability-sets");
const read = (file: string, kind: "metadata" | "smart") =>
  readFileSync(
    file.startsWith("capabilities/")
      ? join(LANTERN_TEST_CAPABILITIES, file.slice("capabilities/".length))
      : file.startsWith("sets/")
        ? join(SETS, file.slice("sets/".length))
        : join(REAL, kind, file),
    "utf8",
  );

const route: Route = (request) => {
  const [, site, , ...rest] = new URL(request.url).pathname.split("/");
  const expected = SITES[site ?? ""];
  const path = rest.join("/");
  if (expected?.metadata && path === "metadata")
    return json(read(expected.metadata, "metadata"), 200, { "content-type": "application/fhir+json" });
  if (expected?.smart && path === ".well-known/smart-configuration") return json(read(expected.smart, "smart"));
  return new Response("not found", { status: 404 });
};
const tls = serveTls(route);
const plain = serve({}, route);

const ctx = tempDb();
const ids: Record<string, string> = {};
let app: ReturnType<typeof createTestApp>;

beforeAll(async () => {
  for (const [site, expected] of Object.entries(SITES))
    ids[site] = insertEntry(ctx.db, { url: `${expected.http ? plain.url : tls.url}/${site}/${expected.segment}` });
  await probeDue(ctx.db, { ...tls.probeOptions, timeoutMs: 5000 });
  app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
});
afterAll(() => {
  tls.stop();
  plain.stop();
  app?.directory.close();
  ctx.cleanup();
});

const FLAGS = [
  "v1",
  "v2",
  "pkceS256",
  "pkcePlain",
  "launchEhr",
  "launchStandalone",
  "backendServices",
  "permissionOffline",
  "openIdConnect",
];

describe("facets, checks and verdict of real published documents", () => {
  test("every document in the data has a site here", () => {
    const served = new Set(Object.values(SITES).flatMap((s) => [s.metadata, s.smart]));
    const metadata = ["metadata", "smart"].flatMap((kind) =>
      [...new Bun.Glob("*.json").scanSync(join(REAL, kind))].map((file) => file),
    );
    const shared = [...new Bun.Glob("*.json").scanSync(LANTERN_TEST_CAPABILITIES)].map(
      (file) => `capabilities/${file}`,
    );
    const sets = [...new Bun.Glob("*.json").scanSync(SETS)].map((file) => `sets/${file}`);
    for (const file of [...metadata, ...shared, ...sets]) expect([file, served.has(file)]).toEqual([file, true]);
  });

  for (const [site, expected] of Object.entries(SITES))
    test(`${site}: ${expected.metadata ?? "no /metadata"} + ${expected.smart ?? "no SMART configuration"}`, async () => {
      const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${ids[site]}/capabilities`));
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as { data: any };
      expect(data.probeStatus).toBe(expected.metadata && expected.smart ? "success" : "partial");
      const { usCore, bulkData, smart, access } = data.summary;
      if (expected.usCore) expect([usCore.declared, usCore.versions]).toEqual(expected.usCore);
      if (expected.bulk !== undefined)
        expect(bulkData).toEqual({
          system: expected.bulk.includes("s"),
          group: expected.bulk.includes("g"),
          patient: expected.bulk.includes("p"),
        });
      if (expected.smartFlags) expect(FLAGS.filter((flag) => smart[flag])).toEqual(expected.smartFlags);
      if (expected.urls) expect([smart.authorizeUrl, smart.tokenUrl]).toEqual(expected.urls);
      expect(access.declared).toBe(expected.access);
      const { patientApps, providerApps, backendServices } = data.verdict;
      expect([patientApps.status, providerApps.status, backendServices.status]).toEqual(expected.verdict);
      expect([patientApps.sets, providerApps.sets, backendServices.sets]).toEqual(expected.sets ?? [[], [], []]);
      expect([patientApps.notes, providerApps.notes, backendServices.notes]).toEqual(expected.notes ?? [[], [], []]);
      [patientApps, providerApps, backendServices].forEach((verdict, i) => {
        expect(verdict.reasons.length === 0).toBe(verdict.status === "ready");
        for (const words of expected.reasons?.[i] ?? [])
          expect([words, verdict.reasons.some((reason: string) => reason.includes(words))]).toEqual([words, true]);
      });
      const checks = Object.fromEntries(data.checks.map((c: { id: string; ok: boolean | null }) => [c.id, c.ok]));
      for (const [id, ok] of Object.entries(expected.checks ?? {})) expect([id, checks[id]]).toEqual([id, ok]);
      expect(checks["capability-statement"]).toBe(expected.metadata !== undefined);
      expect(checks["smart-configuration"]).toBe(expected.smart !== undefined);
      // Over TLS the handshake is measured; from an http base the TLS checks cannot apply.
      expect(checks["tls-1.2-or-later"]).toBe(expected.http ? null : true);
      expect(data.summary.tls.protocol === null).toBe(expected.http === true);
      expect(checks["metadata-on-same-host"]).toBe(true);
    });
});
