/**
 * FHIR resource type names as the directory accepts them: from a probed CapabilityStatement
 * (`rest[].resource[].type`), in the `hasResource` filter and in the index's per-type bitsets.
 */

/** The form of a FHIR resource type name: a capital letter, then letters, 2–64 in all. */
export const RESOURCE_TYPE_NAME = /^[A-Z][A-Za-z]{1,63}$/;

/**
 * The most distinct types one CapabilityStatement may add. A FHIR release defines fewer than
 * 160 (R4 145, R5 157), so a real statement never reaches it; a hostile one listing 100,000 made
 * the index one bitset per name.
 */
export const MAX_RESOURCE_TYPES_PER_DOCUMENT = 256;

/**
 * The distinct, trimmed resource type names of `values` that have the form of one, sorted, the
 * first MAX_RESOURCE_TYPES_PER_DOCUMENT of them (in published order) when there are more.
 */
export function resourceTypeNames(values: Iterable<unknown>): string[] {
  const names = new Set<string>();
  for (const value of values) {
    if (typeof value !== "string") continue;
    const name = value.trim();
    if (!RESOURCE_TYPE_NAME.test(name)) continue;
    names.add(name);
    if (names.size === MAX_RESOURCE_TYPES_PER_DOCUMENT) break;
  }
  return [...names].sort();
}
