/**
 * How an entry's fields are known (GET /api/v1/endpoints/:id/source, `fields`). No imports: the
 * API schemas, and through them the search page's script, use these lists.
 */

/**
 * How an entry's version is known (GET /api/v1/endpoints/:id/source, `fields.fhirVersion`):
 * its probe, the list's own statement (a version-specific list, a version the item states), its
 * URL, or the developer's certification. Ingest gives all but `probe`.
 */
export const VERSION_EVIDENCE = ["probe", "list", "url", "developer"] as const;
export type VersionEvidence = (typeof VERSION_EVIDENCE)[number];
/**
 * How an entry's served fhirVersion is known, as the CSV export, the list's `meta` and the FHIR
 * Endpoint name it: `probe` (seen in its CapabilityStatement), `list` (the list states it), `url`
 * (its URL names it), `certification` (inferred from the developer's certified API: not seen),
 * `unknown` (nothing recorded: fhirVersion is UNKNOWN, or the entry was stored before evidence was).
 */
export const FHIR_VERSION_BASES = ["probe", "list", "url", "certification", "unknown"] as const;
export type FhirVersionBasis = (typeof FHIR_VERSION_BASES)[number];

/** The basis of a served version known by `evidence` (VERSION_EVIDENCE; null while UNKNOWN). */
export const basisOf = (evidence: VersionEvidence | null): FhirVersionBasis =>
  evidence === null ? "unknown" : evidence === "developer" ? "certification" : evidence;

/**
 * How an entry's state is known: the list states it, its ZIP code, an `"XX - "` name prefix, or a
 * place the organization name states (`name-place`: an address, a city and state, or a state code
 * where names put one; its city and ZIP then come from the name too).
 */
export const STATE_EVIDENCE = ["list", "zip", "name", "name-place"] as const;
export type StateEvidence = (typeof STATE_EVIDENCE)[number];
/**
 * Whether the stored URL is as published or how it was repaired (src/pipeline/ingest/enrich):
 * `cleaned` (junk before the scheme, whitespace beside a delimiter, or a loopback address before
 * the host removed: the published characters, less some), `scheme-assumed` (`https://` added
 * before a bare host name), `host-guessed` (a relative path given the host of the list's other
 * URLs of its shape: a guess until a probe verifies it).
 */
export const URL_EVIDENCE = ["published", "cleaned", "scheme-assumed", "host-guessed"] as const;
export type UrlEvidence = (typeof URL_EVIDENCE)[number];
/** The kinds of repair (URL_EVIDENCE but `published`): the record's `urlRepair`. */
export const URL_REPAIRS = ["cleaned", "scheme-assumed", "host-guessed"] as const;

/**
 * Why an entry is kept out of the listings (served by id as `meta.unusable.reason`; the rules are
 * src/pipeline/ingest/unusable.ts and list-hosts.ts, docs/api.md "Unusable entries").
 */
export const UNUSABLE_REASONS = [
  "non-public-address",
  "localhost",
  "single-label-host",
  "internal-suffix",
  "web-page",
  "query-or-fragment",
  "near-miss-domain",
  "internal-host",
  "do-not-use",
  "deleted",
  "inactive",
  "dummy",
] as const;
export type UnusableReason = (typeof UNUSABLE_REASONS)[number];
