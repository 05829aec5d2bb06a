import { type Static, type TLiteral, Type } from "@sinclair/typebox";
import { capabilityReport, READY, SUPPORTS } from "./capability-rules";
import { ChecksSchema, FacetSchemas, VerdictSchema } from "./capability-schemas";
import { ENVIRONMENT_CODES, ENVIRONMENT_RULES, ENVIRONMENTS } from "./environment";
import {
  FHIR_VERSION_BASES,
  STATE_EVIDENCE,
  UNUSABLE_REASONS,
  URL_EVIDENCE,
  URL_REPAIRS,
  VERSION_EVIDENCE,
} from "./evidence";
import { REQUEST_CAPS } from "./request-caps";
import { AUDIENCES, ENDPOINT_STATUSES, FHIR_VERSIONS, FILTERABLE_FHIR_VERSIONS, PROBE_STATUSES } from "./types";
import { US_STATE_CODES } from "./us-states";
import { VENDOR_KINDS } from "./vendors";

/** One literal schema per value, typed as such, so `Static` of their union is the union of the values. */
const literals = <const Values extends readonly string[]>(values: Values) =>
  values.map((value) => Type.Literal(value)) as unknown as { -readonly [K in keyof Values]: TLiteral<Values[K]> };

/**
 * A string limited to `values`, checked by pattern. (A union of literals would validate the same,
 * but the OpenAPI plugin turns it into a bare enum and drops its description.)
 */
const oneOf = (values: readonly string[], options: { "x-error": string; description: string; examples: string[] }) =>
  Type.String({ pattern: `^(?:${values.join("|")})$`, enum: [...values], ...options });

/** The longest comma list of every value once, a space either side of each comma: a list's length cap. */
const commaListLength = (values: readonly string[]) => values.join(" , ").length;

const PAGE_MESSAGE = "page: must be a whole number from 1 to 1000";
const LIMIT_MESSAGE = "limit: must be a whole number from 1 to 100";
const MAX_QUERY_LENGTH = REQUEST_CAPS.valueChars;
/** The list's orders (`sort=`): by name match, the default order, by distance from `near`. */
const LIST_SORTS = ["relevance", "name", "distance"] as const;
/** The most miles `radius` may reach, and its default. */
export const MAX_RADIUS_MILES = 100;
export const DEFAULT_RADIUS_MILES = 25;
export type ListSort = (typeof LIST_SORTS)[number];

