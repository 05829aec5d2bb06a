/**
 * What real servers publish, probed for real and read back through the API: every /metadata
 * document and SMART configuration in ../shared/data/real-capabilities and ../shared/data/capabilities
 * is served by a local server, probed (the probe's own fetch, parse and store), and its facets,
 * some checks and the verdict compared with what a careful reader of that document expects.
 * The expectations were written by reading each document, not by running the rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { probeDue } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { insertEntry, json, SHARED_CAPABILITIES, serve, tempDb } from "./helpers";

const REAL = join(SHARED_CAPABILITIES, "../real-capabilities");
const HAS_DATA = existsSync(REAL) && existsSync(SHARED_CAPABILITIES);

type Status = "ready" | "partial" | "no";
interface Expected {
  /** /metadata document (under real-capabilities/metadata, or `capabilities/<file>`); none → 404. */
  metadata?: string;
  /** SMART configuration (under real-capabilities/smart, or `capabilities/<file>`); none → 404. */
  smart?: string;
  /** The release segment of the base URL (what the list's URL states). */
  segment: "dstu2" | "stu3" | "r4";
  usCore: [declared: boolean, versions: string[]];
  /** The bulk export levels declared: s(ystem), g(roup), p(atient). */
  bulk: string;
  /** The SMART flags that hold. */
  smartFlags: string[];
  urls?: [authorize: string | null, token: string | null];
  /** patientApps, providerApps, backendServices. */
  verdict: [Status, Status, Status];
  checks?: Record<string, boolean | null>;
}

const CERNER_TENANT = "https://authorization.cerner.com/tenants/ec2458f2-1e24-41c8-b71b-0e701af7583d/protocols/oauth2";
const FULL = ["v1", "v2", "pkceS256", "launchEhr", "launchStandalone", "backendServices"];
const NO_SMART: Pick<Expected, "smartFlags" | "verdict" | "urls"> = {
  smartFlags: [],
  verdict: ["no", "no", "no"],
  urls: [null, null],
};
/** SMART published only as OAuth URIs in the statement: v1, nothing to launch with, no PKCE. */
const OAUTH_URIS_ONLY: Pick<Expected, "smartFlags" | "verdict"> = {
  smartFlags: ["v1"],
  verdict: ["partial", "partial", "no"],
};

