/**
 * A small least-recently-used cache, bounded by entry count and, when `weigh` is given, by the
 * total weight of its values (say, bytes). A value's weight must not change while it is stored:
 * store a new value instead.
 */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  private weight = 0;

  constructor(
    private readonly capacity: number,
    private readonly limits: { maxWeight: number; weigh: (value: V) => number } | null = null,
  ) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V) {
    this.delete(key);
    const weight = this.limits?.weigh(value) ?? 0;
    if (this.limits !== null && weight > this.limits.maxWeight) return;
    while (
      this.map.size > 0 &&
      (this.map.size >= this.capacity || (this.limits !== null && this.weight + weight > this.limits.maxWeight))
    ) {
      this.delete(this.map.keys().next().value!);
    }
    this.map.set(key, value);
    this.weight += weight;
  }

  getOrCompute(key: string, compute: () => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = compute();
      this.set(key, value);
    }
    return value;
  }

  private delete(key: string) {
    const value = this.map.get(key);
    if (value === undefined) return;
    this.map.delete(key);
    if (this.limits !== null) this.weight -= this.limits.weigh(value);
  }
}