export const ListQuery = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: MAX_QUERY_LENGTH,
        "x-error": `query: must be at most ${MAX_QUERY_LENGTH} characters`,
        description:
          'Keyword search across organization name. Case- and accent-insensitive; split into words on anything that is not a letter or digit; every word must be the prefix of some word of the name (`mass gen` finds "Massachusetts General Hospital"). Characters such as `% _ * " ( :` are plain text. Empty or whitespace-only means no filter. ' +
          `At most ${MAX_QUERY_LENGTH} characters and ${REQUEST_CAPS.words} distinct words.`,
        examples: ["mass gen"],
      }),
    ),
    vendor: Type.Optional(
      Type.String({
        maxLength: 100,
        "x-error": "vendor: must be a vendor id of at most 100 characters",
        description: "Exact match on vendor id (see /api/v1/vendors).",
        examples: ["epic"],
      }),
    ),
    kind: Type.Optional(
      oneOf(VENDOR_KINDS, {
        "x-error": `kind: must be ${VENDOR_KINDS.join(" or ")}`,
        description:
          "The kind of the entry's developer (see /api/v1/vendors): `ehr`, a certified health IT developer; `payer`, a health plan or program's Patient Access API.",
        examples: ["payer"],
      }),
    ),
    state: Type.Optional(
      oneOf(US_STATE_CODES, {
        "x-error": "state: must be a two-letter uppercase USPS state, district or territory code such as CA",
        description: "Two-letter USPS state, district or territory code, uppercase.",
        examples: ["CA"],
      }),
    ),
    fhirVersion: Type.Optional(
      oneOf(FILTERABLE_FHIR_VERSIONS, {
        "x-error": `fhirVersion: must be one of ${FILTERABLE_FHIR_VERSIONS.join(", ")}`,
        description: "FHIR version of the endpoint.",
        examples: ["R4"],
      }),
    ),
    access: Type.Optional(
      oneOf(AUDIENCES, {
        "x-error": "access: must be patient or provider",
        description: "Audience the endpoint serves.",
        examples: ["patient"],
      }),
    ),
    hasResource: Type.Optional(
      Type.String({
        maxLength: 1300,
        "x-error": `hasResource: must be a comma-separated list of at most ${REQUEST_CAPS.resourceTypes} FHIR resource type names`,
        description: `Comma-separated FHIR resource type names (each \`^[A-Z][A-Za-z]{1,63}$\`, spaces around commas ignored, at most ${REQUEST_CAPS.resourceTypes}); only endpoints whose server supports all of them. A well-formed name no server supports matches nothing.`,
        examples: ["Patient,Observation"],
      }),
    ),
    smartSupported: Type.Optional(
      oneOf(["true", "false"], {
        "x-error": "smartSupported: must be true or false",
        description: "`true`: only endpoints whose probe returned a SMART configuration; `false`: only the others.",
        examples: ["true"],
      }),
    ),
    supports: Type.Optional(
      Type.String({
        maxLength: commaListLength(SUPPORTS),
        "x-error": `supports: must be a comma-separated list of at most ${SUPPORTS.length} of ${SUPPORTS.join(", ")}`,
        description: `Comma-separated, each must hold (docs/api.md, Facets): ${SUPPORTS.map((v) => `\`${v}\``).join(", ")}. \`us-core\`: a US Core canonical is declared; \`bulk-export\`: \`$export\` at some level; \`smart-v2\`, \`pkce\` (S256), \`backend-services\`, \`launch-ehr\`, \`launch-standalone\`: the SMART facets of those names; \`permission-offline\`, \`sso-openid-connect\` (with https issuer and jwks_uri), \`dynamic-registration\` (an https registration_endpoint) and the client types: what the SMART configuration declares; \`carin-bb\`, \`davinci-pdex\`, \`plan-net\`: the payer implementation guide is declared (CARIN Blue Button, Da Vinci PDex, PDex Plan Net); \`explanation-of-benefit\`: the server supports ExplanationOfBenefit. Spaces around commas ignored; an unknown value → 400.`,
        examples: ["pkce,launch-standalone"],
      }),
    ),
    ready: Type.Optional(
      Type.String({
        maxLength: 100,
        "x-error": `ready: must be a comma-separated list of ${READY.join(", ")}`,
        description: `Comma-separated app kinds whose verdict must be \`ready\` (docs/api.md, Verdict): ${READY.map((v) => `\`${v}\``).join(", ")}. Ready by any set of the kind counts: \`patient-apps\` by Patient Access for Standalone Apps or for EHR Launch (from a portal; the verdict's note says so), \`provider-apps\` by Clinician Access for EHR Launch or for Standalone, \`backend-services\` by SMART Backend Services.`,
        examples: ["patient-apps"],
      }),
    ),
    environment: Type.Optional(
      oneOf(ENVIRONMENTS, {
        "x-error": `environment: must be ${ENVIRONMENTS.join(" or ")}`,
        description:
          "`production`, or `non-production`: test, QA, demo, sandbox, development, staging and training servers and placeholder organizations, by the rules of docs/api.md (Environment). Without it, both are listed.",
        examples: ["production"],
      }),
    ),
    npi: Type.Optional(
      Type.String({
        maxLength: 10,
        pattern: "^[0-9]{10}$",
        "x-error": "npi: must be a 10-digit National Provider Identifier",
        description:
          "Exact 10-digit NPI, as the vendor published it; its check digit must be valid (Luhn over `80840` and the first nine digits), else 400 naming it. Only entries published with an NPI can match.",
        examples: ["1234567893"],
      }),
    ),
    host: Type.Optional(
      Type.String({
        maxLength: 253,
        pattern: "^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*\\.?$",
        "x-error": "host: must be a host name or domain such as epic.com (no scheme, port or path)",
        description:
          "A host name or a domain, case-insensitive: entries whose URL's host is it or ends in `.` and it (`epic.com` finds `fhir.epic.com`, not `notepic.com`).",
        examples: ["epic.com"],
      }),
    ),
    url: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: "^[A-Za-z][A-Za-z0-9+.-]*://",
        "x-error": "url: must be an absolute URL of at most 2048 characters",
        description:
          "Exact FHIR base URL, normalised as ids are (scheme and host lowercased, trailing slashes removed; the path is case-sensitive).",
        examples: ["https://fhir.example.org/r4"],
      }),
    ),
    city: Type.Optional(
      Type.String({
        maxLength: 100,
        "x-error": "city: must be a city name of at most 100 characters",
        description:
          "The whole city name, case- and accent-insensitive, punctuation and spacing ignored (`st. louis` finds St. Louis). Only entries whose list gives a city can match.",
        examples: ["Cleveland"],
      }),
    ),
    near: Type.Optional(
      Type.String({
        maxLength: 10,
        pattern: "^[0-9]{5}(?:-[0-9]{4})?$",
        "x-error": "near: must be a 5-digit US ZIP code",
        description: `A US ZIP code (ZIP+4 read as its first five digits): entries within \`radius\` miles of it, nearest first (\`sort=name\` for the default order), each one's distance in \`meta.distance\`. An entry is placed at its ZIP's point in the committed ZIP table, or, without a known ZIP, at the mean point of its city's ZIPs; entries with neither are not found. Straight-line miles, offline. A ZIP the table does not know → 400.`,
        examples: ["44195"],
      }),
    ),
    radius: Type.Optional(
      Type.String({
        pattern: "^(?:[0-9]{1,3})(?:\\.[0-9]{1,2})?$",
        "x-error": `radius: must be a number of miles from 0 to ${MAX_RADIUS_MILES}, only beside near`,
        description: `Miles from \`near\`'s ZIP, 0 to ${MAX_RADIUS_MILES} (default ${DEFAULT_RADIUS_MILES}); only beside \`near\`.`,
        examples: ["25"],
      }),
    ),
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 1,
        "x-error": PAGE_MESSAGE,
        description: "1-based page number, 1 to 1000.",
        examples: [1],
      }),
    ),
    sort: Type.Optional(
      oneOf(LIST_SORTS, {
        "x-error": "sort: must be relevance (beside a query), name, or distance (beside near)",
        description:
          "`relevance`, beside a `query` only: whole-name matches first (as many words as the query, each starting with the query's word at its place), then names where every query word starts a word in the query's order, then the rest; ties in the default order (with `near`: nearest first). `name`: the default order. `distance`, beside `near` only: nearest first, which is also `near`'s order without `sort`. Without it, the default order, or nearest first with `near`.",
        examples: ["relevance"],
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 25,
        "x-error": LIMIT_MESSAGE,
        description: "Results per page, 1 to 100.",
        examples: [25],
      }),
    ),
  },
  { additionalProperties: false },
);

