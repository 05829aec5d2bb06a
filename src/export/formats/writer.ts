import type { EndpointRecord } from "../../directory/types";

/**
 * Turns the export's records into text, in slices: `begin`, then `write` for consecutive runs
 * of records in list order, then `end`. A writer keeps only what its format needs between
 * slices (never the records themselves), so memory does not grow with the export.
 */
export interface ExportWriter {
  begin(): string;
  write(records: readonly EndpointRecord[]): string;
  end(): string;
}
