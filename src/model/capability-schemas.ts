import { type Static, type TInteger, Type } from "@sinclair/typebox";
import {
  ACCESS_DECLARATIONS,
  APP_KINDS,
  CAPABILITY_SET_NAMES,
  CAPABILITY_SETS,
  CHECKS,
  CLIENT_TYPES,
  LAUNCH_KINDS,
  SET_CLIENT_TYPES,
  SUPPORTS,
  VERDICT_STATUS_MEANINGS,
  VERDICT_STATUSES,
} from "./capability-rules";
import { VENDOR_KINDS } from "./vendors";

const flag = (description: string) => Type.Boolean({ description });
const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
/** A payer implementation guide: declared as `what` says, in `instantiates`, `implementationGuide` or a profile, and its versions. */
const guide = (what: string) =>
  Type.Object(
    {
      declared: flag(
        `${what}, in \`instantiates\`, \`implementationGuide\`, \`profile\` or a resource's \`supportedProfile\`/\`profile\`.`,
      ),
      versions: Type.Array(Type.String(), {
        description: "The versions those canonicals carry after `|`, sorted; unversioned canonicals add none.",
      }),
    },
    { additionalProperties: false },
  );

/** `summary.usCore`, `summary.bulkData`, `summary.smart`, `summary.access`, `summary.payer`, `summary.tls` of a capabilities answer. */
export const FacetSchemas = {
  usCore: Type.Object(
    {
      declared: flag(
        "The statement names a US Core canonical (`http://hl7.org/fhir/us/core/…`) in `instantiates`, `implementationGuide`, `profile` or a resource's `supportedProfile`/`profile`.",
      ),
      versions: Type.Array(Type.String(), {
        description: "The versions those canonicals carry after `|`, sorted; unversioned canonicals add none.",
        examples: [["3.1.1", "6.1.0"]],
      }),
    },
    { additionalProperties: false },
  ),
  bulkData: Type.Object(
    {
      system: flag(
        "A system-level `$export` operation (by its definition `…/uv/bulkdata/OperationDefinition/export` or the name `export`), or the bulk-data CapabilityStatement in `instantiates`.",
      ),
      group: flag("`$export` on Group (definition `…/group-export`, or the name `export`/`group-export`)."),
      patient: flag("`$export` on Patient (definition `…/patient-export`, or the name `export`/`patient-export`)."),
    },
    { additionalProperties: false },
  ),
  smart: Type.Object(
    {
      v1: flag(
        "`permission-v1`, a SMART v1 scope (`patient/X.read`), or, without a sign of v2, OAuth URIs in the statement or a declared launch (v1 is what such a server speaks).",
      ),
      v2: flag("`permission-v2` in capabilities, or a SMART v2 scope (`patient/X.rs`) in `scopes_supported`."),
      pkceS256: flag("`code_challenge_methods_supported` includes `S256`."),
      pkcePlain: flag("`code_challenge_methods_supported` includes `plain` (SMART forbids it)."),
      launchEhr: flag("`launch-ehr` in capabilities."),
      launchStandalone: flag("`launch-standalone` in capabilities."),
      backendServices: flag(
        "The Backend Services set is declared: `client_credentials` in `grant_types_supported`, a `token_endpoint`, and the asymmetric profile's whole discovery: `client-confidential-asymmetric`, `scopes_supported`, `token_endpoint_auth_methods_supported` with `private_key_jwt`, `token_endpoint_auth_signing_alg_values_supported` with `RS384` or `ES384`.",
      ),
      authorizeUrl: nullableString(
        "`authorization_endpoint`, else the `authorize` URI of the CapabilityStatement's oauth-uris security extension (DSTU2/STU3).",
      ),
      tokenUrl: nullableString("`token_endpoint`, else the oauth-uris extension's `token`."),
      scopes: Type.Array(Type.String(), { description: "`scopes_supported` as published." }),
      permissionOffline: flag("`permission-offline` in capabilities: refresh tokens (`offline_access`)."),
      clientTypes: Type.Array(Type.String({ enum: [...CLIENT_TYPES] }), {
        description: "The SMART client types declared in capabilities, in this order: public, symmetric, asymmetric.",
      }),
      openIdConnect: flag("`sso-openid-connect` in capabilities with `issuer` and `jwks_uri` both https URLs."),
      issuer: nullableString("`issuer` as published."),
      jwksUri: nullableString("`jwks_uri` as published."),
      registrationUrl: nullableString("`registration_endpoint` (OAuth dynamic client registration) as published."),
      signingAlgorithms: Type.Array(Type.String(), {
        description: "`token_endpoint_auth_signing_alg_values_supported` as published.",
      }),
    },
    { additionalProperties: false },
  ),
  access: Type.Object(
    {
      declared: Type.String({
        enum: [...ACCESS_DECLARATIONS],
        description:
          "How the server declares access: `smart-configuration` (it returned /.well-known/smart-configuration), `oauth-uris` (only OAuth URIs in the statement's security extension, SMART v1 style), `security-service` (only a `rest[].security.service` such as OAuth or Basic), `none` (nothing declared, not probed, or neither document returned). /.well-known/udap is not probed.",
      }),
      services: Type.Array(Type.String(), {
        description: "The codes (else texts) of the statement's `rest[].security.service`, as published.",
      }),
    },
    { additionalProperties: false },
  ),
  payer: Type.Object(
    {
      carinBlueButton: guide(
        "CARIN Blue Button (CARIN Consumer Directed Payer Data Exchange): a canonical `http://hl7.org/fhir/us/carin-bb/…`",
      ),
      pdex: guide("Da Vinci Payer Data Exchange (PDex): a canonical `http://hl7.org/fhir/us/davinci-pdex/…`"),
      planNet: guide(
        "Da Vinci PDex Plan Net, the plan's provider directory: a canonical `http://hl7.org/fhir/us/davinci-pdex-plan-net/…`",
      ),
      explanationOfBenefit: flag(
        "`ExplanationOfBenefit` is among `rest[].resource[].type`: the plan serves its claims (the Patient Access API's core).",
      ),
    },
    {
      additionalProperties: false,
      description:
        "What a health plan's Patient Access API declares (CMS Interoperability and Patient Access rule): the payer implementation guides and ExplanationOfBenefit. Read from any server's statement.",
    },
  ),
  tls: Type.Object(
    {
      protocol: nullableString("The TLS protocol of the probe's connection (`TLSv1.3`); null until measured."),
      certificateExpiresAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
        description: "When the server's certificate expires; null until measured.",
      }),
      issuer: nullableString("The certificate issuer; null until measured."),
      verified: Type.Union([Type.Boolean(), Type.Null()], {
        description: "The certificate chain verified; null until measured.",
      }),
    },
    {
      additionalProperties: false,
      description: "Facts of the probe's TLS connection; every value null until measured.",
    },
  ),
};

