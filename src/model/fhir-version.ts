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
