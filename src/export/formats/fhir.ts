import { lookup, type RecordSource } from "../../directory/render";
import type { EndpointStatus, FhirVersion } from "../../directory/types";
import { type ByteBuffer, encodeTable } from "./bytes";
import type { ExportWriter } from "./writer";

const NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi";
const FHIR_VERSION_EXTENSION = "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version";

/** Our status → FHIR Endpoint.status. listed: published by the vendor, not yet probed, so taken as active. */
const FHIR_ENDPOINT_STATUS: Record<EndpointStatus, string> = {
  listed: "active",
  verified: "active",
  unresponsive: "error",
  removed: "off",
};

/** Our release → the FHIR version code of the `endpoint-fhir-version` extension (none for UNKNOWN). */
const FHIR_VERSION_CODE: Record<FhirVersion, string | null> = {
  DSTU2: "1.0.2",
  STU3: "3.0.2",
  R4: "4.0.1",
  R4B: "4.3.0",
  R5: "5.0.0",
  UNKNOWN: null,
};

const CONNECTION_TYPE =
  '{"system":"http://terminology.hl7.org/CodeSystem/endpoint-connection-type","code":"hl7-fhir-rest"}';
const PAYLOAD_TYPE =
  '[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/endpoint-payload-type","code":"any","display":"Any"}]}]';

/** Written for a null member of an organization's key: neither it nor NUL occurs in a published name or place. */
const NULL_PART = "\u0001";

/** An organization of the current run: its id, the entry it was first seen in, the URLs it publishes. */
interface Organization {
  id: string;
  ordinal: number;
  /** Indexes into the URL table, one per entry, in list order. */
  urls: number[];
}

/**
 * One FHIR R4 Bundle of type `collection`, the shape vendors publish their lists in: an
 * Endpoint per distinct URL (first seen in list order; its status and version from that entry)
 * and an Organization per organization of a vendor (same vendor, name, NPI, city, state and
 * ZIP) with one `endpoint` reference per URL it publishes. Our own ingest reads it back into
 * the same entries (same ids). Resource ids are SHA-256 hashes: of the URL for an Endpoint, of
 * the organization's key for an Organization (stable across dataset versions).
 *
 * Streaming: the entries of one organization are adjacent in list order up to other
 * organizations of the same vendor and (case-insensitive) name, so organizations are collected
 * per such run and written when it ends; the URLs already written are one bit each.
 */