const CHECK_IDS = CHECKS.map((check) => check.id);

const CheckSchema = Type.Object(
  {
    id: Type.String({ enum: CHECK_IDS, description: "Stable id of the rule (docs/api.md, Checks)." }),
    ok: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        "true: holds; false: does not; null: cannot apply (not probed, nothing to check it on, not measured).",
    }),
    detail: Type.String({ description: "What was found, in words." }),
  },
  { additionalProperties: false },
);

export const ChecksSchema = Type.Array(CheckSchema, {
  description: `Every check, always in this order:\n\n${CHECKS.map((c) => `- \`${c.id}\`: ${c.verifies} (${c.source})`).join("\n")}`,
});

/** One app kind's verdict status. */
const VerdictStatusSchema = Type.String({
  enum: [...VERDICT_STATUSES],
  pattern: `^(?:${VERDICT_STATUSES.join("|")})$`,
});

const AppVerdictSchema = (description: string) =>
  Type.Object(
    {
      status: VerdictStatusSchema,
      sets: Type.Array(Type.String({ enum: [...CAPABILITY_SETS] }), {
        description: `The sets of this kind whose every member the documents declare (${CAPABILITY_SETS.map((id) => `\`${id}\`: ${CAPABILITY_SET_NAMES[id]}`).join("; ")}); the status says whether the rest holds. [] when none.`,
      }),
      reasons: Type.Array(Type.String(), {
        description:
          "Why it is not `ready`: each missing requirement, a missing or non-standard key as published, the probe's cause for `unknown`; [] when ready.",
      }),
      notes: Type.Array(Type.String(), {
        description:
          "For `ready` only: when one set of two holds, which apps it is ready for and what the other set's apps lack (`ready for apps launched from the patient portal (Patient Access for EHR Launch); standalone patient apps: missing context-standalone-patient`); [] otherwise.",
      }),
    },
    { additionalProperties: false, description },
  );

const setsOf = (kind: keyof typeof LAUNCH_KINDS) =>
  LAUNCH_KINDS[kind].sets
    .map((set) => `${set.name} (${[...set.capabilities, SET_CLIENT_TYPES.join(" or ")].join(", ")})`)
    .join(" or ");
const STATUSES_TEXT = VERDICT_STATUSES.map((status) => `\`${status}\`: ${VERDICT_STATUS_MEANINGS[status]}`).join("; ");
const LAUNCH_NEEDS =
  "`authorization_code` in `grant_types_supported`, PKCE `S256` without `plain`, https authorization and token endpoints";
