/**
 * A developer's report card (GET /api/v1/vendors/:id/report): its published list, its
 * certification, its servers, in figures computed once per dataset version when the directory
 * index is built; and the same figures summed for the whole directory. Every figure is defined in
 * docs/api.md, "Report cards"; `historyFigures` flattens the numeric ones into the named series
 * the history serves and the CSV's columns.
 */
import { type Static, type TInteger, Type } from "@sinclair/typebox";
import { APP_KINDS, SUPPORTS, VERDICT_STATUSES } from "./capability-rules";
import { READY_SETS_TEXT } from "./capability-schemas";
import { ENVIRONMENT_RULES } from "./environment";
import { UNUSABLE_REASONS } from "./evidence";
import { VENDOR_KINDS } from "./vendors";

/** The environment rules' ids (src/model/environment.ts), the keys of `nonProductionByRule`. */
const RULE_IDS = ENVIRONMENT_RULES.map((rule) => rule.id);

const count = (description: string) => Type.Integer({ minimum: 0, description });
const share = (description: string) =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: `${description} A fraction from 0 to 1 (4 decimals); null when there is nothing to divide by.`,
  });
const countsOf = <K extends string>(keys: readonly K[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, Type.Integer({ minimum: 0 })])) as Record<K, TInteger>, {
    description,
  });
type Share = ReturnType<typeof share>;

/** The shares of listed entries that carry each field (list figures). */
export const LIST_SHARES = ["organizationName", "npi", "zipCode", "state", "https", "statedFhirVersion"] as const;
export type ListShare = (typeof LIST_SHARES)[number];
const LIST_SHARE_DESCRIPTIONS: Record<ListShare, string> = {
  organizationName: "Listed entries with an organization name.",
  npi: "Listed entries with an NPI.",
  zipCode: "Listed entries with a ZIP code.",
  state: "Listed entries whose state is known (from the list, its ZIP code or a name prefix).",
  https: "Listed entries whose base URL is https.",
  statedFhirVersion:
    "Listed entries whose FHIR version the list or its URL states (not inferred from the certification, not unknown).",
};

const ListFiguresSchema = Type.Object({
  listed: count("Entries the list operation serves (neither removed nor unusable)."),
  unusable: count("Entries kept out of the listings as unusable (docs/api.md, Unusable entries)."),
  unusableByReason: countsOf(UNUSABLE_REASONS, "Unusable entries per reason; every reason always present."),
  nonProduction: count(
    "Listed entries that are non-production (test, QA, demo, sandbox, development, staging, training servers and placeholder organizations; docs/api.md, Environment): counted in `listed`, left out of the brands bundle.",
  ),
  nonProductionByRule: countsOf(
    RULE_IDS,
    "Non-production listed entries per environment rule (the first that holds); every rule always present.",
  ),
  shares: Type.Object(
    Object.fromEntries(LIST_SHARES.map((key) => [key, share(LIST_SHARE_DESCRIPTIONS[key])])) as Record<
      ListShare,
      Share
    >,
  ),
});

const ServerFiguresSchema = Type.Object({
  urls: count("Distinct base URLs of the listed entries."),
  probed: count("Of those, URLs probed at least once."),
  verified: count("URLs whose latest probe returned a CapabilityStatement (`verified`)."),
  unresponsive: count("URLs whose latest probe reached no server (`unresponsive`)."),
  uptime30d: Type.Object(
    {
      median: share("The median, over URLs probed in the last 30 days, of each URL's 30-day uptime."),
      worstDecile: share(
        "The 10th percentile of the same: nine URLs in ten answered at least this share of their probes.",
      ),
    },
    { description: "Uptime over the 30 days before the dataset's last write (availability's `uptime.30d`)." },
  ),
  supports: Type.Object(
    Object.fromEntries(
      SUPPORTS.map((value) => [value, share(`Verified URLs whose documents hold \`supports=${value}\`.`)]),
    ) as Record<(typeof SUPPORTS)[number], Share>,
    { description: "Per capability facet (the `supports=` values), the share of verified URLs that have it." },
  ),
  verdicts: Type.Object(
    Object.fromEntries(
      APP_KINDS.map((kind) => [
        kind,
        countsOf(
          VERDICT_STATUSES,
          `URLs per ${kind} verdict status; \`ready\` by any set of the kind (${READY_SETS_TEXT[kind]}); unknown: not probed, or the last probe read neither document.`,
        ),
      ]),
    ) as Record<(typeof APP_KINDS)[number], ReturnType<typeof countsOf<(typeof VERDICT_STATUSES)[number]>>>,
    { description: "URLs per verdict status, per kind of app (docs/api.md, Verdict)." },
  ),
  certificates: Type.Object({
    expiringWithin30Days: count(
      "https URLs whose server certificate expires within 30 days after the dataset's last write.",
    ),
    expired: count("https URLs whose server certificate had expired at the dataset's last write."),
  }),
  mostFailedChecks: Type.Array(Type.Object({ id: Type.String(), failed: count("Verified URLs failing this check.") }), {
    description: "The five checks verified URLs fail most often, most first (ties by check order).",
  }),
});

