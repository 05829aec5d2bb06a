import type { ParseResult, RawEntry } from "../types";
import {
  asArray,
  asString,
  endpointFhirVersion,
  isFhirRestEndpoint,
  isObject,
  type Json,
  organizationAddress,
  organizationNpi,
} from "./fhir-organization";

/**
 * A FHIR Bundle of Endpoint resources. An Endpoint's organizations are found three ways, as
 * vendors publish them:
 * - an Organization in the Bundle whose `endpoint[]` references it (Oracle Health, eCW, …);
 * - a `contained` Organization named by `managingOrganization`, with or without the `#` (Epic);
 * - an Organization in the Bundle named by `managingOrganization` (unless it lists no endpoints
 *   while others list this one: then it is the server's operator, such as the developer).
 * An Endpoint without any yields one entry named after `Endpoint.name`.
 */
export function parseFhirBundle(bundle: Json): ParseResult {
  const endpoints: Json[] = [];
  const organizations: Json[] = [];
  const endpointByRef = new Map<string, Json>();
  const organizationByRef = new Map<string, Json>();
  let skipped = 0;

  for (const item of asArray(bundle.entry)) {
    const resource = isObject(item) ? item.resource : undefined;
    if (!isObject(resource)) {
      skipped++;
      continue;
    }
    const fullUrl = isObject(item) ? asString(item.fullUrl) : null;
    const type = resource.resourceType;
    const id = asString(resource.id);
    if (type === "Endpoint") {
      endpoints.push(resource);
      if (id) endpointByRef.set(`Endpoint/${id}`, resource);
      if (fullUrl) endpointByRef.set(fullUrl, resource);
    } else if (type === "Organization") {
      organizations.push(resource);
      if (id) organizationByRef.set(`Organization/${id}`, resource);
      if (fullUrl) organizationByRef.set(fullUrl, resource);
    }
  }

  const organizationsOf = new Map<Json, Json[]>();
  for (const organization of organizations) {
    for (const link of asArray(organization.endpoint)) {
      const endpoint = resolve(endpointByRef, "Endpoint", isObject(link) ? asString(link.reference) : null);
      if (!endpoint) {
        skipped++;
        continue;
      }
      const list = organizationsOf.get(endpoint) ?? [];
      list.push(organization);
      organizationsOf.set(endpoint, list);
    }
  }

  const entries: RawEntry[] = [];
  for (const endpoint of endpoints) {
    const address = asString(endpoint.address)?.trim();
    if (!address || !isFhirRestEndpoint(endpoint)) {
      skipped++;
      continue;
    }
    const linked = new Set(organizationsOf.get(endpoint) ?? []);
    const managing = managingOrganization(endpoint, organizationByRef);
    // A managing Organization that lists no endpoints, of an Endpoint other Organizations list,
    // runs the server rather than being served by it (our export names the developer so): it
    // adds no entry.
    const operator = managing !== undefined && linked.size > 0 && asArray(managing.endpoint).length === 0;
    if (managing && !operator) linked.add(managing);
    const version = endpointFhirVersion(endpoint);
    if (linked.size === 0) {
      entries.push({
        url: address,
        organizationName: asString(endpoint.name),
        npi: null,
        city: null,
        state: null,
        zipCode: null,
        fhirVersion: version,
      });
      continue;
    }
    for (const organization of linked) {
      entries.push({
        url: address,
        organizationName: asString(organization.name) ?? asString(endpoint.name),
        npi: organizationNpi(organization),
        ...organizationAddress(organization),
        fhirVersion: version,
      });
    }
  }
  const next = asArray(bundle.link).find((link) => isObject(link) && link.relation === "next");
  const nextPageUrl = isObject(next) ? asString(next.url) : null;
  return { format: "fhir-bundle", entries, skipped, ...(nextPageUrl ? { nextPageUrl } : {}) };
}

/** `Endpoint/abc`, `https://host/fhir/Endpoint/abc` or a Bundle `fullUrl` (`urn:uuid:…`). */
function resolve(byRef: Map<string, Json>, type: string, reference: string | null): Json | undefined {
  if (!reference) return undefined;
  const direct = byRef.get(reference);
  if (direct) return direct;
  const tail = new RegExp(`(?:^|/)${type}/([^/]+)(?:/_history/[^/]+)?$`).exec(reference);
  return tail ? byRef.get(`${type}/${tail[1]}`) : undefined;
}

function managingOrganization(endpoint: Json, organizationByRef: Map<string, Json>): Json | undefined {
  const reference = isObject(endpoint.managingOrganization) ? asString(endpoint.managingOrganization.reference) : null;
  if (!reference) return undefined;
  const localId = reference.startsWith("#") ? reference.slice(1) : reference;
  const contained = asArray(endpoint.contained).find(
    (resource): resource is Json =>
      isObject(resource) && resource.resourceType === "Organization" && resource.id === localId,
  );
  return contained ?? resolve(organizationByRef, "Organization", reference);
}
