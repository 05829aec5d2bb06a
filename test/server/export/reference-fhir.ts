/**
 * The FHIR Bundle rendered from record objects, as the export first did it: the reference the
 * column renderer (src/server/export/formats/fhir.ts) must equal byte for byte. The code lists and
 * URLs are the renderer's own: this checks the rendering, the FHIR schema test checks the codes.
 */
import type { EndpointRecord } from "../../../src/model/endpoints";
import { ENVIRONMENT_CODES, environmentMatch } from "../../../src/model/environment";
import {
  CONNECTION_TYPE,
  FHIR_ENDPOINT_STATUS,
  FHIR_VERSION_BASIS_EXTENSION,
  FHIR_VERSION_CODE,
  FHIR_VERSION_EXTENSION,
  NPI_SYSTEM,
  ORGANIZATION_ID_SYSTEM,
  PAYLOAD_TYPE,
} from "../../../src/server/export/formats/fhir";

import { basisOfRecord } from "./helpers";

const sha256 = (text: string) => Bun.SHA256.hash(text, "hex") as string;

/** A resource id for a URL's Endpoint: the SHA-256 of the URL (stable across dataset versions). */
const fhirEndpointId = (url: string) => sha256(url);

/** Endpoint ids of recent URLs: entries sharing a URL (one per practice behind it) are often near each other. */
const RECENT_URLS = 4096;

interface Organization {
  id: string;
  record: EndpointRecord;
  endpointIds: string[];
}

function endpointJson(origin: string, record: EndpointRecord, id: string): string {
  const version = FHIR_VERSION_CODE[record.fhirVersion];
  const basis = basisOfRecord.get(record);
  // A non-production Endpoint: R5's environmentType as its R4 cross-version extension.
  const code =
    record.environment === "non-production" ? environmentMatch(record.url, record.organizationName)!.code : null;
  const items = [
    ...(version === null
      ? []
      : [
          `{"url":"${FHIR_VERSION_EXTENSION}","valueCode":"${version}"}`,
          `{"url":"${FHIR_VERSION_BASIS_EXTENSION}","valueCode":"${basis}"}`,
        ]),
    ...(code === null
      ? []
      : [
          `{"url":"http://hl7.org/fhir/5.0/StructureDefinition/extension-Endpoint.environmentType","valueCodeableConcept":{"coding":[{"system":"http://hl7.org/fhir/endpoint-environment","code":"${code}","display":"${ENVIRONMENT_CODES[code]}"}]}}`,
        ]),
  ];
  const extension = items.length === 0 ? "" : `"extension":[${items.join(",")}],`;
  return `{"fullUrl":"${origin}/fhir/Endpoint/${id}","resource":{"resourceType":"Endpoint","id":"${id}",${extension}"status":"${FHIR_ENDPOINT_STATUS[record.status]}","connectionType":${CONNECTION_TYPE},"payloadType":${PAYLOAD_TYPE},"address":${JSON.stringify(record.url)},"managingOrganization":{"reference":"Organization/developer-${record.vendorId}"}}}`;
}

/** The developer (vendor) as an Organization, named by its Endpoints' managingOrganization. */
function developerJson(origin: string, record: EndpointRecord): string {
  const id = `developer-${record.vendorId}`;
  return `{"fullUrl":"${origin}/fhir/Organization/${id}","resource":{"resourceType":"Organization","id":"${id}","name":${JSON.stringify(record.vendorName)}}}`;
}

