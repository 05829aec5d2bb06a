/** The first index in `sorted` whose value is not less than `value` (binary search). */
export function lowerBound<T extends string | number>(sorted: ArrayLike<T>, value: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The range [from, to) of the strings of `sorted` that start with `prefix`: the name words
 * (`strings.nameWords`) a query word is the start of, whose postings a name search reads.
 */
export function prefixRange(sorted: readonly string[], prefix: string): [from: number, to: number] {
  const from = lowerBound(sorted, prefix);
  let to = from;
  while (to < sorted.length && sorted[to]!.startsWith(prefix)) to++;
  return [from, to];
}