const VERDICT_DESCRIPTIONS: Record<(typeof APP_KINDS)[number], string> = {
  patientApps: `A patient-facing app (SMART App Launch 2.2 capability sets ${setsOf("patientApps")}), with ${LAUNCH_NEEDS}. Offered when capabilities include ${LAUNCH_KINDS.patientApps.offeredBy.join(", ")}. ${STATUSES_TEXT}.`,
  providerApps: `A clinician-facing app (capability sets ${setsOf("providerApps")}), with ${LAUNCH_NEEDS}. Offered when capabilities include ${LAUNCH_KINDS.providerApps.offeredBy.join(", ")}.`,
  backendServices:
    "A backend service (SMART Backend Services): `client_credentials` in `grant_types_supported`, an https token endpoint, and every property the asymmetric profile's discovery names (`client-confidential-asymmetric`; `scopes_supported`; `token_endpoint_auth_methods_supported` with `private_key_jwt`; `token_endpoint_auth_signing_alg_values_supported` with `RS384` or `ES384`): one missing makes it `partial`. Offered when `client_credentials`, a `system/` scope or asymmetric authentication is declared; a declared bulk export alone does not count.",
};

/** The verdict's statuses alone (the change feed's `verdict` field). */
export const VerdictStatusesSchema = Type.Object(
  Object.fromEntries(APP_KINDS.map((kind) => [kind, VerdictStatusSchema])),
  { additionalProperties: false, description: "The status of each app kind's verdict." },
);

export const VerdictSchema = Type.Object(
  Object.fromEntries(APP_KINDS.map((kind) => [kind, AppVerdictSchema(VERDICT_DESCRIPTIONS[kind])])) as Record<
    (typeof APP_KINDS)[number],
    ReturnType<typeof AppVerdictSchema>
  >,
  { additionalProperties: false, description: "Can an app of each kind connect here? From the facets and checks." },
);

/** Which sets a `ready` count counts, per kind (the verdict's `sets`). */
export const READY_SETS_TEXT: Record<(typeof APP_KINDS)[number], string> = {
  patientApps: LAUNCH_KINDS.patientApps.sets.map((set) => set.name).join(" or "),
  providerApps: LAUNCH_KINDS.providerApps.sets.map((set) => set.name).join(" or "),
  backendServices: CAPABILITY_SET_NAMES["backend-services"],
};

const count = (description: string) => Type.Integer({ minimum: 0, description });
const countsOf = <K extends string>(keys: readonly K[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, Type.Integer({ minimum: 0 })])) as Record<K, TInteger>, {
    additionalProperties: false,
    description,
  });

