import type { Audience, EndpointRecord, EndpointStatus, FhirVersion } from "./types";

/** Column list shared by every statement that reads endpoint records. */
export const ENDPOINT_COLUMNS =
  "e.id, e.url, e.vendor_id, e.organization_name, e.npi, e.tenant_id, e.fhir_version, e.access, e.city, e.state, e.zip_code, e.status, e.last_updated";

export type EndpointRow = [
  id: string,
  url: string,
  vendorId: string,
  organizationName: string | null,
  npi: string | null,
  tenantId: string | null,
  fhirVersion: string,
  access: string,
  city: string | null,
  state: string | null,
  zipCode: string | null,
  status: string,
  lastUpdated: string,
];

export function toEndpointRecord(row: EndpointRow, vendorName: string): EndpointRecord {
  return {
    id: row[0],
    url: row[1],
    vendorName,
    vendorId: row[2],
    organizationName: row[3],
    npi: row[4],
    tenantId: row[5],
    fhirVersion: row[6] as FhirVersion,
    access: JSON.parse(row[7]) as Audience[],
    city: row[8],
    state: row[9],
    zipCode: row[10],
    status: row[11] as EndpointStatus,
    lastUpdated: row[12],
  };
}
