const ID = /^[0-9a-f]{64}$/;
const ID_BYTES = 32;

/**
 * Finds an entry's ordinal from its id (64 lowercase hex). The ids are sorted once into
 * `byId`; a search then touches three places instead of twenty scattered ones: a table of
 * where each 2-byte prefix starts, the 4-byte heads of the ids in that order (a few neighbours
 * share a cache line), and the one full id it compares.
 */
export class IdLookup {
  /** In `byId` order: the first 4 bytes of each id as one unsigned number. */
  private readonly heads: Uint32Array;
  /** `starts[p]`: the first position in `byId` whose id starts with the 2 bytes `p` (65,537 slots). */
  private readonly starts = new Int32Array(65_537);
  private readonly wanted = new Uint8Array(ID_BYTES);

  /** `ids`: 32 bytes per ordinal; `byId`: the ordinals sorted by those bytes. */
  constructor(
    private readonly ids: Uint8Array,
    private readonly byId: Int32Array,
  ) {
    const heads = new Uint32Array(byId.length);
    for (let k = 0; k < byId.length; k++) heads[k] = headAt(ids, byId[k]! * ID_BYTES);
    let k = 0;
    for (let prefix = 0; prefix <= 65_536; prefix++) {
      while (k < heads.length && heads[k]! >>> 16 < prefix) k++;
      this.starts[prefix] = k;
    }
    this.heads = heads;
  }

  /** The ordinal of `id`, or -1 when no entry has it (or it is not 64 lowercase hex). */
  find(id: string): number {
    if (!ID.test(id)) return -1;
    const { wanted, heads, byId, ids } = this;
    for (let i = 0; i < ID_BYTES; i++) wanted[i] = (hexValue(id.charCodeAt(2 * i)) << 4) | hexValue(id.charCodeAt(2 * i + 1));
    const head = headAt(wanted, 0);
    let lo = this.starts[head >>> 16]!;
    let hi = this.starts[(head >>> 16) + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (heads[mid]! < head) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < heads.length && heads[k] === head; k++) {
      const at = byId[k]! * ID_BYTES;
      let same = true;
      for (let i = 4; i < ID_BYTES && same; i++) same = ids[at + i] === wanted[i];
      if (same) return byId[k]!;
    }
    return -1;
  }
}

const headAt = (bytes: Uint8Array, at: number) => ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;

/** The value of a lowercase hex digit's char code (the caller has checked it is one). */
const hexValue = (code: number) => (code <= 57 ? code - 48 : code - 87);