// page and limit are TypeBox's own Integer, not Elysia's Type.Integer/Type.Numeric: those carry a
// string-to-number transform that Elysia runs twice a request; the route's transform hook
// turns the (already digit-checked) strings into numbers before validation instead.
export const LIST_QUERY_KEYS = new Set(Object.keys(ListQuery.properties));
export const LIST_INTEGER_MESSAGES = { page: PAGE_MESSAGE, limit: LIMIT_MESSAGE };
export const LIST_INTEGER_KEYS = Object.keys(LIST_INTEGER_MESSAGES);
/** The list's order parameter: the export, which has no order to choose, leaves it out. */
export const LIST_ORDER_KEYS = ["sort"] as const;

const nullableString = (description: string, example: string | null) =>
  Type.Union([Type.String(), Type.Null()], { description, examples: [example] });

export const EndpointRecordSchema = Type.Object(
  {
    id: Type.String({
      description:
        "64 lowercase hex characters: SHA-256 of `vendorId \\n canonicalUrl \\n orgKey` (orgKey = NPI, else lowercased organization name, else empty). Stable across refreshes.",
      pattern: "^[0-9a-f]{64}$",
    }),
    url: Type.String({
      description: "FHIR base URL; scheme and host lowercased, no trailing slash.",
      examples: ["https://fhir.example.org/r4"],
    }),
    vendorName: Type.String({ description: "EHR vendor display name.", examples: ["Epic Systems"] }),
    vendorId: Type.String({ description: "Vendor id; the value of the `vendor` filter.", examples: ["epic"] }),
    organizationName: nullableString("Healthcare organization name.", "Massachusetts General Hospital"),
    npi: nullableString("10-digit National Provider Identifier, when the vendor published one.", "1234567893"),
    tenantId: nullableString(
      "Tenant or practice id read from the URL by per-vendor rules; null where the URL carries none.",
      null,
    ),
    fhirVersion: Type.Union(literals(FHIR_VERSIONS), {
      description: "From the probed CapabilityStatement; before a probe, from what the list says; else UNKNOWN.",
    }),
    access: Type.Array(Type.Union(literals(AUDIENCES)), {
      description:
        '`[]`, `["patient"]`, `["provider"]` or `["patient","provider"]`: from SMART capabilities, else from the list\'s audience.',
    }),
    city: nullableString("City.", "Boston"),
    state: nullableString("USPS two-letter code.", "MA"),
    zipCode: nullableString("5-digit ZIP or ZIP+4 as published.", "02114"),
    status: Type.Union(literals(ENDPOINT_STATUSES), {
      description:
        "listed: published by the vendor; verified: the last probe returned a CapabilityStatement; unresponsive: the last probe could not reach the server; removed: gone from the vendor's list (no longer in the list operation, vendor counts or stats; still answers by id and capabilities). HTTP errors (401, 403, 5xx) do not change it.",
    }),
    lastUpdated: Type.String({ format: "date-time", description: "When this entry's data last changed." }),
    environment: Type.Union(literals(ENVIRONMENTS), {
      description:
        "production, or non-production: a test, QA, demo, sandbox, development, staging or training server, or a placeholder organization, by whole-word rules on its host, path and organization name (docs/api.md, Environment; the rule in `meta.environment` by id and in /source). Non-production entries are listed but left out of the brands bundle and the capability statistics.",
    }),
    urlRepair: Type.Optional(
      Type.Union(literals(URL_REPAIRS), {
        description:
          "Present only when `url` is not the text the list published but a repair of it: cleaned (junk before the scheme, whitespace beside a delimiter or a loopback address before the host removed), scheme-assumed (https:// added before a bare host name), host-guessed (a relative path given the host of the list's other URLs of its shape: a guess, left out of the brands bundle until a probe verifies it). /source gives the published text (docs/api.md, Enrichment).",
      }),
    ),
  },
  { description: "One organization's FHIR endpoint as a vendor publishes it." },
);

