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
  /** Resources one /fhir page may include (`_include`, `_revinclude`). */
  includedResources: 1_000,
  /** Resource type names of the list's `hasResource`. */
  resourceTypes: 20,
} as const;

/**
 * The work one request may do, as a whole, whatever its parameters: each request's work is
 * counted in work units from the sizes of the indexes it would read (postings, strings,
 * resources, bitset words), before any of it is done, and a request over `budget` is refused
 * with a 400 (`too-costly` under /fhir, `VALIDATION_ERROR` in the JSON API) naming its costliest
 * parameter. One unit is about one posting read from an index (10–15 ns at 1M entries); the
 * other kinds of work are weighed against it here. `budget` is set so that the costliest
 * request it admits at 1M entries (`bun run bench:worst` searches the caps for it) costs at
 * most about 50 ms of CPU (docs/api.md, "Request caps"; bench/README.md).
 */
export const WORK = {
  /** Work units one request may cost. */
  budget: 2_000_000,
  /** Units of testing one candidate string against a value anywhere in it (reading its posting is one more). */
  check: 40,
  /**
   * Bytes of a value compared per unit when a candidate is tested at a fixed place (the string's
   * start, or the whole of it): a length test, then at most the value's bytes compared, so a
   * candidate of `https://fhir` costs 2 units, not `check`'s 40 (about 30 ns each at 1M entries).
   */
  anchoredBytesPerUnit: 16,
  /**
   * Units of testing whether a candidate string has a word starting with a given word (the
   * string rule): about 1 µs each at 1M entries, measured on the ZIP codes.
   */
  wordCheck: 150,
  /** Units of a posting of the name-word index (read, mapped to its organization, set). */
  namePosting: 3,
  /** Bitset words (32 resources each) combined per unit. */
  bitsetWordsPerUnit: 2,
  /** Resources visited per unit by a pass over all of a type's resources. */
  passItemsPerUnit: 2,
  /** Units of writing one resource into a page (a match or an include). */
  resource: 1_000,
  /**
   * A search costing at most this many units is answered at once, never queued behind costly
   * searches (src/server/fhir/turns.ts): about 0.5 ms at 1M entries.
   */
  cheap: 40_000,
} as const;

/** Units of combining a bitset of `size` bits (one per resource or entry) with another. */
export const bitsetUnits = (size: number) => Math.ceil(Math.ceil(size / 32) / WORK.bitsetWordsPerUnit);

/**
 * A whole number as a query parameter: plain digits without a leading zero (`0`, `7`, `41`),
 * at most nine of them. One spelling per number, so `since=05` is not a second URL (a second
 * cached answer) for `since=5`: it is a 400, as any other spelling.
 */
export const WHOLE_NUMBER = /^(?:0|[1-9]\d{0,8})$/;
