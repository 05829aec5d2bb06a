/** A fixed-size set of entry ordinals, 32 per word. */
export type Bitset = Uint32Array;

export function createBitset(size: number): Bitset {
  return new Uint32Array((size + 31) >>> 5);
}

export function setBit(bits: Bitset, i: number) {
  bits[i >>> 5]! |= 1 << (i & 31);
}

export function hasBit(bits: Bitset, i: number): boolean {
  return (bits[i >>> 5]! & (1 << (i & 31))) !== 0;
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function countBits(bits: Bitset): number {
  let total = 0;
  for (let w = 0; w < bits.length; w++) {
    const x = bits[w]!;
    if (x !== 0) total += popcount32(x);
  }
  return total;
}

/** Writes a AND b AND … into `out` (which may be one of the inputs) and returns its count. */
export function intersectInto(out: Bitset, sets: Bitset[]): number {
  const first = sets[0]!;
  let total = 0;
  for (let w = 0; w < out.length; w++) {
    let x = first[w]!;
    for (let s = 1; s < sets.length && x !== 0; s++) x &= sets[s]![w]!;
    out[w] = x;
    if (x !== 0) total += popcount32(x);
  }
  return total;
}

/** The ordinals of the set bits, skipping the first `skip` of them, at most `take`. */
export function selectBits(bits: Bitset, skip: number, take: number): number[] {
  const out: number[] = [];
  let w = 0;
  for (; w < bits.length; w++) {
    const x = bits[w]!;
    if (x === 0) continue;
    const c = popcount32(x);
    if (skip >= c) {
      skip -= c;
      continue;
    }
    break;
  }
  for (; w < bits.length && out.length < take; w++) {
    let x = bits[w]!;
    while (x !== 0 && out.length < take) {
      const low = x & -x;
      if (skip > 0) skip--;
      else out.push((w << 5) + (31 - Math.clz32(low)));
      x ^= low;
    }
  }
  return out;
}