export function fhirWriter({ data }: RecordSource, timestamp: string | null): ExportWriter {
  const { columns: c, strings: s } = data;
  const written = new Uint8Array((s.urls.length >> 3) + 1);
  const hash = new Uint8Array(32);
  const endpointId = (out: ByteBuffer, urlIndex: number) => {
    Bun.SHA256.hash(s.urls[urlIndex]!, hash);
    out.hex(hash, 0, 32);
  };
  // Per status and version: the Endpoint's members between its id and its address.
  const statuses = s.statuses.map((status) => FHIR_ENDPOINT_STATUS[status as EndpointStatus]);
  const extensions = s.fhirVersions.map((version) => {
    const code = FHIR_VERSION_CODE[version as FhirVersion];
    return code === null ? "" : `"extension":[{"url":"${FHIR_VERSION_EXTENSION}","valueCode":"${code}"}],`;
  });
  const middles = extensions.map((extension) =>
    encodeTable(statuses, (out, status) =>
      out.ascii(
        `",${extension}"status":"${status}","connectionType":${CONNECTION_TYPE},"payloadType":${PAYLOAD_TYPE},"address":`,
      ),
    ),
  );

  let first = true;
  const item = (out: ByteBuffer) => {
    if (first) first = false;
    else out.ascii(",");
  };

  // The current run: a vendor and an organization name (case-insensitive; NULL_PART for none).
  let runVendor = -1;
  let runName = -2;
  let runFolded = "";
  let organizations: Organization[] = [];

  const sameRun = (vendor: number, name: number) => {
    if (vendor !== runVendor) return false;
    if (name === runName) return true;
    const folded = name < 0 ? NULL_PART : s.organizationNames[name]!.toLowerCase();
    return folded === runFolded;
  };

  /** The organization of an entry among the run's: same name, NPI, city, state and ZIP (same vendor by the run). */
  const organizationOf = (o: number): Organization | undefined => {
    const name = lookup(s.organizationNames, c.organizationName[o]!);
    const npi = c.npi[o]!;
    const city = lookup(s.cities, c.city[o]!);
    const state = lookup(s.states, c.state[o]!);
    const zipCode = lookup(s.zipCodes, c.zipCode[o]!);
    for (const organization of organizations) {
      const p = organization.ordinal;
      if (
        c.npi[p] === npi &&
        lookup(s.organizationNames, c.organizationName[p]!) === name &&
        lookup(s.cities, c.city[p]!) === city &&
        lookup(s.states, c.state[p]!) === state &&
        lookup(s.zipCodes, c.zipCode[p]!) === zipCode
      )
        return organization;
    }
    return undefined;
  };

  /** The organization's key, as its id hashes it (vendor, name, NPI, city, state, ZIP; NUL-separated). */
  const organizationKey = (o: number) => {
    const npi = c.npi[o]!;
    return [
      s.vendorIds[c.vendor[o]!]!,
      lookup(s.organizationNames, c.organizationName[o]!) ?? NULL_PART,
      npi === 0 ? NULL_PART : String(npi),
      lookup(s.cities, c.city[o]!) ?? NULL_PART,
      lookup(s.states, c.state[o]!) ?? NULL_PART,
      lookup(s.zipCodes, c.zipCode[o]!) ?? NULL_PART,
    ].join("\0");
  };

  const writeOrganization = (out: ByteBuffer, { id, ordinal: o, urls }: Organization) => {
    item(out);
    out.ascii(`{"resource":{"resourceType":"Organization","id":"${id}"`);
    const npi = c.npi[o]!;
    if (npi !== 0) {
      out.ascii(`,"identifier":[{"system":"${NPI_SYSTEM}","value":"`);
      out.integer(npi);
      out.ascii('"}]');
    }
    const name = lookup(s.organizationNames, c.organizationName[o]!);
    if (name !== null) {
      out.ascii(',"name":');
      out.json(name);
    }
    const city = lookup(s.cities, c.city[o]!);
    const state = lookup(s.states, c.state[o]!);
    const zipCode = lookup(s.zipCodes, c.zipCode[o]!);
    if (city !== null || state !== null || zipCode !== null) {
      out.ascii(',"address":[{');
      let comma = false;
      for (const [member, value] of [
        ["city", city],
        ["state", state],
        ["postalCode", zipCode],
      ] as const) {
        if (value === null) continue;
        out.ascii(comma ? `,"${member}":` : `"${member}":`);
        out.json(value);
        comma = true;
      }
      out.ascii("}]");
    }
    out.ascii(',"endpoint":[');
    for (let i = 0; i < urls.length; i++) {
      out.ascii(i === 0 ? '{"reference":"Endpoint/' : ',{"reference":"Endpoint/');
      endpointId(out, urls[i]!);
      out.ascii('"}');
    }
    out.ascii("]}}");
  };

  const flush = (out: ByteBuffer) => {
    for (const organization of organizations) writeOrganization(out, organization);
    organizations = [];
  };

  const entry = (out: ByteBuffer, o: number) => {
    const url = c.url[o]!;
    if ((written[url >> 3]! & (1 << (url & 7))) === 0) {
      written[url >> 3]! |= 1 << (url & 7);
      item(out);
      out.ascii('{"resource":{"resourceType":"Endpoint","id":"');
      endpointId(out, url);
      out.copy(middles[c.fhirVersion[o]!]![c.status[o]!]!);
      out.json(s.urls[url]!);
      out.ascii("}}");
    }
    const vendor = c.vendor[o]!;
    const name = c.organizationName[o]!;
    if (!sameRun(vendor, name)) {
      flush(out);
      runVendor = vendor;
      runName = name;
      runFolded = name < 0 ? NULL_PART : s.organizationNames[name]!.toLowerCase();
    }
    const organization = organizationOf(o);
    if (organization) organization.urls.push(url);
    else
      organizations.push({
        id: Bun.SHA256.hash(`Organization\n${organizationKey(o)}`, "hex") as string,
        ordinal: o,
        urls: [url],
      });
  };

  return {
    begin: (out) =>
      out.text(
        `{"resourceType":"Bundle","type":"collection"${timestamp === null ? "" : `,"timestamp":"${timestamp}"`},"entry":[`,
      ),
    write(ordinals, from, to, out) {
      for (let i = from; i < to; i++) entry(out, ordinals[i]!);
    },
    end(out) {
      flush(out);
      out.ascii("]}");
    },
  };
}
