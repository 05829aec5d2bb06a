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
/** How an entry's state is known: the list states it, its ZIP code, or an `"XX - "` name prefix. */
export const STATE_EVIDENCE = ["list", "zip", "name"] as const;
export type StateEvidence = (typeof STATE_EVIDENCE)[number];
/** Whether the stored URL is as published or repaired (src/ingest/enrich/url-repair.ts). */
export const URL_EVIDENCE = ["published", "repaired"] as const;
export type UrlEvidence = (typeof URL_EVIDENCE)[number];