const ProductSchema = Type.Object({
  chplProductNumber: Type.String({ description: "The product's CHPL number." }),
  product: Type.String(),
  version: Type.String(),
  certificationDate: Type.Union([Type.String(), Type.Null()], { description: "YYYY-MM-DD, as CHPL gives it." }),
  status: Type.String({ description: "CHPL's certification status (`Active`, `Withdrawn by Developer`, …)." }),
  standardizedApi: Type.Boolean({
    description: "Whether the product meets 170.315 (g)(10), the standardized API for patient and population services.",
  }),
});

const CertificationSchema = Type.Object({
  products: Type.Array(ProductSchema, {
    description: "The developer's certified products behind its lists, as CHPL records them; [] when we know none.",
  }),
  active: count("Products whose certification is active."),
  withdrawn: count("Products whose certification was withdrawn (by the developer or the certification body)."),
  standardizedApi: Type.Boolean({ description: "Whether an active product meets (g)(10)." }),
});
export type CertificationRecord = Static<typeof CertificationSchema>;

const ListSchema = Type.Object({
  id: Type.String({ description: "The list's id (as in /source)." }),
  publishedUrl: Type.String({
    description: "Where the developer publishes the list (its own URL, else the copy we read).",
  }),
  readFrom: Type.String({
    description:
      "What its last read read: the URL fetched (the developer's own, or Lantern's), the bundled Lantern copy as its address in Lantern's repository at the commit read, or a file's name.",
  }),
  asOf: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
    description: "When the list was last read successfully; null if never.",
  }),
  entries: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "Items the last read found." }),
});

const ReportCardSchema = Type.Object({
  vendorId: Type.String({ examples: ["epic"] }),
  vendorName: Type.String({ examples: ["Epic Systems"] }),
  kind: Type.Union(
    VENDOR_KINDS.map((kind) => Type.Literal(kind)),
    { description: "`ehr`: a certified health IT developer; `payer`: a health plan (as /api/v1/vendors says)." },
  ),
  lists: Type.Array(ListSchema, { description: "Its published lists." }),
  list: ListFiguresSchema,
  certification: Type.Union([CertificationSchema, Type.Null()], {
    description:
      "Its certification as ONC's CHPL records it; null for a health plan (`kind` payer), which CHPL does not certify.",
  }),
  servers: ServerFiguresSchema,
});
export type ReportCard = Static<typeof ReportCardSchema>;

const NationalFiguresSchema = Type.Object({
  developers: count("Developers with at least one listed entry."),
  standardizedApi: count("Developers with an active (g)(10) certification."),
  list: ListFiguresSchema,
  servers: ServerFiguresSchema,
});
export type NationalFigures = Static<typeof NationalFiguresSchema>;

/** The report cards of one dataset version: `asOf` is its last write. */
export interface ReportCards {
  asOf: string | null;
  national: NationalFigures;
  vendors: ReportCard[];
}

const asOf = Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
  description: "The dataset's last write, which every figure is as of; null for an empty dataset.",
});

/** An example card, every key present (the shapes follow the lists they are made from). */
const EXAMPLE_CARD = {
  vendorId: "epic",
  vendorName: "Epic Systems",
  kind: "ehr" as const,
  lists: [
    {
      id: "epic-r4",
      publishedUrl: "https://open.epic.com/Endpoints/R4",
      readFrom: "https://open.epic.com/Endpoints/R4",
      asOf: "2026-11-02T08:03:00.000Z",
      entries: 240,
    },
  ],
  list: {
    listed: 310,
    unusable: 1,
    unusableByReason: Object.fromEntries(UNUSABLE_REASONS.map((r) => [r, r === "internal-host" ? 1 : 0])),
    nonProduction: 2,
    nonProductionByRule: Object.fromEntries(RULE_IDS.map((id) => [id, id === "name-sandbox" ? 2 : 0])),
    shares: { organizationName: 1, npi: 0.1355, zipCode: 1, state: 1, https: 1, statedFhirVersion: 1 },
  },
  certification: {
    products: [
      {
        chplProductNumber: "15.04.04.1447.Epic.AM.22.1.221121",
        product: "EpicCare Ambulatory EHR Suite",
        version: "November 2022",
        certificationDate: "2022-11-21",
        status: "Active",
        standardizedApi: true,
      },
    ],
    active: 1,
    withdrawn: 0,
    standardizedApi: true,
  },
  servers: {
    urls: 278,
    probed: 278,
    verified: 243,
    unresponsive: 2,
    uptime30d: { median: 1, worstDecile: 0.9667 },
    supports: Object.fromEntries(SUPPORTS.map((v) => [v, v === "pkce" ? 0.9465 : 0.1])),
    verdicts: Object.fromEntries(
      APP_KINDS.map((kind) => [kind, Object.fromEntries(VERDICT_STATUSES.map((s, i) => [s, i === 0 ? 240 : 1]))]),
    ),
    certificates: { expiringWithin30Days: 3, expired: 0 },
    mostFailedChecks: [{ id: "tls-certificate-valid", failed: 4 }],
  },
};
const EXAMPLE_AS_OF = "2026-11-04T09:00:00.000Z";

