import { t } from "elysia";
import { LIST_INTEGER_KEYS, ListQuery } from "../../model/endpoints";

const EXPORT_FORMATS = ["csv", "ndjson", "fhir"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The export's query: `format` plus exactly the list operation's filters, with the list's own
 * schemas (so they validate the same way and say the same in the docs). No `page` or `limit`:
 * the export returns every matching entry.
 */
export const ExportQuery = t.Object(
  {
    format: t.String({
      pattern: `^(?:${EXPORT_FORMATS.join("|")})$`,
      enum: [...EXPORT_FORMATS],
      error: "format: must be csv, ndjson or fhir",
      description:
        "Required. `csv`: text/csv, a header row then one row per entry; `ndjson`: one Endpoint record per line, as the list returns it; `fhir`: one FHIR R4 Bundle (type collection) of Endpoint and Organization resources.",
      examples: ["csv"],
    }),
    ...t.Omit(ListQuery, LIST_INTEGER_KEYS as ["page", "limit"]).properties,
  },
  { additionalProperties: false },
);

export const EXPORT_QUERY_KEYS: ReadonlySet<string> = new Set(Object.keys(ExportQuery.properties));
/** The list's paging parameters, named in their own 400 (the export has no pages). */
export const PAGING_KEYS: readonly string[] = LIST_INTEGER_KEYS;