function organizationJson(origin: string, { id, record, endpointIds }: Organization): string {
  let json = `{"fullUrl":"${origin}/fhir/Organization/${id}","resource":{"resourceType":"Organization","id":"${id}"`;
  if (record.npi !== null) json += `,"identifier":[{"system":"${NPI_SYSTEM}","value":"${record.npi}"}]`;
  else if (record.organizationName === null)
    json += `,"identifier":[{"system":"${ORGANIZATION_ID_SYSTEM}","value":"${id}"}]`;
  if (record.organizationName !== null) json += `,"name":${JSON.stringify(record.organizationName)}`;
  const address: string[] = [];
  if (record.city !== null) address.push(`"city":${JSON.stringify(record.city)}`);
  if (record.state !== null) address.push(`"state":${JSON.stringify(record.state)}`);
  if (record.zipCode !== null) address.push(`"postalCode":${JSON.stringify(record.zipCode)}`);
  if (address.length > 0) json += `,"address":[{${address.join(",")}}]`;
  json += `,"endpoint":[${endpointIds.map((endpointId) => `{"reference":"Endpoint/${endpointId}"}`).join(",")}]}}`;
  return json;
}

/**
 * One FHIR R4 Bundle of type `collection`, the shape vendors publish their lists in: an
 * Endpoint per distinct URL (first seen in list order; its status and version from that entry)
 * and an Organization per organization of a vendor (same vendor, name, NPI, city, state and
 * ZIP) with one `endpoint` reference per URL it publishes. Our own ingest reads it back into
 * the same entries (same ids).
 *
 * Streaming: the entries of one organization are adjacent in list order up to other
 * organizations of the same vendor and (case-insensitive) name, so organizations are collected
 * per such run and written when it ends; URLs already written are remembered as references to
 * the read model's own strings.
 */
export function referenceFhirWriter(timestamp: string | null, origin: string) {
  const written = new Set<string>();
  const developers = new Set<string>();
  let recent = new Map<string, string>();
  const endpointIdOf = (url: string) => {
    let id = recent.get(url);
    if (id === undefined) {
      id = fhirEndpointId(url);
      if (recent.size >= RECENT_URLS) recent = new Map();
      recent.set(url, id);
    }
    return id;
  };
  let run: string | null = null;
  let organizations = new Map<string, Organization>();
  let first = true;

  const item = (json: string) => {
    if (first) {
      first = false;
      return `,"entry":[${json}`;
    }
    return `,${json}`;
  };

  const flush = () => {
    let text = "";
    for (const organization of organizations.values()) text += item(organizationJson(origin, organization));
    organizations = new Map();
    return text;
  };

  return {
    begin: () =>
      `{"resourceType":"Bundle","type":"collection"${timestamp === null ? "" : `,"timestamp":"${timestamp}"`}`,
    write(records: readonly EndpointRecord[]) {
      const parts: string[] = [];
      for (const record of records) {
        const endpointId = endpointIdOf(record.url);
        // Every vendor's developer, at its first entry (also when its URLs are all another's).
        if (!developers.has(record.vendorId)) {
          developers.add(record.vendorId);
          parts.push(item(developerJson(origin, record)));
        }
        if (!written.has(record.url)) {
          written.add(record.url);
          parts.push(item(endpointJson(origin, record, endpointId)));
        }
        const runKey = `${record.vendorId}\n${record.organizationName?.toLowerCase() ?? "\u0001"}`;
        if (runKey !== run) {
          parts.push(flush());
          run = runKey;
        }
        // Separated by NUL, null written as SOH: neither occurs in a published name or place. Names
        // that differ only in case are one organization (the name lowercased in the grouping key),
        // named as its first entry names it, and its id hashes that first spelling.
        const rest = `${record.npi ?? "\u0001"}\0${record.city ?? "\u0001"}\0${record.state ?? "\u0001"}\0${record.zipCode ?? "\u0001"}`;
        const key = `${record.vendorId}\0${record.organizationName?.toLowerCase() ?? "\u0001"}\0${rest}`;
        const organization = organizations.get(key);
        if (organization) organization.endpointIds.push(endpointId);
        else {
          const named = `${record.vendorId}\0${record.organizationName ?? "\u0001"}\0${rest}`;
          organizations.set(key, { id: sha256(`Organization\n${named}`), record, endpointIds: [endpointId] });
        }
      }
      return parts.join("");
    },
    end: () => {
      const rest = flush();
      return first ? "}" : `${rest}]}`;
    },
  };
}
