import { type Static, Type } from "@sinclair/typebox";

/**
 * What kind of developer publishes the lists: `ehr`, a certified health IT developer (ONC's
 * CHPL); `payer`, a health plan or program (Medicare Advantage, Medicaid, marketplace) publishing
 * the Patient Access API the CMS Interoperability and Patient Access rule requires.
 */
export const VENDOR_KINDS = ["ehr", "payer"] as const;
export type VendorKind = (typeof VENDOR_KINDS)[number];

/** One vendor as /api/v1/vendors serves it; `VendorRecord` is its static type. */
export const VendorRecordSchema = Type.Object({
  id: Type.String({ description: "Vendor id; the `vendor` filter value of the list operation.", examples: ["epic"] }),
  name: Type.String({ description: "Display name.", examples: ["Epic Systems"] }),
  kind: Type.Union(
    VENDOR_KINDS.map((kind) => Type.Literal(kind)),
    {
      description:
        "`ehr`: a certified health IT developer from ONC's CHPL; `payer`: a health plan or program publishing a Patient Access API (Medicare Advantage, Medicaid, marketplace plans). The `kind` filter of the list operation.",
      examples: ["ehr"],
    },
  ),
  endpointCount: Type.Integer({
    minimum: 0,
    description: "Entries of this vendor in the directory now; entries removed from its lists are not counted.",
  }),
  endpointListUrl: Type.String({
    format: "uri",
    description: "The public page or file where the vendor publishes its endpoint list, as a person would open it.",
  }),
  lastScrapedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
    description: "ISO 8601 time of the last successful scrape of any of the vendor's lists; null if never scraped.",
  }),
});

export const VendorListResponse = Type.Object(
  { success: Type.Literal(true), data: Type.Array(VendorRecordSchema) },
  {
    examples: [
      {
        success: true,
        data: [
          {
            id: "epic",
            name: "Epic Systems",
            kind: "ehr",
            endpointCount: 1297,
            endpointListUrl: "https://open.epic.com/MyApps/Endpoints",
            lastScrapedAt: "2026-11-25T03:12:40.000Z",
          },
        ],
      },
    ],
  },
);

/** The record the API serves: the static type of its response schema, never a second copy. */
export type VendorRecord = Static<typeof VendorRecordSchema>;
