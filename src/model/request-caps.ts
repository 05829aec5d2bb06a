/**
 * Every bound on what one request may ask, in one place (docs/api.md, "Request caps"): the
 * JSON API's schemas and the FHIR search parser read them here, the OpenAPI document and the
 * docs state them, and `bench/worst.ts` builds the costliest request each allows. Beyond a cap
 * the answer is a 400 (`VALIDATION_ERROR`, or an OperationOutcome `too-costly` under /fhir),
 * never a long scan.
 */
export const REQUEST_CAPS = {
  /** Characters of one value: the list's `query`, one alternative of a /fhir parameter. */
  valueChars: 200,
  /** Words of a name search (the list's `query`, FHIR `name`): each is a prefix range of the name index. */
  words: 10,
  /** Comma-separated alternatives of one /fhir parameter, once duplicates are removed. */
  alternatives: 10,
  /** Times one /fhir search parameter (name and modifier) may be given; each must hold. */
  repeats: 4,
  /** Parameters of one /fhir search (URL and form body together), known or not. */
  parameters: 40,
  /** Bytes of the form body of `POST /fhir/<type>/_search` (413 beyond, before it is read). */
  formBodyBytes: 8 * 1024,
  /** Resource type names of the list's `hasResource`. */
  resourceTypes: 20,
} as const;

/**
 * A whole number as a query parameter: plain digits without a leading zero (`0`, `7`, `41`),
 * at most nine of them. One spelling per number, so `since=05` is not a second URL (a second
 * cached answer) for `since=5`: it is a 400, as any other spelling.
 */
export const WHOLE_NUMBER = /^(?:0|[1-9]\d{0,8})$/;
