import { describe, expect, test } from "bun:test";
import { buildIdIndex, buildIdIndexInSteps, IdLookup } from "../../src/directory/id-lookup";

/** Ids as hex, stored 32 bytes each in ordinal order, as the index holds them. */
function lookupOf(hexIds: string[]) {
  const ids = new Uint8Array(hexIds.length * 32);
  for (const [ordinal, hex] of hexIds.entries()) ids.set(Buffer.from(hex, "hex"), ordinal * 32);
  return new IdLookup(ids, buildIdIndex(ids));
}

const id = (prefix: string, fill: string) => (prefix + fill.repeat(64)).slice(0, 64);

describe("IdLookup", () => {
  // Ids that share their first 2 and first 4 bytes, the lowest and highest possible ids, and
  // neighbours one byte apart: the cases a prefix table and a 4-byte head can get wrong.
  const hexIds = [
    id("abcd0001", "1"),
    id("abcd0001", "2"),
    `${id("abcd0001", "1").slice(0, 63)}2`,
    id("abcd0002", "0"),
    id("abcd", "f"),
    id("abce", "0"),
    id("", "0"),
    id("", "f"),
    id("00", "7"),
    id("ffff", "3"),
    id("7f", "8"),
    id("80", "7"),
  ];
  const lookup = lookupOf(hexIds);

  test("every id is found at its own ordinal", () => {
    for (const [ordinal, hex] of hexIds.entries()) expect(lookup.find(hex)).toBe(ordinal);
  });

  test("ids that nobody has are not found, including ones sharing a 4-byte head with a real id", () => {
    for (const missing of [
      id("abcd0001", "3"),
      `${id("abcd0001", "1").slice(0, 63)}3`,
      id("abcd0003", "0"),
      id("abcc", "f"),
      id("fffe", "f"),
      id("01", "0"),
    ]) {
      expect(lookup.find(missing)).toBe(-1);
    }
  });

  test("anything but 64 lowercase hex digits is not an id", () => {
    for (const bad of [hexIds[0]!.toUpperCase(), hexIds[0]!.slice(0, 63), `${hexIds[0]}0`, "", "g".repeat(64)])
      expect(lookup.find(bad)).toBe(-1);
  });

  test("an empty directory finds nothing", () => {
    expect(lookupOf([]).find(hexIds[0]!)).toBe(-1);
  });

  test("many random ids: each found, each with one byte changed not found", () => {
    const random = Array.from({ length: 5_000 }, () =>
      new Bun.CryptoHasher("sha256").update(String(Math.random())).digest("hex"),
    );
    const big = lookupOf(random);
    const known = new Set(random);
    random.forEach((hex, ordinal) => {
      expect(big.find(hex)).toBe(ordinal);
      const changed = hex.slice(0, 40) + (hex[40] === "0" ? "1" : "0") + hex.slice(41);
      if (!known.has(changed)) expect(big.find(changed)).toBe(-1);
    });
  });
});

describe("buildIdIndexInSteps", () => {
  /** Runs the steps to the end: the index, and how many times it yielded. */
  function drain(ids: Uint8Array, chunk: number) {
    const steps = buildIdIndexInSteps(ids, chunk);
    let yields = 0;
    for (;;) {
      const step = steps.next();
      if (step.done) return { index: step.value, yields };
      yields++;
    }
  }

  test("the same index as the one-step build, for SHA-256 ids and for ids sharing prefixes and heads", () => {
    const hashed = new Uint8Array(20_000 * 32);
    for (let i = 0; i < 20_000; i++) hashed.set(new Bun.CryptoHasher("sha256").update(String(i)).digest(), i * 32);
    const crowded = new Uint8Array(3_000 * 32);
    for (let i = 0; i < 3_000; i++) {
      const bytes = new Bun.CryptoHasher("sha256").update(`c${i}`).digest();
      // A few prefixes and heads only: many ids per prefix, some per head.
      bytes[0] = i % 3;
      bytes[1] = 7;
      bytes[2] = i % 5;
      bytes[3] = 0;
      crowded.set(bytes, i * 32);
    }
    for (const ids of [hashed, crowded, new Uint8Array(0)]) {
      const { index } = drain(ids, 1_024);
      expect(index).toEqual(buildIdIndex(ids));
      const lookup = new IdLookup(ids, index);
      for (let i = 0; i < ids.length / 32; i += 97)
        expect(lookup.find(Buffer.from(ids.subarray(i * 32, i * 32 + 32)).toString("hex"))).toBe(i);
    }
  });

  test("in steps of at most `chunk` ids: the more ids, the more steps", () => {
    const ids = new Uint8Array(50_000 * 32);
    for (let i = 0; i < 50_000; i++) ids.set(new Bun.CryptoHasher("sha256").update(String(i)).digest(), i * 32);
    // Counting and spreading the ids take a step per chunk each.
    expect(drain(ids, 1_000).yields).toBeGreaterThanOrEqual(100);
    expect(drain(ids, 10_000).yields).toBeLessThan(drain(ids, 1_000).yields);
  });
});
