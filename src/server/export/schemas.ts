import { t } from "elysia";
import { LIST_INTEGER_KEYS, LIST_ORDER_KEYS, ListQuery } from "../../model/endpoints";
import { ENVIRONMENT_CODE_SYSTEM, ENVIRONMENT_CODES, ENVIRONMENT_EXTENSION } from "../../model/environment";
import { FHIR_VERSION_BASES, URL_REPAIRS } from "../../model/evidence";
import {
  FHIR_VERSION_BASIS_EXTENSION,
  FHIR_VERSION_EXTENSION,
  NPI_SYSTEM,
  ORGANIZATION_ID_SYSTEM,
  URL_REPAIR_EXTENSION,
} from "./formats/fhir";

const EXPORT_FORMATS = ["csv", "ndjson", "fhir", "brands"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The export's `format` parameter: the formats the export writes. */
export const ExportFormatSchema = t.String({
  pattern: `^(?:${EXPORT_FORMATS.join("|")})$`,
  enum: [...EXPORT_FORMATS],
  "x-error": "format: must be csv, ndjson, fhir or brands",
  description:
    "Required. `csv`: text/csv, a header row then one row per entry; `ndjson`: one Endpoint record per line, as the list returns it; `fhir`: one FHIR R4 Bundle (type collection) of Endpoint and Organization resources; `brands`: the same as a SMART App Launch 2.2 User-access Brands Bundle (also at /api/v1/brands).",
  examples: ["csv"],
});

/** format=csv: RFC 4180 text, a header row of the Endpoint record's fields and fhirVersionBasis, then one row per entry. */
export const CsvExportSchema = t.String({
  description:
    "RFC 4180 CSV (CRLF line ends): a header row of the Endpoint record's fields then `fhirVersionBasis` (probe, list, url, certification, unknown: how fhirVersion is known), one row per entry.",
});

/** format=ndjson: one Endpoint record (JSON) per line. */
export const NdjsonExportSchema = t.String({
  description: "Newline-delimited JSON: one Endpoint record per line, exactly as the list returns it.",
});

const Reference = (description: string) => t.Object({ reference: t.String() }, { description });
const Coding = t.Object({ system: t.String({ format: "uri" }), code: t.String(), display: t.Optional(t.String()) });
const FHIR_ID = { pattern: "^[A-Za-z0-9\\-.]{1,64}$" };
const ContactUrl = t.Object({ system: t.Literal("url"), value: t.String({ format: "uri" }) });
/** A url whose value is absent, with its data-absent-reason (the IG allows these two codes). */
const AbsentUrl = t.Object(
  {
    extension: t.Array(
      t.Object({
        url: t.Literal("http://hl7.org/fhir/StructureDefinition/data-absent-reason"),
        valueCode: t.UnionEnum(["asked-unknown", "asked-declined"]),
      }),
      { minItems: 1, maxItems: 1 },
    ),
    system: t.Literal("url"),
  },
  { additionalProperties: false },
);
/** The data-absent-reason on a primitive's own element (`_value`): the value is required, and absent. */
const AbsentContactUrl = t.Object(
  {
    system: t.Literal("url"),
    _value: t.Object({ extension: AbsentUrl.properties.extension }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
const BrandsMeta = t.Optional(
  t.Object(
    { lastUpdated: t.String({ format: "date-time" }) },
    { description: "`brands` only: when the resource last changed (the newest of its entries)." },
  ),
);

/** An Endpoint resource of the export: one per distinct URL. */
export const FhirEndpointSchema = t.Object(
  {
    resourceType: t.Literal("Endpoint"),
    id: t.String({ ...FHIR_ID, description: "SHA-256 (hex) of the URL." }),
    meta: BrandsMeta,
    extension: t.Optional(
      t.Array(
        t.Union([
          t.Object({
            url: t.Literal(FHIR_VERSION_EXTENSION),
            valueCode: t.String(),
          }),
          t.Object({
            url: t.Literal(FHIR_VERSION_BASIS_EXTENSION),
            valueCode: t.String({
              enum: [...FHIR_VERSION_BASES],
              description:
                "How the version is known: probe (its CapabilityStatement), list (the list states it), url (its URL names it), certification (inferred from the developer's certified API, not seen), unknown (not recorded: an entry stored before evidence was).",
            }),
          }),
          t.Object({
            url: t.Literal(ENVIRONMENT_EXTENSION),
            valueCodeableConcept: t.Object({
              coding: t.Array(
                t.Object({
                  system: t.Literal(ENVIRONMENT_CODE_SYSTEM),
                  code: t.String({ enum: Object.keys(ENVIRONMENT_CODES).filter((code) => code !== "prod") }),
                  display: t.String(),
                }),
                { minItems: 1, maxItems: 1 },
              ),
            }),
          }),
        ]),
        {
          minItems: 1,
          description:
            "The FHIR version (`endpoint-fhir-version`) and how it is known (our own `endpoint-fhir-version-basis`), absent when the version is unknown (always present in `brands`); for a non-production Endpoint, FHIR R5's Endpoint.environmentType as its R4 cross-version extension, a code of http://hl7.org/fhir/endpoint-environment (test, dev, staging, train; docs/api.md, Environment).",
        },
      ),
    ),
    status: t.UnionEnum(["active", "error", "off"], { default: undefined }),
    connectionType: Coding,
    contact: t.Optional(
      t.Array(t.Union([ContactUrl, AbsentContactUrl]), {
        minItems: 1,
        maxItems: 1,
        description:
          "`brands` only: the developer's page for app developers (its endpointListUrl) when it is https://; else its value absent, with the data-absent-reason `asked-unknown` on `_value`.",
      }),
    ),
    payloadType: t.Array(t.Object({ coding: t.Array(Coding, { minItems: 1 }) }), { minItems: 1 }),
    address: t.String({ format: "uri", description: "The FHIR base URL." }),
    _address: t.Optional(
      t.Object(
        {
          extension: t.Array(
            t.Object({ url: t.Literal(URL_REPAIR_EXTENSION), valueCode: t.UnionEnum([...URL_REPAIRS]) }),
            { minItems: 1, maxItems: 1 },
          ),
        },
        {
          additionalProperties: false,
          description:
            "The address is a repair of what the list published, of this kind (docs/api.md, Enrichment): `cleaned`, `scheme-assumed`, or `host-guessed` (a guess until a probe verifies it).",
        },
      ),
    ),
    managingOrganization: t.Optional(
      Reference("Not in `brands`: the developer (EHR vendor), `Organization/developer-<vendorId>`."),
    ),
  },
  { additionalProperties: false },
);

/** An Organization resource of the export: a developer, or an organization of a developer. */
export const FhirOrganizationSchema = t.Object(
  {
    resourceType: t.Literal("Organization"),
    id: t.String({
      ...FHIR_ID,
      description: "`developer-<vendorId>` for a developer; else SHA-256 (hex) of the organization's key.",
    }),
    meta: BrandsMeta,
    identifier: t.Optional(
      t.Array(
        t.Object({ system: t.Union([t.Literal(NPI_SYSTEM), t.Literal(ORGANIZATION_ID_SYSTEM)]), value: t.String() }),
        {
          minItems: 1,
          description:
            "The NPI; for an organization with neither name nor NPI, our own identifier (docs/api.md, Organization identifier).",
        },
      ),
    ),
    name: t.Optional(t.String()),
    alias: t.Optional(
      t.Array(t.String(), {
        minItems: 1,
        description: "`brands` only: the other spellings of a practice merged into this brand.",
      }),
    ),
    text: t.Optional(
      t.Object(
        { status: t.Literal("additional"), div: t.String() },
        {
          additionalProperties: false,
          description:
            "`brands` only: why a brand carries an NPI another brand carries under another name (XHTML narrative).",
        },
      ),
    ),
    telecom: t.Optional(
      t.Array(t.Union([ContactUrl, AbsentUrl]), {
        minItems: 1,
        maxItems: 1,
        description:
          "`brands` only: the brand's website, on a developer its endpointListUrl; on an organization absent (no list publishes it), with the data-absent-reason `asked-unknown`.",
      }),
    ),
    address: t.Optional(
      t.Array(
        t.Object({
          city: t.Optional(t.String()),
          state: t.Optional(t.String()),
          postalCode: t.Optional(t.String()),
          country: t.Optional(t.Literal("US", { description: "`brands` only." })),
        }),
        { minItems: 1 },
      ),
    ),
    endpoint: t.Optional(t.Array(Reference("`Endpoint/<id>`."), { minItems: 1 })),
  },
  { additionalProperties: false },
);

/** format=fhir: a FHIR R4 Bundle of type collection (no `entry` when nothing matched). */
export const FhirBundleSchema = t.Object(
  {
    resourceType: t.Literal("Bundle"),
    meta: t.Optional(
      t.Object(
        { lastUpdated: t.String({ format: "date-time" }) },
        { description: "`brands` only: when the dataset was last refreshed." },
      ),
    ),
    type: t.Literal("collection"),
    timestamp: t.Optional(t.String({ format: "date-time", description: "When the dataset was last refreshed." })),
    entry: t.Optional(
      t.Array(
        t.Object(
          {
            fullUrl: t.String({
              format: "uri",
              description:
                "`<origin>/fhir/Endpoint/<id>` or `<origin>/fhir/Organization/<id>`: the server's public origin (PUBLIC_ORIGIN) in a download file, the request's origin when filtered.",
            }),
            resource: t.Union([FhirEndpointSchema, FhirOrganizationSchema]),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    ),
  },
  { additionalProperties: false, description: "A FHIR R4 Bundle of Endpoint and Organization resources." },
);

/**
 * The export's query: `format` plus exactly the list operation's filters, with the list's own
 * schemas (so they validate the same way and say the same in the docs). No `page` or `limit`:
 * the export returns every matching entry; no `sort`: it comes in the default order (with `near`,
 * nearest first, as the list without `sort`).
 */
export const ExportQuery = t.Object(
  {
    format: ExportFormatSchema,
    ...t.Omit(ListQuery, [...LIST_INTEGER_KEYS, ...LIST_ORDER_KEYS] as ["page", "limit", "sort"]).properties,
  },
  { additionalProperties: false },
);

export const EXPORT_QUERY_KEYS: ReadonlySet<string> = new Set(Object.keys(ExportQuery.properties));
/** The list's paging parameters, named in their own 400 (the export has no pages). */
export const PAGING_KEYS: readonly string[] = LIST_INTEGER_KEYS;
