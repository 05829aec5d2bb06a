import { urlEvidenceOf } from "../../directory/brands";
import { lookup } from "../../directory/render";
import { FHIR_VERSION_BASES, URL_EVIDENCE } from "../../model/evidence";
import type { EndpointStatus, FhirVersion } from "../../model/types";
import {
  addressRepairElement,
  CONNECTION_TYPE,
  endpointExtensions,
  environmentCodeAt,
  FHIR_ENDPOINT_STATUS,
  FHIR_VERSION_CODE,
  NPI_SYSTEM,
  ORGANIZATION_ID_SYSTEM,
  PAYLOAD_TYPE,
} from "../export/formats/fhir";
import type { FhirIndex } from "./fhir-index";

/** The export's Endpoint coding, as objects (parsed once from the export's own text). */
const CONNECTION = JSON.parse(CONNECTION_TYPE) as { system: string; code: string };
const PAYLOAD = JSON.parse(PAYLOAD_TYPE) as unknown[];
export const CONNECTION_SYSTEM = CONNECTION.system;
export const CONNECTION_CODE = CONNECTION.code;

type Resource = Record<string, unknown> & { resourceType: string; id: string };

/** FHIR Endpoint.status of Endpoint e (from its first entry). */
export function endpointStatus(index: FhirIndex, e: number): string {
  const { columns: c, strings: s } = index.data;
  return FHIR_ENDPOINT_STATUS[s.statuses[c.status[index.endpointFirst[e]!]!] as EndpointStatus];
}

/** The `endpoint-fhir-version` code of Endpoint e; null when its version is unknown. */
export function endpointVersionCode(index: FhirIndex, e: number): string | null {
  const { columns: c, strings: s } = index.data;
  return FHIR_VERSION_CODE[s.fhirVersions[c.fhirVersion[index.endpointFirst[e]!]!] as FhirVersion];
}

/**
 * Endpoint e as `export?format=fhir` writes it (same id, extension, status, connectionType,
 * payloadType, address), with `meta.lastUpdated` (the newest of its entries': a change to any of
 * them moves it) and `managingOrganization` (its developer).
 */
export function endpointResource(index: FhirIndex, e: number): Resource {
  const { columns: c, strings: s } = index.data;
  const o = index.endpointFirst[e]!;
  const extension = endpointExtensions(
    endpointVersionCode(index, e),
    FHIR_VERSION_BASES[c.fhirVersionBasis[o]!]!,
    environmentCodeAt(index.data, o),
  );
  const developer = index.developerOfEndpoint(e);
  return {
    resourceType: "Endpoint",
    id: index.endpointId(e),
    meta: { lastUpdated: s.lastUpdated[index.endpointUpdated[e]!]! },
    ...(extension.length === 0 ? {} : { extension }),
    status: endpointStatus(index, e),
    connectionType: CONNECTION,
    ...(developer === -1
      ? {}
      : {
          managingOrganization: {
            reference: `Organization/${index.organizationId(developer)}`,
            display: index.developers[developer]!.name,
          },
        }),
    payloadType: PAYLOAD,
    address: s.urls[c.url[o]!]!,
    ...addressRepairElement(URL_EVIDENCE[urlEvidenceOf(index.data)[c.url[o]!]!]!),
  };
}

/**
 * The Organization at position p: a developer (id `developer-<vendorId>`, its name), or an
 * organization as `export?format=fhir` writes it (NPI or our own identifier, name, address, a reference to
 * each of its Endpoints), with `meta.lastUpdated` (the newest of its entries).
 */
export function organizationResource(index: FhirIndex, p: number): Resource {
  const developers = index.developers.length;
  if (p < developers) {
    const updated = index.developerUpdated[p];
    return {
      resourceType: "Organization",
      id: index.organizationId(p),
      ...(updated ? { meta: { lastUpdated: updated } } : {}),
      name: index.developers[p]!.name,
    };
  }
  const g = p - developers;
  const { columns: c, strings: s } = index.data;
  const o = index.organizationFirst[g]!;
  const npi = c.npi[o]!;
  const name = lookup(s.organizationNames, c.organizationName[o]!);
  const city = lookup(s.cities, c.city[o]!);
  const state = lookup(s.states, c.state[o]!);
  const postalCode = lookup(s.zipCodes, c.zipCode[o]!);
  const address: Record<string, string> = {};
  if (city !== null) address.city = city;
  if (state !== null) address.state = state;
  if (postalCode !== null) address.postalCode = postalCode;
  const endpoints: { reference: string }[] = [];
  const { organizationEndpointOffsets: offsets, organizationEndpoints } = index;
  for (let k = offsets[g]!; k < offsets[g + 1]!; k++)
    endpoints.push({ reference: `Endpoint/${index.endpointId(organizationEndpoints[k]!)}` });
  const id = index.organizationId(p);
  // Neither name nor NPI: our own identifier, as the export gives (FHIR invariant org-1).
  const identifier =
    npi !== 0
      ? { system: NPI_SYSTEM, value: String(npi) }
      : name === null
        ? { system: ORGANIZATION_ID_SYSTEM, value: id }
        : null;
  return {
    resourceType: "Organization",
    id,
    meta: { lastUpdated: s.lastUpdated[index.organizationUpdated[g]!]! },
    ...(identifier === null ? {} : { identifier: [identifier] }),
    ...(name === null ? {} : { name }),
    ...(city === null && state === null && postalCode === null ? {} : { address: [address] }),
    endpoint: endpoints,
  };
}