/** Counts of one scope (every developer, or one): facets, checks and verdicts. */
const CapabilityCountsSchema = Type.Object(
  {
    endpoints: count("Entries in the directory now (as in /api/v1/stats)."),
    verified: count("Of those, the ones whose last probe returned a CapabilityStatement (status verified)."),
    supports: countsOf(
      SUPPORTS,
      "Verified entries per `supports=` value that holds for them (docs/api.md, Facets); divide by `verified` for a share.",
    ),
    verdict: Type.Object(
      Object.fromEntries(
        APP_KINDS.map((kind) => [
          kind,
          countsOf(
            VERDICT_STATUSES,
            `Entries per ${kind} verdict status (docs/api.md, Verdict); \`ready\` by any set of the kind (${READY_SETS_TEXT[kind]}).`,
          ),
        ]),
      ) as Record<(typeof APP_KINDS)[number], ReturnType<typeof countsOf<(typeof VERDICT_STATUSES)[number]>>>,
      { additionalProperties: false, description: "Every entry's verdicts, per app kind and status." },
    ),
    checks: Type.Object(
      Object.fromEntries(
        CHECK_IDS.map((id) => [
          id,
          Type.Object(
            {
              ok: Type.Integer({ minimum: 0 }),
              failed: Type.Integer({ minimum: 0 }),
              notApplicable: Type.Integer({ minimum: 0 }),
            },
            { additionalProperties: false },
          ),
        ]),
      ),
      {
        additionalProperties: false,
        description: "Verified entries per check: ok, failed, cannot apply (`ok: null`).",
      },
    ),
  },
  { additionalProperties: false },
);
export type CapabilityCounts = Static<typeof CapabilityCountsSchema>;

/** The counts kept in the directory index: in all, and per developer (null: no entries). */
export const CapabilityStatsDataSchema = Type.Object({
  overall: CapabilityCountsSchema,
  vendors: Type.Array(Type.Union([CapabilityCountsSchema, Type.Null()])),
});

const CapabilityStatsSchema = Type.Object(
  {
    vendor: Type.Union([Type.String(), Type.Null()], {
      description: "The developer the counts are of; null for every developer.",
    }),
    kind: Type.Union([...VENDOR_KINDS.map((kind) => Type.Literal(kind)), Type.Null()], {
      description: "The kind of developer the counts are of (`kind=`: `ehr` or `payer`); null for every kind.",
    }),
    ...CapabilityCountsSchema.properties,
    vendors: Type.Array(
      Type.Object(
        { vendorId: Type.String(), vendorName: Type.String(), ...CapabilityCountsSchema.properties },
        { additionalProperties: false },
      ),
      {
        description:
          "The same counts per developer with at least one entry, in the order of /api/v1/vendors (only the one asked for with `vendor=`).",
      },
    ),
  },
  { additionalProperties: false },
);
export type CapabilityStats = Static<typeof CapabilityStatsSchema>;

/** An example's counts: 3 entries of one developer, 2 verified (one ready for every kind, one without SMART). */
const EXAMPLE_COUNTS: CapabilityCounts = {
  endpoints: 3,
  verified: 2,
  supports: Object.fromEntries(
    SUPPORTS.map((value) => [value, value === "us-core" ? 2 : 1]),
  ) as CapabilityCounts["supports"],
  verdict: Object.fromEntries(
    APP_KINDS.map((kind) => [kind, { ready: 1, partial: 0, no: 0, undeclared: 1, unknown: 1 }]),
  ) as CapabilityCounts["verdict"],
  checks: Object.fromEntries(
    CHECKS.map(({ id }) => [
      id,
      id.startsWith("tls-") || id.startsWith("certificate-") || id.startsWith("metadata-")
        ? { ok: 0, failed: 0, notApplicable: 2 }
        : id.startsWith("smart-")
          ? { ok: 1, failed: 1, notApplicable: 0 }
          : { ok: 2, failed: 0, notApplicable: 0 },
    ]),
  ),
};

export const CapabilityStatsResponse = Type.Object(
  { success: Type.Literal(true), data: CapabilityStatsSchema },
  {
    description: "Capability statistics of the current dataset version.",
    examples: [
      {
        success: true,
        data: {
          vendor: null,
          kind: null,
          ...EXAMPLE_COUNTS,
          vendors: [{ vendorId: "epic", vendorName: "Epic Systems", ...EXAMPLE_COUNTS }],
        } satisfies CapabilityStats,
      },
    ],
  },
);
