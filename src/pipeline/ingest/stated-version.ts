import { releaseOfVersion } from "../../model/fhir-version";
import { FHIR_VERSIONS, type FhirVersion } from "../../model/types";

const NAMED = new Set<string>(FHIR_VERSIONS.filter((v) => v !== "UNKNOWN"));

/**
 * A FHIR version as a list or a server states it ("4.0.1", "R4", "fhirVersion=3.0") mapped to
 * the release it belongs to (docs/api.md, "FHIR version mapping"). Anything else → null (the caller decides UNKNOWN).
 */
export function fhirVersionFromString(raw: string | null | undefined): FhirVersion | null {
  if (!raw) return null;
  const text = raw.trim().toUpperCase();
  if (NAMED.has(text)) return text as FhirVersion;
  return releaseOfVersion(text);
}
