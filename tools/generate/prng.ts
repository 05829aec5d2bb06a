/** FNV-1a over a label: gives each part of a generated dataset its own deterministic stream. */
export function hashLabel(label: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: small, fast, deterministic. The dataset generators (data:generate-1m, the sample) never use Math.random. */
export class Rng {
  private state: number;

  constructor(seed: number | string) {
    this.state = typeof seed === "string" ? hashLabel(seed) : seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(items.length)]!;
  }

  /** One of a few choices by relative weight (a linear scan: for long lists, WeightedPicker). */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let r = this.next() * choices.reduce((sum, [, w]) => sum + w, 0);
    for (const [choice, w] of choices) {
      r -= w;
      if (r < 0) return choice;
    }
    return choices[choices.length - 1]![0];
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  digits(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += String(this.int(10));
    return out;
  }

  chars(alphabet: string, n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  hex(n: number): string {
    return this.chars("0123456789abcdef", n);
  }

  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[this.int(4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  /** `k` distinct items, in their original order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const chosen = new Set<number>();
    const n = Math.min(k, items.length);
    while (chosen.size < n) chosen.add(this.int(items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
  }
}

/** Picks an index from cumulative weights (ascending, last = total) by binary search. */
export class WeightedPicker<T> {
  private readonly cumulative: Float64Array;
  private readonly total: number;

  constructor(
    readonly items: readonly T[],
    weights: readonly number[],
  ) {
    this.cumulative = new Float64Array(items.length);
    let sum = 0;
    for (let i = 0; i < items.length; i++) {
      sum += weights[i]!;
      this.cumulative[i] = sum;
    }
    this.total = sum;
  }

  pick(rng: Rng): T {
    const target = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo]!;
  }
}

/** A 10-digit NPI whose last digit is the Luhn check digit over the 80840 prefix, as real NPIs. */
export function npi(rng: Rng): string {
  const base = (rng.chance(0.5) ? "1" : "2") + rng.digits(8);
  const digits = `80840${base}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return base + String((10 - (sum % 10)) % 10);
}
