import { fhirVersionFromUrl } from "../../../model/fhir-version";
import type { FhirVersion } from "../../../model/types";

/**
 * Path patterns of real published URLs that name their FHIR version other than by a plain
 * `/r4/` segment (which fhirVersionFromUrl reads): MEDITECH's Argonaut (DSTU2) and US Core (R4)
 * paths, IBM FHIR Server's `/api/v4/`, and version numbers as segments. A FHIR release number of
 * three parts names it anywhere (`/4_0_0`, `/4.0.1`, `/3.0.2`, `/1.0.2`); one of two parts only
 * right after a `fhir` segment (`/fhir/4.0`): elsewhere `4.0` may be the version of the vendor's
 * own API (`/fhir/chirp/4.0`), so it names nothing.
 */
const PATTERNS: [RegExp, FhirVersion][] = [
  [/\/argonaut(?=\/|$)/i, "DSTU2"],
  [/\/uscore(?=\/|$)/i, "R4"],
  [/\/fhir-server\/api\/v4(?=\/|$)/i, "R4"],
  [/\/(?:fhir\/4[._]0|4[._]0[._][01])(?=\/|$)/i, "R4"],
  [/\/(?:fhir\/3[._]0|3[._]0[._][12])(?=\/|$)/i, "STU3"],
  [/\/1[._]0[._]2(?=\/|$)/i, "DSTU2"],
];

/**
 * The version a URL names, in any of the patterns seen in published lists, else null: its path
 * (a version segment, PATTERNS), or an `argonaut` label in its host (the Argonaut project's
 * profiles are DSTU2).
 */
export function fhirVersionOfUrl(url: string): FhirVersion | null {
  const plain = fhirVersionFromUrl(url);
  if (plain !== null) return plain;
  const host = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? "";
  if (/(?:^|\.)argonaut/i.test(host)) return "DSTU2";
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").replace(/[?#].*$/, "");
  for (const [pattern, version] of PATTERNS) if (pattern.test(path)) return version;
  return null;
}
