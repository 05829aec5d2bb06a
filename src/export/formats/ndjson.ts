import type { EndpointRecord } from "../../directory/types";
import type { ExportWriter } from "./writer";

/**
 * One Endpoint record per line, each exactly as the list operation serialises it (the list
 * sends `JSON.stringify` of the same record objects, in an array).
 */
export function ndjsonWriter(): ExportWriter {
  return {
    begin: () => "",
    write(records: readonly EndpointRecord[]) {
      const lines: string[] = new Array(records.length);
      for (let i = 0; i < records.length; i++) lines[i] = `${JSON.stringify(records[i])}\n`;
      return lines.join("");
    },
    end: () => "",
  };
}
