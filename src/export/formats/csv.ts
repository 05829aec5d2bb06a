import type { EndpointRecord } from "../../directory/types";
import { EndpointRecordSchema } from "../../endpoints/schemas";
import type { ExportWriter } from "./writer";

/** The Endpoint record's fields in the spec's order (the record schema declares them in that order). */
export const CSV_COLUMNS = Object.keys(EndpointRecordSchema.properties) as (keyof EndpointRecord)[];

const NEEDS_QUOTES = /[",\r\n]/;

/** One RFC 4180 field: quoted (inner quotes doubled) when it holds a quote, comma, CR or LF. */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function cell(value: EndpointRecord[keyof EndpointRecord]): string {
  if (value === null) return "";
  if (Array.isArray(value)) return csvField(value.join("|"));
  return csvField(value);
}

/**
 * RFC 4180: a header row of the record's field names, then one row per entry, CRLF line
 * ends; `access` joined with `|`; an empty cell for null.
 */
export function csvWriter(): ExportWriter {
  return {
    begin: () => `${CSV_COLUMNS.join(",")}\r\n`,
    write(records: readonly EndpointRecord[]) {
      let text = "";
      for (const record of records) {
        let row = cell(record[CSV_COLUMNS[0]!]);
        for (let i = 1; i < CSV_COLUMNS.length; i++) row += `,${cell(record[CSV_COLUMNS[i]!])}`;
        text += `${row}\r\n`;
      }
      return text;
    },
    end: () => "",
  };
}
