/**
 * A FHIR resource as the tests of whole exports read it (the FHIR export, the brands bundle,
 * Bundles of /fhir): every field they look at, each optional, as a server may leave it out.
 */
export interface FhirResource {
  resourceType: string;
  id?: string;
  meta?: { lastUpdated?: string };
  type?: string;
  timestamp?: string;
  total?: number;
  name?: string;
  identifier?: { system?: string; value?: string }[];
  telecom?: { system?: string; value?: string; extension?: { url: string; valueCode?: string }[] }[];
  contact?: { system?: string; value?: string; _value?: { extension?: { url: string; valueCode?: string }[] } }[];
  extension?: { url: string; valueCode?: string }[];
  status?: string;
  connectionType?: { system: string; code: string };
  payloadType?: { coding: { system: string; code: string }[] }[];
  address?: unknown;
  endpoint?: { reference: string }[];
  managingOrganization?: { reference: string };
  partOf?: { reference: string };
  entry?: { fullUrl: string; resource: FhirResource }[];
  link?: { relation: string; url: string }[];
}
