import { expect, test } from "bun:test";
import { Lru } from "../../src/directory/lru";

test("evicts the least recently used entry beyond its capacity", () => {
  const lru = new Lru<number>(2);
  lru.set("a", 1);
  lru.set("b", 2);
  lru.get("a");
  lru.set("c", 3);
  expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual([1, undefined, 3]);
});

test("with a weight limit, keeps the total weight under it and never keeps a value heavier than it", () => {
  const lru = new Lru<string>(100, { maxWeight: 10, weigh: (value) => value.length });
  lru.set("a", "xxxx");
  lru.set("b", "xxxx");
  lru.set("c", "xxxx");
  expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual([undefined, "xxxx", "xxxx"]);
  lru.set("b", "x");
  lru.set("d", "xxxxx");
  expect([lru.get("b"), lru.get("c"), lru.get("d")]).toEqual(["x", "xxxx", "xxxxx"]);
  lru.set("huge", "x".repeat(11));
  expect(lru.get("huge")).toBeUndefined();
  expect([lru.get("b"), lru.get("c"), lru.get("d")]).toEqual(["x", "xxxx", "xxxxx"]);
});

test("getOrCompute computes once per key while it stays cached", () => {
  const lru = new Lru<number>(10);
  let calls = 0;
  const compute = () => ++calls;
  expect([lru.getOrCompute("k", compute), lru.getOrCompute("k", compute)]).toEqual([1, 1]);
});

test("replacing a value with a heavier one under the same key keeps the total under the limit", () => {
  const lru = new Lru<string>(100, { maxWeight: 10, weigh: (value) => value.length });
  lru.set("a", "xxx");
  lru.set("b", "xxx");
  lru.set("a", "xxxxxxxx");
  expect([lru.get("a"), lru.get("b")]).toEqual(["xxxxxxxx", undefined]);
  lru.set("c", "xx");
  expect([lru.get("a"), lru.get("c")]).toEqual(["xxxxxxxx", "xx"]);
  lru.set("d", "x");
  expect([lru.get("a"), lru.get("c"), lru.get("d")]).toEqual([undefined, "xx", "x"]);
});
