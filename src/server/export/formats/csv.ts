import { ACCESS, lookup, type RecordSource } from "../../../directory/render";
import type { EndpointRecord } from "../../../model/endpoints";
import { EndpointRecordSchema } from "../../../model/endpoints";
import { FHIR_VERSION_BASES, URL_EVIDENCE } from "../../../model/evidence";
import { type ByteBuffer, encodeTable } from "../../http/byte-buffer";
import type { ExportWriter } from "./writer";

/**
 * The Endpoint record's fields in the spec's order (the record schema declares them in that
 * order), then `fhirVersionBasis`: how the entry's fhirVersion is known (FHIR_VERSION_BASES).
 */
const CSV_COLUMNS = [...(Object.keys(EndpointRecordSchema.properties) as (keyof EndpointRecord)[]), "fhirVersionBasis"];

/** The `urlRepair` cell with its comma, per URL_EVIDENCE index: empty for a URL as published. */
const URL_REPAIR_CELLS = URL_EVIDENCE.map((evidence) => (evidence === "published" ? "," : `,${evidence}`));

/** A field after its comma: RFC 4180 (quoted, inner quotes doubled, when it holds a quote, comma, CR or LF); an empty cell for null. */
function field(out: ByteBuffer, value: string | null) {
  out.ascii(",");
  if (value !== null) out.csv(value);
}

/**
 * RFC 4180: a header row (the record's field names, then fhirVersionBasis), then one row per entry, CRLF line
 * ends; `access` joined with `|`; an empty cell for null. Fields in CSV_COLUMNS order, written
 * straight from the columns.
 */
export function csvWriter({ data, vendorNames }: RecordSource): ExportWriter {
  const { columns: c, strings: s } = data;
  const vendors = encodeTable(s.vendorIds, (out, id) => {
    field(out, vendorNames.get(id) ?? id);
    field(out, id);
  });
  const versions = encodeTable(s.fhirVersions, field);
  const access = encodeTable(
    ACCESS.map((audiences) => audiences.join("|")),
    field,
  );
  const statuses = encodeTable(s.statuses, field);
  const { urls, organizationNames, tenantIds, cities, states, zipCodes, lastUpdated } = s;

  const row = (out: ByteBuffer, o: number) => {
    out.hex(c.id, o * 32, 32);
    field(out, urls[c.url[o]!]!);
    out.copy(vendors[c.vendor[o]!]!);
    field(out, lookup(organizationNames, c.organizationName[o]!));
    out.ascii(",");
    const npi = c.npi[o]!;
    if (npi !== 0) out.integer(npi);
    field(out, lookup(tenantIds, c.tenantId[o]!));
    out.copy(versions[c.fhirVersion[o]!]!);
    out.copy(access[c.access[o]!]!);
    field(out, lookup(cities, c.city[o]!));
    field(out, lookup(states, c.state[o]!));
    field(out, lookup(zipCodes, c.zipCode[o]!));
    out.copy(statuses[c.status[o]!]!);
    field(out, lastUpdated[c.lastUpdated[o]!]!);
    out.ascii(c.environment[o] === 0 ? ",production" : ",non-production");
    out.ascii(URL_REPAIR_CELLS[c.urlEvidence[o]!]!);
    field(out, FHIR_VERSION_BASES[c.fhirVersionBasis[o]!]!);
    out.ascii("\r\n");
  };

  return {
    begin: (out) => out.utf8(`${CSV_COLUMNS.join(",")}\r\n`),
    write(ordinals, from, to, out) {
      for (let i = from; i < to; i++) row(out, ordinals[i]!);
    },
    end: () => {},
  };
}
