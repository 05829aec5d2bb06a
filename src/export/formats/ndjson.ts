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
      let text = "";
      for (const record of records) text += `${JSON.stringify(record)}\n`;
      return text;
    },
    end: () => "",
  };
}
