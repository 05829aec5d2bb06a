import type { EndpointRecord } from "../../directory/types";
import { EndpointRecordSchema } from "../../endpoints/schemas";
import type { ExportWriter } from "./writer";

/** The Endpoint record's fields in the spec's order (the record schema declares them in that order). */
const CSV_COLUMNS = Object.keys(EndpointRecordSchema.properties) as (keyof EndpointRecord)[];

const NEEDS_QUOTES = /[",\r\n]/;

/** One RFC 4180 field: quoted (inner quotes doubled) when it holds a quote, comma, CR or LF. */
function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const text = (value: string | null) => (value === null ? "" : NEEDS_QUOTES.test(value) ? csvField(value) : value);

/** One row, fields in CSV_COLUMNS order (direct reads: a loop over the column names costs twice as much). */
function row(r: EndpointRecord): string {
  return `${r.id},${text(r.url)},${text(r.vendorName)},${text(r.vendorId)},${text(r.organizationName)},${text(r.npi)},${text(r.tenantId)},${r.fhirVersion},${r.access.join("|")},${text(r.city)},${text(r.state)},${text(r.zipCode)},${r.status},${text(r.lastUpdated)}\r\n`;
}

/**
 * RFC 4180: a header row of the record's field names, then one row per entry, CRLF line
 * ends; `access` joined with `|`; an empty cell for null.
 */
export function csvWriter(): ExportWriter {
  return {
    begin: () => `${CSV_COLUMNS.join(",")}\r\n`,
    write(records: readonly EndpointRecord[]) {
      const rows: string[] = new Array(records.length);
      for (let i = 0; i < records.length; i++) rows[i] = row(records[i]!);
      return rows.join("");
    },
    end: () => "",
  };
}
