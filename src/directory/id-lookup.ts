const ID = /^[0-9a-f]{64}$/;
const ID_BYTES = 32;
const PREFIXES = 65_536;

/** What get-by-id searches, built with the rest of a version's index (and kept in its file). */
export interface IdIndex {
  /** Ordinals sorted by their id bytes. */
  order: Int32Array;
  /** In `order`: the first 4 bytes of each id as one unsigned number. */
  heads: Uint32Array;
  /** `starts[p]`: the first position in `order` whose id starts with the 2 bytes `p` (65,537 slots). */
  starts: Int32Array;
}

/** Below this many ids, a 4-byte head and an ordinal fit exactly in one float64 (2^32 · 2^21 = 2^53). */
const PACKED = 2 ** 21;

/** `ids`: 32 bytes per ordinal. */
export function buildIdIndex(ids: Uint8Array): IdIndex {
  const count = ids.length / ID_BYTES;
  let order: Int32Array;
  let heads: Uint32Array;
  if (count < PACKED) {
    // A native sort of head · 2^21 + ordinal, many times faster than a comparator called a
    // million times; then the ids sharing a head (a few) by their whole bytes.
    const keys = new Float64Array(count);
    for (let i = 0; i < count; i++) keys[i] = headAt(ids, i * ID_BYTES) * PACKED + i;
    keys.sort();
    order = new Int32Array(count);
    heads = new Uint32Array(count);
    for (let k = 0; k < count; k++) {
      const head = Math.floor(keys[k]! / PACKED);
      heads[k] = head;
      order[k] = keys[k]! - head * PACKED;
    }
    for (let k = 0; k < count; ) {
      let end = k + 1;
      while (end < count && heads[end] === heads[k]) end++;
      if (end - k > 1) order.subarray(k, end).sort((a, b) => compareIds(ids, a, b));
      k = end;
    }
  } else {
    order = Int32Array.from({ length: count }, (_, i) => i).sort((a, b) => compareIds(ids, a, b));
    heads = Uint32Array.from(order, (ordinal) => headAt(ids, ordinal * ID_BYTES));
  }
  const starts = new Int32Array(PREFIXES + 1);
  let k = 0;
  for (let prefix = 0; prefix <= PREFIXES; prefix++) {
    while (k < heads.length && heads[k]! >>> 16 < prefix) k++;
    starts[prefix] = k;
  }
  return { order, heads, starts };
}

/**
 * Finds an entry's ordinal from its id (64 lowercase hex). A search touches three places
 * instead of the twenty scattered ones of a binary search over 1M ids: the slot of the id's
 * 2-byte prefix, the 4-byte heads in that range (a few neighbours share a cache line), and the
 * one full id it compares.
 */
export class IdLookup {
  private readonly wanted = new Uint8Array(ID_BYTES);

  constructor(
    private readonly ids: Uint8Array,
    private readonly index: IdIndex,
  ) {}

  /** The ordinal of `id`, or -1 when no entry has it (or it is not 64 lowercase hex). */
  find(id: string): number {
    if (!ID.test(id)) return -1;
    const { wanted, ids } = this;
    const { order, heads, starts } = this.index;
    for (let i = 0; i < ID_BYTES; i++)
      wanted[i] = (hexValue(id.charCodeAt(2 * i)) << 4) | hexValue(id.charCodeAt(2 * i + 1));
    const head = headAt(wanted, 0);
    let lo = starts[head >>> 16]!;
    let hi = starts[(head >>> 16) + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (heads[mid]! < head) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < heads.length && heads[k] === head; k++) {
      const at = order[k]! * ID_BYTES;
      let same = true;
      for (let i = 4; i < ID_BYTES && same; i++) same = ids[at + i] === wanted[i];
      if (same) return order[k]!;
    }
    return -1;
  }
}

/** Orders two ordinals by their 32 id bytes. */
export function compareIds(ids: Uint8Array, a: number, b: number): number {
  for (let i = 0; i < ID_BYTES; i++) {
    const d = ids[a * ID_BYTES + i]! - ids[b * ID_BYTES + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

const headAt = (bytes: Uint8Array, at: number) =>
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;

/** The value of a lowercase hex digit's char code (the caller has checked it is one). */
const hexValue = (code: number) => (code <= 57 ? code - 48 : code - 87);

/**
 * `buildIdIndex` in steps of at most `chunk` ids (or prefixes), yielding between them, for a
 * server that must keep answering while it builds (the FHIR index: a native sort of a million
 * keys is one step of 0.1–0.3 s). The same index: the ids are spread by their 2-byte prefix (a
 * counting sort; ids are SHA-256 digests, so a prefix holds a few), then each prefix's few are
 * put in order by their whole bytes.
 */
export function* buildIdIndexInSteps(ids: Uint8Array, chunk: number): Generator<void, IdIndex> {
  const count = ids.length / ID_BYTES;
  const starts = new Int32Array(PREFIXES + 1);
  for (let from = 0; from < count; from += chunk) {
    for (let i = from; i < Math.min(count, from + chunk); i++) starts[headAt(ids, i * ID_BYTES) >>> 16]!++;
    yield;
  }
  for (let p = 0, sum = 0; p <= PREFIXES; p++) {
    const n = starts[p]!;
    starts[p] = sum;
    sum += n;
  }
  const order = new Int32Array(count);
  const next = starts.slice(0, PREFIXES);
  for (let from = 0; from < count; from += chunk) {
    for (let i = from; i < Math.min(count, from + chunk); i++) order[next[headAt(ids, i * ID_BYTES) >>> 16]!++] = i;
    yield;
  }
  const heads = new Uint32Array(count);
  // A prefix holds count / 65,536 ids (15 at 1M), each sorted with a comparator: fewer per step.
  const prefixes = Math.max(1, Math.floor((chunk * PREFIXES) / Math.max(count, 1) / 4));
  for (let from = 0; from < PREFIXES; from += prefixes) {
    for (let p = from; p < Math.min(PREFIXES, from + prefixes); p++) {
      const bucket = order.subarray(starts[p]!, starts[p + 1]!);
      if (bucket.length > 1) bucket.sort((a, b) => compareIds(ids, a, b));
      for (let k = starts[p]!; k < starts[p + 1]!; k++) heads[k] = headAt(ids, order[k]! * ID_BYTES);
    }
    yield;
  }
  return { order, heads, starts };
}