const ENDPOINT_EXAMPLE: Static<typeof EndpointRecordSchema> = {
  id: "536e0e0884148050bc026e5524449abd886ac72062eec8db25a12ab87d42f038",
  url: "https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4",
  vendorName: "Epic Systems",
  vendorId: "epic",
  organizationName: "St. Mary's Hospital",
  npi: "1234567893",
  tenantId: null,
  fhirVersion: "R4",
  access: ["patient", "provider"],
  city: "Charleston",
  state: "WV",
  zipCode: "25398",
  status: "verified",
  lastUpdated: "2026-11-03T04:00:00.000Z",
  environment: "production",
};

export const ListResponse = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(EndpointRecordSchema),
    meta: Type.Object({
      total: Type.Integer({ minimum: 0, description: "Matching entries before pagination." }),
      page: Type.Integer({ minimum: 1, maximum: 1000 }),
      limit: Type.Integer({ minimum: 1, maximum: 100 }),
      fhirVersionBasis: Type.Array(Type.Union(literals(FHIR_VERSION_BASES)), {
        description:
          "For each item of `data`, in order: how its fhirVersion is known. probe: its CapabilityStatement; list: the list states it; url: its URL names it; certification: inferred from the developer's certified API, not seen; unknown: fhirVersion is UNKNOWN. (The record itself keeps the spec's fields.)",
      }),
      ready: Type.Array(Type.Array(Type.Union(literals(READY))), {
        description:
          "For each item of `data`, in order: the kinds of app its verdict says are ready (`ready=` values: patient-apps, provider-apps, backend-services); [] when none is (docs/api.md, Verdict).",
      }),
      distance: Type.Optional(
        Type.Array(Type.Number({ minimum: 0 }), {
          description:
            "With `near` only: for each item of `data`, in order, its straight-line miles from the ZIP's point, to 0.01 mile (from its ZIP's point, or its city's).",
        }),
      ),
    }),
  },
  {
    examples: [
      {
        success: true,
        data: [ENDPOINT_EXAMPLE],
        meta: {
          total: 1,
          page: 1,
          limit: 25,
          fhirVersionBasis: ["probe" as const],
          ready: [["patient-apps" as const]],
        },
      },
    ],
  },
);

