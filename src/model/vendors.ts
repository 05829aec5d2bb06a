import { type Static, Type } from "@sinclair/typebox";
import { t } from "elysia";

/**
 * What kind of developer publishes the lists: `ehr`, a certified health IT developer (ONC's
 * CHPL); `payer`, a health plan or program (Medicare Advantage, Medicaid, marketplace) publishing
 * the Patient Access API the CMS Interoperability and Patient Access rule requires.
 */
export const VENDOR_KINDS = ["ehr", "payer"] as const;
export type VendorKind = (typeof VENDOR_KINDS)[number];

/** One vendor as /api/v1/vendors serves it; `VendorRecord` is its static type. */
export const VendorRecordSchema = t.Object({
  id: t.String({ description: "Vendor id; the `vendor` filter value of the list operation.", examples: ["epic"] }),
  name: t.String({ description: "Display name.", examples: ["Epic Systems"] }),
  kind: t.Union(
    VENDOR_KINDS.map((kind) => t.Literal(kind)),
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
  endpointListUrl: t.String({
    format: "uri",
    description: "The public page or file where the vendor publishes its endpoint list, as a person would open it.",
  }),
  lastScrapedAt: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "ISO 8601 time of the last successful scrape of any of the vendor's lists; null if never scraped.",
  }),
});

export const VendorListResponse = t.Object(
  { success: t.Literal(true), data: t.Array(VendorRecordSchema) },
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