export const VendorReportResponse = Type.Object(
  { success: Type.Literal(true), data: ReportCardSchema, meta: Type.Object({ asOf }) },
  { examples: [{ success: true, data: EXAMPLE_CARD, meta: { asOf: EXAMPLE_AS_OF } }] },
);

export const VendorReportsResponse = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({ national: NationalFiguresSchema, vendors: Type.Array(ReportCardSchema) }),
    meta: Type.Object({ asOf }),
  },
  {
    examples: [
      {
        success: true,
        data: {
          national: { developers: 1, standardizedApi: 1, list: EXAMPLE_CARD.list, servers: EXAMPLE_CARD.servers },
          vendors: [EXAMPLE_CARD],
        },
        meta: { asOf: EXAMPLE_AS_OF },
      },
    ],
  },
);

/** One day's figures of a history: the numeric figures flattened (`historyFigures`). */
const HistoryPointSchema = Type.Object({
  day: Type.String({
    pattern: "^\\d{4}-\\d{2}-\\d{2}$",
    description: "The UTC day (YYYY-MM-DD) the figures stood at its end.",
  }),
  figures: Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()]), {
    description: "Named figures (`list.listed`, `servers.supports.pkce`, …), as in the report card.",
  }),
  generated: Type.Optional(
    Type.Literal(true, {
      description:
        "Present on made-up points only: the demo dataset (`data:sample`) carries a generated year of history so that every chart shows something.",
    }),
  ),
});
export type HistoryPoint = Static<typeof HistoryPointSchema>;

export const HistoryResponse = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({ vendorId: Type.Union([Type.String(), Type.Null()]), points: Type.Array(HistoryPointSchema) }),
    meta: Type.Object({
      from: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "The first day answered (YYYY-MM-DD)." }),
      to: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "The last day answered (YYYY-MM-DD)." }),
    }),
  },
  {
    examples: [
      {
        success: true,
        data: {
          vendorId: "epic",
          points: [
            { day: "2026-11-03", figures: { "list.listed": 309, "servers.supports.pkce": 0.9421 } },
            { day: "2026-11-04", figures: { "list.listed": 310, "servers.supports.pkce": 0.9465 } },
          ],
        },
        meta: { from: "2025-11-04", to: "2026-11-04" },
      },
    ],
  },
);

/** A figure of a history point or a CSV cell: a number, or null where it is undefined. */
export type Figure = number | null;

type Figured = Pick<ReportCard, "list" | "servers">;

/** Every numeric figure of a card by dotted name, in one fixed order: the history's series and the CSV's columns. */
const FIGURES: readonly [name: string, of: (card: Figured) => Figure][] = [
  ["list.listed", (c) => c.list.listed],
  ["list.unusable", (c) => c.list.unusable],
  ...UNUSABLE_REASONS.map((reason): [string, (c: Figured) => Figure] => [
    `list.unusableByReason.${reason}`,
    (c) => c.list.unusableByReason[reason],
  ]),
  ["list.nonProduction", (c) => c.list.nonProduction],
  ...RULE_IDS.map((rule): [string, (c: Figured) => Figure] => [
    `list.nonProductionByRule.${rule}`,
    (c) => c.list.nonProductionByRule[rule]!,
  ]),
  ...LIST_SHARES.map((key): [string, (c: Figured) => Figure] => [`list.shares.${key}`, (c) => c.list.shares[key]]),
  ...(["urls", "probed", "verified", "unresponsive"] as const).map((key): [string, (c: Figured) => Figure] => [
    `servers.${key}`,
    (c) => c.servers[key],
  ]),
  ["servers.uptime30d.median", (c) => c.servers.uptime30d.median],
  ["servers.uptime30d.worstDecile", (c) => c.servers.uptime30d.worstDecile],
  ...SUPPORTS.map((value): [string, (c: Figured) => Figure] => [
    `servers.supports.${value}`,
    (c) => c.servers.supports[value],
  ]),
  ...APP_KINDS.flatMap((kind) =>
    VERDICT_STATUSES.map((status): [string, (c: Figured) => Figure] => [
      `servers.verdicts.${kind}.${status}`,
      (c) => c.servers.verdicts[kind][status],
    ]),
  ),
  ["servers.certificates.expiringWithin30Days", (c) => c.servers.certificates.expiringWithin30Days],
  ["servers.certificates.expired", (c) => c.servers.certificates.expired],
];

/** The names of the figures `historyFigures` gives, in its order. */
export const FIGURE_NAMES: readonly string[] = FIGURES.map(([name]) => name);

/** The numeric figures of a report card (or the national figures) by dotted name. */
export const historyFigures = (card: Figured): Record<string, Figure> =>
  Object.fromEntries(FIGURES.map(([name, of]) => [name, of(card)]));
