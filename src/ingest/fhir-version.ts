import { FHIR_VERSIONS, type FhirVersion } from "../directory/types";

const NAMED = new Set<string>(FHIR_VERSIONS.filter((v) => v !== "UNKNOWN"));

/** Compares dotted numeric versions; missing parts count as 0. */
function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * A FHIR version as a list or a server states it ("4.0.1", "R4", "fhirVersion=3.0") mapped to
 * the release it belongs to, per CONTRACT.md. Anything else → null (the caller decides UNKNOWN).
 */
export function fhirVersionFromString(raw: string | null | undefined): FhirVersion | null {
  if (!raw) return null;
  const text = raw.trim().toUpperCase();
  if (NAMED.has(text)) return text as FhirVersion;
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return null;
  const v = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  const [major, minor] = v as [number, number, number];
  if (compare(v, [0, 4]) >= 0 && compare(v, [1, 0, 2]) <= 0) return "DSTU2";
  if (compare(v, [1, 1]) >= 0 && compare(v, [3, 0, 2]) <= 0) return "STU3";
  if (compare(v, [3, 2]) >= 0 && compare(v, [4, 0, 1]) <= 0) return "R4";
  if (major === 4 && (minor === 1 || minor === 3)) return "R4B";
  if (major === 4 && minor === 2) return "R5";
  if (compare(v, [4, 4]) >= 0 && major <= 5 && (major < 5 || minor === 0)) return "R5";
  return null;
}

/** A `/r4/`, `/dstu2/`… segment of a URL path (case-insensitive), else null. */
export function fhirVersionFromUrl(url: string): FhirVersion | null {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  const match = /\/(dstu2|stu3|r4b|r4|r5)(?=\/|$|\?)/i.exec(path);
  return match ? (match[1]!.toUpperCase() as FhirVersion) : null;
}
