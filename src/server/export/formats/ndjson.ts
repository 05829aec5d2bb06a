import { ACCESS, lookup, type RecordSource } from "../../../directory/render";
import { URL_EVIDENCE } from "../../../model/evidence";
import { type ByteBuffer, encodeTable } from "../../http/byte-buffer";
import type { ExportWriter } from "./writer";

/**
 * One Endpoint record per line, each exactly as the list operation serialises it
 * (`JSON.stringify` of `endpointRecordAt`'s record: its members in that order), written straight from
 * the columns.
 */
/** The record's `urlRepair` member (with its comma) and the line's end, per URL_EVIDENCE index: none for a URL as published. */
const URL_REPAIR_MEMBERS = URL_EVIDENCE.map((evidence) =>
  evidence === "published" ? "}\n" : `,"urlRepair":${JSON.stringify(evidence)}}\n`,
);

export function ndjsonWriter({ data, vendorNames }: RecordSource): ExportWriter {
  const { columns: c, strings: s } = data;
  // Small tables, encoded once per export: the vendor's two members, version, access, status.
  const vendors = encodeTable(s.vendorIds, (out, id) => {
    out.ascii(',"vendorName":');
    out.json(vendorNames.get(id) ?? id);
    out.ascii(',"vendorId":');
    out.json(id);
  });
  const versions = encodeTable(s.fhirVersions, (out, version) => {
    out.ascii(',"fhirVersion":');
    out.json(version);
  });
  const access = ACCESS.map((audiences) => `,"access":${JSON.stringify(audiences)}`);
  const statuses = encodeTable(s.statuses, (out, status) => {
    out.ascii(',"status":');
    out.json(status);
  });
  const { urls, organizationNames, tenantIds, cities, states, zipCodes, lastUpdated } = s;

  const line = (out: ByteBuffer, o: number) => {
    out.ascii('{"id":"');
    out.hex(c.id, o * 32, 32);
    out.ascii('","url":');
    out.json(urls[c.url[o]!]!);
    out.copy(vendors[c.vendor[o]!]!);
    out.ascii(',"organizationName":');
    out.jsonOrNull(lookup(organizationNames, c.organizationName[o]!));
    const npi = c.npi[o]!;
    if (npi === 0) out.ascii(',"npi":null');
    else {
      out.ascii(',"npi":"');
      out.integer(npi);
      out.ascii('"');
    }
    out.ascii(',"tenantId":');
    out.jsonOrNull(lookup(tenantIds, c.tenantId[o]!));
    out.copy(versions[c.fhirVersion[o]!]!);
    out.ascii(access[c.access[o]!]!);
    out.ascii(',"city":');
    out.jsonOrNull(lookup(cities, c.city[o]!));
    out.ascii(',"state":');
    out.jsonOrNull(lookup(states, c.state[o]!));
    out.ascii(',"zipCode":');
    out.jsonOrNull(lookup(zipCodes, c.zipCode[o]!));
    out.copy(statuses[c.status[o]!]!);
    out.ascii(',"lastUpdated":');
    out.json(lastUpdated[c.lastUpdated[o]!]!);
    out.ascii(c.environment[o] === 0 ? ',"environment":"production"' : ',"environment":"non-production"');
    out.ascii(URL_REPAIR_MEMBERS[c.urlEvidence[o]!]!);
  };

  return {
    begin: () => {},
    write(ordinals, from, to, out) {
      for (let i = from; i < to; i++) line(out, ordinals[i]!);
    },
    end: () => {},
  };
}
