/** Reading the fields we keep from FHIR Organization and Endpoint resources (R4 and DSTU2 shapes). */

export type Json = Record<string, unknown>;

const NPI_SYSTEMS = new Set([
  "http://hl7.org/fhir/sid/us-npi",
  // A typo some vendors publish (docs/api.md, "NPI").
  "http://hl7.org.fhir/sid/us-npi",
]);

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The first NPI-system identifier holding 10 digits; an organization may list several. */
export function organizationNpi(organization: Json): string | null {
  for (const identifier of asArray(organization.identifier)) {
    if (!isObject(identifier)) continue;
    const system = asString(identifier.system)?.trim();
    const value = asString(identifier.value)?.trim();
    if (system && NPI_SYSTEMS.has(system) && value && /^\d{10}$/.test(value)) return value;
  }
  return null;
}

export interface Address {
  city: string | null;
  state: string | null;
  zipCode: string | null;
}

/** The first address that is not marked `old`. */
export function organizationAddress(organization: Json): Address {
  const addresses = asArray(organization.address).filter(isObject);
  const address = addresses.find((a) => a.use !== "old") ?? addresses[0];
  if (!address) return { city: null, state: null, zipCode: null };
  return { city: asString(address.city), state: asString(address.state), zipCode: asString(address.postalCode) };
}

/** The value of an `endpoint-fhir-version` extension, when the Endpoint carries one. */
export function endpointFhirVersion(endpoint: Json): string | null {
  for (const extension of asArray(endpoint.extension)) {
    if (!isObject(extension) || !asString(extension.url)?.endsWith("endpoint-fhir-version")) continue;
    const coding = isObject(extension.valueCoding) ? asString(extension.valueCoding.code) : null;
    const value = asString(extension.valueCode) ?? asString(extension.valueString) ?? coding;
    if (value) return value;
  }
  return null;
}

/** False only for Endpoints that say they are not FHIR REST (Direct, IHE…). */
export function isFhirRestEndpoint(endpoint: Json): boolean {
  const connection = endpoint.connectionType;
  const codings = isObject(connection)
    ? connection.code !== undefined
      ? [connection]
      : asArray(connection.coding)
    : [];
  const codes = codings
    .filter(isObject)
    .map((c) => asString(c.code))
    .filter((c): c is string => c !== null);
  return codes.length === 0 || codes.some((code) => code === "hl7-fhir-rest" || code.startsWith("hl7-fhir"));
}
