/**
 * The substring index counts the work it does (in work units, src/model/request-caps.ts WORK)
 * and says beforehand how much a value will cost: `markCost` and `markWordsCost` are never
 * below what `mark` and `markWords` then count, so a request refused or admitted on the
 * estimate does at most that much. One-character words of the string rule read bitsets, not
 * every string holding the character. Deterministic: a seeded table, no timing.
 */
import { describe, expect, test } from "bun:test";
import { countBits, createBitset } from "../../src/directory/bitset";
import { SubstringIndex } from "../../src/directory/substring-index";
import { fold, words } from "../../src/directory/text";
import { WORK } from "../../src/model/request-caps";

/** A deterministic pseudo-random generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(11);
const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
const SYLLABLES = ["ca", "re", "me", "di", "cal", "cen", "ter", "ho", "spi", "tal", "st", "ma", "ry", "ö", "san", "ge"];
const zip = () => Array.from({ length: 5 }, () => Math.floor(next() * 10)).join("");
const name = () =>
  Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
    Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(SYLLABLES)).join(""),
  ).join(pick([" ", " ", "-", " & ", ", "]));

const zips = Array.from({ length: 6_000 }, () => (next() < 0.2 ? `${zip()}-${zip().slice(0, 4)}` : zip()));
const names = Array.from({ length: 6_000 }, name);

function built(table: string[]): SubstringIndex {
  const steps = SubstringIndex.build(table);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

describe("the substring index's work", () => {
  test("one-character words read one bitset each, whatever number of strings hold the character", () => {
    const table = zips;
    const index = built(zips);
    const bitsetWords = Math.ceil(table.length / 32);
    const having1 = table.filter((zip) => zip.includes("1")).length;
    const wanted = words("1 2 3 4 5 6 7 8 9 0");
    const bits = createBitset(table.length);
    const before = index.work;
    index.markWords(wanted, bits);
    const spent = index.work - before;
    expect(spent).toBeLessThanOrEqual(index.markWordsCost(wanted));
    // Eleven bitsets of the table's size (ten words and the result), in units of bitset words.
    expect(spent).toBeLessThanOrEqual(11 * bitsetWords);
    expect(spent).toBeLessThan(having1);
    // And it answers the string rule: every digit starts a word of the string.
    const expected = table.filter((zip) => wanted.every((word) => words(zip).some((w) => w.startsWith(word))));
    expect(countBits(bits)).toBe(expected.length);
  });

  for (const { label, table, index } of [
    { label: "ZIP codes", table: zips, index: built(zips) },
    { label: "names", table: names, index: built(names) },
  ])
    test(`${label}: the cost said beforehand is never below the work counted, for every kind of value`, () => {
      const values = [
        ...Array.from({ length: 200 }, () => {
          const text = pick(table);
          const from = Math.floor(next() * text.length);
          return text.slice(from, from + 1 + Math.floor(next() * 5));
        }),
        "1",
        "12",
        "ö",
        "öm",
        "x",
        "",
      ];
      let checked = 0;
      for (const value of values) {
        const folded = fold(value);
        for (const placement of ["anywhere", "start", "whole"] as const) {
          const also = placement === "whole" ? WORK.check : 0;
          const cost = index.markCost(folded, placement, also);
          const before = index.work;
          index.mark(folded, placement, createBitset(table.length), also === 0 ? undefined : () => true, also);
          expect({ value, placement, spent: index.work - before <= cost }).toEqual({ value, placement, spent: true });
          checked++;
        }
        const wanted = words(`${value} ${pick(table).slice(0, 2)}`);
        if (wanted.length === 0) continue;
        const cost = index.markWordsCost(wanted);
        const before = index.work;
        index.markWords(wanted, createBitset(table.length));
        expect({ wanted, spent: index.work - before <= cost }).toEqual({ wanted, spent: true });
      }
      expect(checked).toBe(values.length * 3);
    });
});
