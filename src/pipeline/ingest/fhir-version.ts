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

/** Path segments naming a release: FHIR Release 2 is DSTU2, Release 3 is STU3. */
const SEGMENTS: Record<string, FhirVersion> = {
  dstu2: "DSTU2",
  r2: "DSTU2",
  stu3: "STU3",
  dstu3: "STU3",
  r3: "STU3",
  r4: "R4",
  r4b: "R4B",
  r5: "R5",
};

/**
 * A release named by a path segment (case-insensitive) that is `r4`, `dstu2`, `R2`… or ends in
 * one after a separator (`-`, `_`, `.`): `/r4/`, `/fhir-R4`, `/open_r4/`, else null. Letters or
 * digits right before the name do not count (`/fhir4`, `/pr4`): on the national lists the
 * separator form adds exactly `fhir.ggclinic.com/fhir-R4` and `/open-R4`, and nothing else.
 */
export function fhirVersionFromUrl(url: string): FhirVersion | null {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  const match = /\/(?:[^/?#]*[-_.])?(dstu2|dstu3|stu3|r2|r3|r4b|r4|r5)(?=[/?#]|$)/i.exec(path);
  return match ? SEGMENTS[match[1]!.toLowerCase()]! : null;
}