const SITES: Record<string, Expected> = {
  "1up-dstu2": {
    metadata: "1uphealth__dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "s",
    ...NO_SMART,
    checks: { "format-json": true, "kind-instance": true, "fhir-version-matches": true, "smart-configuration": false },
  },
  "1up-r4": {
    metadata: "1uphealth__r4.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "gp",
    ...OAUTH_URIS_ONLY,
    verdict: ["partial", "partial", "partial"],
    urls: ["https://auth.1up.health/oauth2/authorize/system", "https://auth.1up.health/oauth2/token"],
  },
  "1up-stu3": { metadata: "1uphealth__stu3.json", segment: "stu3", usCore: [false, []], bulk: "s", ...NO_SMART },
  aidbox: {
    metadata: "aidbox__sandbox-r4.json",
    smart: "aidbox__sandbox.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "g",
    smartFlags: FULL,
    urls: ["https://sandbox.aidbox.app/auth/authorize", "https://sandbox.aidbox.app/auth/token"],
    verdict: ["ready", "ready", "ready"],
    checks: { "describes-software": true, "smart-pkce-s256": true, "smart-no-pkce-plain": true },
  },
  "cerner-dstu2-open": {
    metadata: "cerner-millennium__fhircernercom-dstu2-open.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...NO_SMART,
    checks: { "describes-software": false, "patient-resource": true, "us-core-resource": true },
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
    ...NO_SMART,
    checks: { "fhir-version-matches": true },
  },
  "cerner-r4-open": {
    metadata: "cerner-millennium__fhircernercom-r4-open.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "",
    ...NO_SMART,
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
    smartFlags: ["v1", "launchEhr", "launchStandalone"],
    // No PKCE; system scopes but neither client_credentials nor asymmetric authentication.
    verdict: ["partial", "partial", "partial"],
    checks: { "smart-grant-types": false, "smart-capabilities": true, "smart-pkce-s256": false },
  },
  "cerner-r4-secure": {
    metadata: "cerner-millennium__fhircernercom-r4-secure.json",
    smart: "cerner-millennium__fhircernercom-r4.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "g",
    smartFlags: ["v1", "launchEhr", "launchStandalone", "backendServices"],
    urls: [
      `${CERNER_TENANT}/profiles/smart-v1/personas/provider/authorize`,
      `${CERNER_TENANT}/profiles/smart-v1/token`,
    ],
    verdict: ["partial", "partial", "ready"],
  },
  "cms-bfd-v1": {
    metadata: "cms-bfd__bluebutton-v1-stu3.json",
    segment: "stu3",
    usCore: [false, []],
    bulk: "",
    ...NO_SMART,
    checks: { "unique-search-params": false, "unique-resources": true },
  },
  "cms-bfd-v2": {
    metadata: "cms-bfd__bluebutton-v2-r4.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    ...NO_SMART,
    checks: { "unique-search-params": true },
  },
  ecw: {
    metadata: "eclinicalworks__fhir4-r4.json",
    smart: "eclinicalworks__fhir4.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "sg",
    smartFlags: FULL,
    verdict: ["ready", "ready", "ready"],
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
    smartFlags: FULL,
    verdict: ["ready", "ready", "ready"],
    checks: { "kind-instance": true, "format-json": true, "us-core-resource": true, "fhir-version-matches": true },
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
    smartFlags: ["v1"],
    urls: ["https://login.devoted.com/authorize", "https://login.devoted.com/oauth/token"],
    verdict: ["partial", "partial", "no"],
    checks: {
      "patient-resource": false,
      "smart-configuration": true,
      "smart-capabilities": false,
      "smart-grant-types": false,
      "smart-no-pkce-plain": true,
    },
  },
  "hapi-dstu2": {
    metadata: "hapi__inferno-community-hapi24-dstu2.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    // SMART v1's capabilities extension in the statement's security.
    smartFlags: ["v1", "launchEhr", "launchStandalone"],
    urls: ["https://sb-auth.smarthealthit.org/authorize", "https://sb-auth.smarthealthit.org/token"],
    verdict: ["partial", "partial", "no"],
  },
  "inferno-reference": {
    metadata: "inferno-reference-server__template.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "sgp",
    smartFlags: ["v1"],
    urls: ["$HOST/oauth/authorization", "$HOST/oauth/token"],
    verdict: ["partial", "partial", "partial"],
    checks: { "smart-authorize-endpoint": false, "smart-token-endpoint": false, "describes-software": true },
  },
  modmed: {
    metadata: "modmed__ema-r4.json",
    smart: "modmed__ema.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "sgp",
    // Asymmetric authentication by the client-confidential-asymmetric capability.
    smartFlags: FULL,
    verdict: ["ready", "ready", "ready"],
  },
  nextgen: {
    metadata: "nextgen-office__hapi-r4.json",
    smart: "nextgen-office__keycloak.json",
    segment: "r4",
    usCore: [true, []],
    bulk: "",
    smartFlags: FULL,
    verdict: ["ready", "ready", "ready"],
  },
  "bulk-r4": {
    metadata: "smarthealthit-bulk-data-server__inferno-bulkdata-kit.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "gp",
    smartFlags: ["v1"],
    urls: [null, "https://inferno.healthit.gov/bulk-data-server/auth/token"],
    verdict: ["partial", "partial", "partial"],
    checks: { "smart-authorize-endpoint": false, "smart-token-endpoint": true },
  },
  "bulk-stu3": {
    metadata: "smarthealthit-bulk-data-server__inferno-community-stu3.json",
    segment: "stu3",
    usCore: [false, []],
    bulk: "sgp",
    smartFlags: ["v1"],
    urls: [null, "https://bulk-data.smarthealthit.org/auth/token"],
    verdict: ["partial", "partial", "partial"],
    checks: { "patient-resource": false },
  },
  "smart-legacy": {
    metadata: "smarthealthit-legacy__clientpy-test-metadata-valid.json",
    segment: "dstu2",
    usCore: [false, []],
    bulk: "",
    ...OAUTH_URIS_ONLY,
    urls: ["https://authorize.smarthealthit.org/authorize", "https://authorize.smarthealthit.org/token"],
    checks: { "fhir-version-matches": false, "patient-resource": false, "describes-software": false },
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
    checks: { "kind-instance": false },
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
    smartFlags: ["v1"],
    verdict: ["partial", "partial", "partial"],
    checks: { "kind-instance": false, "patient-resource": false },
  },
  "test-r4": {
    metadata: "capabilities/test_r4_capability_statement.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    ...NO_SMART,
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
    verdict: ["partial", "partial", "no"],
    checks: { "capability-statement": false, "kind-instance": null, "smart-grant-types": false },
  },
  drchrono: {
    smart: "drchrono__everhealth-fhir.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: FULL,
    verdict: ["partial", "partial", "partial"],
  },
  "health-gorilla": {
    smart: "health-gorilla__www.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    // private_key_jwt only under the non-standard token_endpoint_auth_methods; no client_credentials.
    smartFlags: ["v1", "launchStandalone"],
    verdict: ["partial", "partial", "partial"],
  },
  "practice-fusion": {
    smart: "practice-fusion__api-practicefusion.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: FULL,
    verdict: ["partial", "partial", "partial"],
  },
  "cerner-smart-shared": {
    smart: "capabilities/authorization_cerner_smart_response.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: ["v1", "v2", "pkceS256", "launchEhr", "launchStandalone"],
    verdict: ["partial", "partial", "partial"],
  },
  "sandbox-smart-shared": {
    smart: "capabilities/fhir_sandbox_smart_response.json",
    segment: "r4",
    usCore: [false, []],
    bulk: "",
    smartFlags: ["v1", "launchEhr"],
    verdict: ["partial", "partial", "partial"],
  },
};