/** Which environment rule makes an entry non-production, and what it found. */
const EnvironmentRuleSchema = Type.Object(
  {
    rule: Type.Union(literals(ENVIRONMENT_RULES.map((rule) => rule.id)), {
      description:
        "The rule's id (docs/api.md, Environment): host-*, path-* or name-* and what it looks for (test, qa, demo, sandbox, dev, staging, training, sample, placeholder).",
    }),
    code: Type.Union(literals(Object.keys(ENVIRONMENT_CODES).filter((code) => code !== "prod")), {
      description:
        "The rule's code of http://hl7.org/fhir/endpoint-environment (FHIR R5 Endpoint.environmentType): test, dev, staging or train.",
    }),
    found: Type.String({ description: "The host word, path word or part of the name the rule matched." }),
  },
  { description: "Why the entry is non-production." },
);

/**
 * `meta` of a by-id answer (the entry, its capabilities, availability and source): for an entry
 * kept out of the listings, why and what the rule found (`unusable`); for a non-production entry,
 * the environment rule (`environment`). Absent for every other entry.
 */
export const UnusableMeta = Type.Optional(
  Type.Object(
    {
      environment: Type.Optional(EnvironmentRuleSchema),
      unusable: Type.Optional(
        Type.Object(
          {
            reason: Type.Union(literals(UNUSABLE_REASONS), {
              description:
                "The rule: non-public-address, localhost, single-label-host, internal-suffix (an internal or reserved host name, or a developer's internal network), web-page (a document, not a server's base), query-or-fragment (a base URL has neither: `[base]/metadata` cannot be formed), near-miss-domain (a misspelling of a domain the same list uses), internal-host (an internal machine named without its internal subdomain), do-not-use, deleted, inactive, dummy (the organization name says so).",
            }),
            detail: Type.Union([Type.String(), Type.Null()], {
              description:
                "What the rule found, in words (the host, the name, the domain it misspells); null for entries stored before this was recorded.",
            }),
          },
          { description: "Why the entry is kept out of listings, counts, exports and /fhir." },
        ),
      ),
    },
    {
      description:
        "Only for an entry that is unusable (docs/api.md, Unusable entries: it answers by id with the spec's record, and says here why it is not listed) or non-production (docs/api.md, Environment: which rule makes it so).",
    },
  ),
);

