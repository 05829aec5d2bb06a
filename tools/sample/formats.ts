/** Writers for the list formats vendors really publish. Output is deterministic text. */

const NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi";
/** The typo some vendors publish; ingest accepts it too. */
const NPI_SYSTEM_TYPO = "http://hl7.org.fhir/sid/us-npi";

export interface SampleAddress {
  line: string;
  city: string;
  state: string;
  zip: string;
}

export interface SampleEntry {
  url: string;
  name: string;
  npi?: string;
  npiTypo?: boolean;
  /** Bundle formats: the Endpoint resource id (may differ from the tenant in the URL). */
  endpointId?: string;
  /** Epic format: the contained Organization id. */
  orgId?: string;
  oid?: string;
  address?: SampleAddress;
  /** Written as the full state name instead of the USPS code (CSV lists do this). */
  stateAsName?: string;
}

function identifiers(entry: SampleEntry): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  if (entry.oid) out.push({ use: "official", system: "urn:ietf:rfc:3986", value: `urn:oid:${entry.oid}` });
  if (entry.npi) out.push({ use: "official", system: entry.npiTypo ? NPI_SYSTEM_TYPO : NPI_SYSTEM, value: entry.npi });
  return out;
}

function fhirAddress(address: SampleAddress) {
  return [{ line: [address.line], city: address.city, state: address.state, postalCode: address.zip, country: "US" }];
}

const CONNECTION_TYPE = {
  system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type",
  code: "hl7-fhir-rest",
  display: "HL7 FHIR",
};

/**
 * FHIR Bundle `collection` of Endpoint and Organization entries linked by
 * Organization.endpoint (Oracle Health, Veradigm, Greenway, Practice Fusion, MEDHOST).
 */
export function fhirBundle(opts: {
  id: string;
  timestamp: string;
  base: string;
  fhirVersion?: string;
  entries: SampleEntry[];
}): string {
  const entry: unknown[] = [];
  for (const e of opts.entries) {
    const endpointId = e.endpointId ?? "";
    const endpoint: Record<string, unknown> = { resourceType: "Endpoint", id: endpointId };
    if (opts.fhirVersion)
      endpoint.extension = [
        { url: "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version", valueCode: opts.fhirVersion },
      ];
    Object.assign(endpoint, {
      status: "active",
      connectionType: CONNECTION_TYPE,
      name: e.name,
      payloadType: [
        { coding: [{ system: "http://terminology.hl7.org/CodeSystem/endpoint-payload-type", code: "none" }] },
      ],
      address: e.url,
    });
    entry.push({ fullUrl: `${opts.base}/Endpoint/${endpointId}`, resource: endpoint });
    const organization: Record<string, unknown> = { resourceType: "Organization", id: `O${endpointId}` };
    const ids = identifiers(e);
    if (ids.length > 0) organization.identifier = ids;
    organization.active = true;
    organization.name = e.name;
    if (e.address) organization.address = fhirAddress(e.address);
    organization.endpoint = [{ reference: `Endpoint/${endpointId}` }];
    entry.push({ fullUrl: `${opts.base}/Organization/O${endpointId}`, resource: organization });
  }
  return `${JSON.stringify({ resourceType: "Bundle", id: opts.id, type: "collection", timestamp: opts.timestamp, entry }, null, 1)}\n`;
}

/** Epic's format: Endpoints each with a contained Organization referenced without '#'. */
export function epicBundle(opts: { timestamp: string; entries: SampleEntry[] }): string {
  const entry = opts.entries.map((e) => {
    const org: Record<string, unknown> = { resourceType: "Organization", id: e.orgId };
    const ids = identifiers(e);
    if (ids.length > 0) org.identifier = ids;
    org.name = e.name;
    if (e.address) org.address = fhirAddress(e.address);
    return {
      resource: {
        resourceType: "Endpoint",
        id: e.endpointId,
        contained: [org],
        status: "active",
        connectionType: { system: CONNECTION_TYPE.system, code: CONNECTION_TYPE.code },
        name: e.name,
        managingOrganization: { reference: e.orgId },
        payloadType: [
          {
            coding: [
              { system: "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/EndpointPayloadTypeCS", code: "NA" },
            ],
          },
        ],
        payloadMimeType: ["application/fhir+json", "application/json+fhir"],
        address: `${e.url}/`,
      },
    };
  });
  return `${JSON.stringify({ resourceType: "Bundle", type: "collection", timestamp: opts.timestamp, total: entry.length, entry }, null, 1)}\n`;
}

/** Lantern's flat format (eClinicalWorks, athenahealth). */
export function lanternFlat(entries: SampleEntry[]): string {
  const Endpoints = entries.map((e) => ({
    URL: e.url,
    OrganizationName: e.name,
    NPIID: e.npi ?? "",
    OrganizationZipCode: e.address?.zip ?? "",
  }));
  return `${JSON.stringify({ Endpoints }, null, "\t")}\n`;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** CSV with a header row, RFC 4180 quoting, CRLF line ends (as spreadsheets export it). */
export function csv(header: string[], rows: string[][]): string {
  return `${[header, ...rows].map((row) => row.map(csvField).join(",")).join("\r\n")}\r\n`;
}
