/** A small least-recently-used cache. */
export class Lru<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V) {
    if (this.map.size >= this.capacity && !this.map.has(key)) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }

  getOrCompute(key: string, compute: () => V): V {
    let value = this.get(key);
    if (value === undefined) this.set(key, (value = compute()));
    return value;
  }
}