const UNUSABLE_EXAMPLE = {
  unusable: {
    reason: "web-page" as const,
    detail: "the URL is a document (.html, .pdf), not a FHIR server's base",
  },
};

export const EndpointResponse = Type.Object(
  { success: Type.Literal(true), data: EndpointRecordSchema, meta: UnusableMeta },
  {
    examples: [
      { success: true, data: ENDPOINT_EXAMPLE },
      {
        success: true,
        data: {
          ...ENDPOINT_EXAMPLE,
          id: "1e395fe0d519e6abacdab76534d8004bd393f35ad8e1c7038cb452c6a3775543",
          url: "http://hl7.org/fhir/2016Sep/http.html",
          vendorName: "CorrecTek",
          vendorId: "correctek",
          organizationName: null,
          npi: null,
          fhirVersion: "UNKNOWN",
          access: [],
          city: null,
          state: null,
          zipCode: null,
          status: "listed",
          lastUpdated: "2023-02-22T00:57:13.000Z",
        },
        meta: UNUSABLE_EXAMPLE,
      },
      {
        success: true,
        data: {
          ...ENDPOINT_EXAMPLE,
          id: "0e0d6b3c1f2a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c",
          url: "https://fhirtest.example-hospital.org/FHIR",
          organizationName: "Example Hospital - Test",
          environment: "non-production",
        },
        meta: { environment: { rule: "host-test", code: "test", found: "fhirtest" } },
      },
    ],
  },
);

export const IdParams = Type.Object({
  id: Type.String({
    description: "Endpoint id from the list response.",
    examples: ["536e0e0884148050bc026e5524449abd886ac72062eec8db25a12ab87d42f038"],
  }),
});

/** An endpoint's probed capabilities: the `data` of /api/v1/endpoints/{id}/capabilities. */
export const CapabilitiesSchema = Type.Object({
  endpointId: Type.String(),
  url: Type.String(),
  vendorName: Type.String(),
  lastProbed: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
    description: "When the endpoint's URL was last probed; null while unchecked.",
  }),
  probeStatus: Type.Union(literals(PROBE_STATUSES), {
    description:
      "success: both probes returned data; partial: exactly one did; failed: neither; unchecked: not probed yet.",
  }),
  summary: Type.Object(
    {
      fhirVersion: Type.Union([Type.String(), Type.Null()]),
      softwareName: Type.Union([Type.String(), Type.Null()]),
      softwareVersion: Type.Union([Type.String(), Type.Null()]),
      supportedResourceCount: Type.Integer({ minimum: 0 }),
      supportedResources: Type.Array(Type.String(), { description: "Distinct rest[].resource[].type values, sorted." }),
      smartSupported: Type.Boolean(),
      smartCapabilities: Type.Array(Type.String(), {
        description: "`capabilities` of the SMART configuration, as published.",
      }),
      grantTypes: Type.Array(Type.String(), {
        description: "`grant_types_supported` of the SMART configuration, as published.",
      }),
      ...FacetSchemas,
    },
    {
      description:
        "Every key is always present: strings null when unknown, arrays [], supportedResourceCount 0, flags false. `usCore`, `bulkData`, `smart`, `access` and `payer` are read from the two stored documents (docs/api.md, Facets); `tls` from the probe's connection.",
    },
  ),
  checks: ChecksSchema,
  verdict: VerdictSchema,
  capabilityStatement: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description:
      "The CapabilityStatement (or DSTU2 Conformance) exactly as /metadata returned it; null when that probe returned no JSON.",
  }),
  smartConfiguration: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description:
      "The SMART configuration exactly as /.well-known/smart-configuration returned it; null when it returned no JSON.",
  }),
});

