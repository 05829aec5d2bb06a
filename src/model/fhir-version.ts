import type { FhirVersion } from "./types";

/** Compares dotted numeric versions; missing parts count as 0. */
function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The release a numeric FHIR version ("4.0.1", "3.0", "1.0.2") belongs to (docs/api.md, "FHIR version mapping"):
 * 0.4–1.0.2 → DSTU2; 1.1–3.0.2 → STU3; 3.2–4.0.1 → R4; 4.1, 4.3 → R4B; 4.2, 4.4–5.0.x → R5.
 * Null for anything else.
 */
export function releaseOfVersion(raw: string): FhirVersion | null {
  const match = /^\s*(\d+)\.(\d+)(?:\.(\d+))?/.exec(raw);
  if (!match) return null;
  const v = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  const [major, minor] = v as [number, number, number];
  if (compare(v, [0, 4]) >= 0 && compare(v, [1, 0, 2]) <= 0) return "DSTU2";
  if (compare(v, [1, 1]) >= 0 && compare(v, [3, 0, 2]) <= 0) return "STU3";
  if (compare(v, [3, 2]) >= 0 && compare(v, [4, 0, 1]) <= 0) return "R4";
  if (major === 4 && (minor === 1 || minor === 3)) return "R4B";
  if (major === 4 && minor === 2) return "R5";
  if (compare(v, [4, 4]) >= 0 && (major === 4 || (major === 5 && minor === 0))) return "R5";
  return null;
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