const read = (file: string, kind: "metadata" | "smart") =>
  readFileSync(
    file.startsWith("capabilities/")
      ? join(SHARED_CAPABILITIES, file.slice("capabilities/".length))
      : join(REAL, kind, file),
    "utf8",
  );

const server = serve({}, (request) => {
  const [, site, , ...rest] = new URL(request.url).pathname.split("/");
  const expected = SITES[site ?? ""];
  const path = rest.join("/");
  if (expected?.metadata && path === "metadata")
    return json(read(expected.metadata, "metadata"), 200, { "content-type": "application/fhir+json" });
  if (expected?.smart && path === ".well-known/smart-configuration") return json(read(expected.smart, "smart"));
  return new Response("not found", { status: 404 });
});

const ctx = tempDb();
const ids: Record<string, string> = {};
let app: ReturnType<typeof createTestApp>;

beforeAll(async () => {
  if (!HAS_DATA) return;
  for (const [site, expected] of Object.entries(SITES))
    ids[site] = insertEntry(ctx.db, { url: `${server.url}/${site}/${expected.segment}` });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 5000 });
  app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
});
afterAll(() => {
  server.stop();
  app?.directory.close();
  ctx.cleanup();
});

const FLAGS = ["v1", "v2", "pkceS256", "pkcePlain", "launchEhr", "launchStandalone", "backendServices"];

describe.skipIf(!HAS_DATA)("facets, checks and verdict of real published documents", () => {
  test("every document in the data has a site here", () => {
    const served = new Set(Object.values(SITES).flatMap((s) => [s.metadata, s.smart]));
    const metadata = ["metadata", "smart"].flatMap((kind) =>
      [...new Bun.Glob("*.json").scanSync(join(REAL, kind))].map((file) => file),
    );
    const shared = [...new Bun.Glob("*.json").scanSync(SHARED_CAPABILITIES)].map((file) => `capabilities/${file}`);
    for (const file of [...metadata, ...shared]) expect(served.has(file)).toBe(true);
  });

  for (const [site, expected] of Object.entries(SITES))
    test(`${site}: ${expected.metadata ?? "no /metadata"} + ${expected.smart ?? "no SMART configuration"}`, async () => {
      const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${ids[site]}/capabilities`));
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as { data: any };
      expect(data.probeStatus).toBe(expected.metadata && expected.smart ? "success" : "partial");
      const { usCore, bulkData, smart, tls } = data.summary;
      expect([usCore.declared, usCore.versions]).toEqual(expected.usCore);
      expect(bulkData).toEqual({
        system: expected.bulk.includes("s"),
        group: expected.bulk.includes("g"),
        patient: expected.bulk.includes("p"),
      });
      expect(FLAGS.filter((flag) => smart[flag])).toEqual(expected.smartFlags);
      if (expected.urls) expect([smart.authorizeUrl, smart.tokenUrl]).toEqual(expected.urls);
      expect(tls).toEqual({ protocol: null, certificateExpiresAt: null, issuer: null, verified: null });
      const { patientApps, providerApps, backendServices } = data.verdict;
      expect([patientApps.status, providerApps.status, backendServices.status]).toEqual(expected.verdict);
      for (const verdict of [patientApps, providerApps, backendServices])
        expect(verdict.reasons.length === 0).toBe(verdict.status === "ready");
      const checks = Object.fromEntries(data.checks.map((c: { id: string; ok: boolean | null }) => [c.id, c.ok]));
      for (const [id, ok] of Object.entries(expected.checks ?? {})) expect([id, checks[id]]).toEqual([id, ok]);
      expect(checks["capability-statement"]).toBe(expected.metadata !== undefined);
      expect(checks["smart-configuration"]).toBe(expected.smart !== undefined);
      // Served over http from 127.0.0.1: the TLS checks cannot apply; /metadata (a document or a 404)
      // answered on its own host.
      expect([checks["tls-1.2-or-later"], checks["certificate-valid-30-days"]]).toEqual([null, null]);
      expect(checks["metadata-on-same-host"]).toBe(true);
    });
});