const EXAMPLE_STATEMENT = {
  resourceType: "CapabilityStatement",
  fhirVersion: "4.0.1",
  kind: "instance",
  format: ["json"],
  instantiates: ["http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server|6.1.0"],
  software: { name: "Epic", version: "November 2026" },
  rest: [{ mode: "server", resource: [{ type: "Patient" }, { type: "Observation" }] }],
};
const EXAMPLE_SMART = {
  authorization_endpoint: "https://mychart.stmaryshospital.com/oauth2/authorize",
  token_endpoint: "https://mychart.stmaryshospital.com/oauth2/token",
  code_challenge_methods_supported: ["S256"],
  capabilities: ["launch-standalone", "client-public", "context-standalone-patient", "permission-patient"],
  grant_types_supported: ["authorization_code"],
};
/** The example's facets, checks and verdict are what the rules make of the example's documents. */
const exampleReport = () =>
  capabilityReport({
    probed: true,
    statement: EXAMPLE_STATEMENT,
    smart: EXAMPLE_SMART,
    statedVersion: "R4",
    url: "https://mychart.stmaryshospital.com/fhir/r4",
  });

const EXAMPLE_TLS_CHECKS = [
  { id: "tls-1.2-or-later", ok: true, detail: "negotiated TLSv1.3" },
  {
    id: "certificate-valid-30-days",
    ok: true,
    detail: "verified; expires 2027-02-14, 81 days after the probe",
  },
  {
    id: "metadata-on-same-host",
    ok: true,
    detail: "/metadata answered on mychart.stmaryshospital.com without a redirect",
  },
];

export const CapabilitiesResponse = Type.Object(
  { success: Type.Literal(true), data: CapabilitiesSchema, meta: UnusableMeta },
  {
    examples: [
      {
        success: true,
        // Made when first read (by the OpenAPI document): running the rules at load cost every
        // process that loads the model ~10 ms, the server's start and each command's.
        get data() {
          const report = exampleReport();
          return {
            endpointId: ENDPOINT_EXAMPLE.id,
            url: ENDPOINT_EXAMPLE.url,
            vendorName: ENDPOINT_EXAMPLE.vendorName,
            lastProbed: "2026-11-25T04:00:12.000Z",
            probeStatus: "success",
            summary: {
              fhirVersion: "4.0.1",
              softwareName: "Epic",
              softwareVersion: "November 2026",
              supportedResourceCount: 2,
              supportedResources: ["Observation", "Patient"],
              smartSupported: true,
              smartCapabilities: EXAMPLE_SMART.capabilities,
              grantTypes: EXAMPLE_SMART.grant_types_supported,
              ...report.facets,
              tls: {
                protocol: "TLSv1.3",
                certificateExpiresAt: "2027-02-14T23:59:59.000Z",
                issuer: "DigiCert Inc",
                verified: true,
              },
            },
            // The TLS checks are the URL's own (its host's handshake), measured by the probe.
            checks: report.checks.map((check) => EXAMPLE_TLS_CHECKS.find((tls) => tls.id === check.id) ?? check),
            verdict: report.verdict,
            capabilityStatement: EXAMPLE_STATEMENT,
            smartConfiguration: EXAMPLE_SMART,
          };
        },
      },
    ],
  },
);

const isoTime = (description: string) =>
  Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description });

/** Where one entry comes from: GET /api/v1/endpoints/:id/source. */
export const SourceRecordSchema = Type.Object({
  endpointId: Type.String({ pattern: "^[0-9a-f]{64}$", description: "The entry's id." }),
  vendorId: Type.String({ description: "The vendor whose list carries the entry." }),
  list: Type.Union(
    [
      Type.Object({
        id: Type.String({
          description: "The list's id (a vendor with several lists names each; see db/vendors.json).",
        }),
        publishedAt: Type.String({
          description:
            "Where the developer publishes the list (the URL ONC's CHPL records); for a list of its own ingested from a file, the file's name.",
        }),
        readFrom: Type.Union(
          [
            Type.String({
              description: "The URL that was read, or the name of the file read (never a path on the server).",
            }),
            Type.Object(
              {
                repository: Type.String({ examples: ["onc-healthit/lantern-back-end"] }),
                path: Type.String({
                  examples: ["resources/prod_resources/Epic_Systems_Corporation_1_EndpointSources.json"],
                }),
                commit: Type.String({ pattern: "^[0-9a-f]{40}$" }),
              },
              { description: "ONC Lantern's copy of the list: repository, file path and commit." },
            ),
          ],
          { description: "What was actually read: the list's URL, or the Lantern copy bundled with the server." },
        ),
        asOf: isoTime(
          "When that copy was made (a Lantern copy: the date Lantern last changed the file) or fetched; null before the first read.",
        ),
        sha256: Type.Union([Type.String({ pattern: "^[0-9a-f]{64}$" }), Type.Null()], {
          description: "SHA-256 (hex) of the bytes read (every page, in order); null when not recorded.",
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        "The list that carries the entry now (or, for a removed entry, the one that carried it last): its latest read.",
    },
  ),
  firstSeen: isoTime("When a list first carried the entry (null for entries stored before this was recorded)."),
  lastSeen: isoTime(
    "The latest read of a list that carried the entry: the list's asOf while it still does; for a removed entry, the last read that had it.",
  ),
  environment: Type.Union([EnvironmentRuleSchema, Type.Null()], {
    description:
      "The environment rule that makes the entry non-production (docs/api.md, Environment), or null for a production entry.",
  }),
  fields: Type.Object({
    url: Type.Union(literals(URL_EVIDENCE), {
      description:
        "published: the URL as the list gives it; else how a damaged URL was repaired (docs/api.md, Enrichment): cleaned (junk before the scheme, whitespace beside a delimiter or a loopback address before the host removed), scheme-assumed (https:// added before a bare host name), host-guessed (a relative path given the host of the list's other URLs of its shape: a guess, left out of the brands bundle until a probe verifies it).",
    }),
    urlAsPublished: Type.Union([Type.String(), Type.Null()], {
      description: "The URL text exactly as the list published it, when `url` is not `published`; else null.",
    }),
    fhirVersion: Type.Union([...literals(VERSION_EVIDENCE), Type.Null()], {
      description:
        "How the served fhirVersion is known: probe (the CapabilityStatement), list (a version-specific list or the item's own statement), url (its path or host names it), developer (the developer's certified API, inferred: not seen); null while UNKNOWN.",
    }),
    state: Type.Union([...literals(STATE_EVIDENCE), Type.Null()], {
      description:
        'How the state is known: list (published), zip (from the ZIP code), name (an "XX - " prefix), name-place (a place the organization name states: an address, a city and its state, or a state code where names put one; the city and ZIP too when it writes them); null while unknown.',
    }),
  }),
});
export type SourceRecord = Static<typeof SourceRecordSchema>;
const SOURCE_EXAMPLE: SourceRecord = {
  endpointId: ENDPOINT_EXAMPLE.id,
  vendorId: "epic",
  list: {
    id: "epic",
    publishedAt: "https://open.epic.com/MyApps/Endpoints",
    readFrom: {
      repository: "onc-healthit/lantern-back-end",
      path: "resources/prod_resources/Epic_Systems_Corporation_1_EndpointSources.json",
      commit: "3f9c2d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e",
    },
    asOf: "2026-10-14T00:00:00.000Z",
    sha256: "9f2b5c7d1e3a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c",
  },
  firstSeen: "2026-10-14T00:00:00.000Z",
  lastSeen: "2026-11-03T04:00:00.000Z",
  environment: null,
  fields: { url: "published", urlAsPublished: null, fhirVersion: "probe", state: "list" },
};

export const SourceResponse = Type.Object(
  { success: Type.Literal(true), data: SourceRecordSchema, meta: UnusableMeta },
  { examples: [{ success: true, data: SOURCE_EXAMPLE }] },
);

/** The record the API serves: the static type of its response schema, never a second copy. */
export type EndpointRecord = Static<typeof EndpointRecordSchema>;
