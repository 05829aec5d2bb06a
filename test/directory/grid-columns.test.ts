/**
 * The columns of near's 1° grid a box of longitudes reaches (gridColumns): each column the box
 * covers exactly once, in one run or, across the 180th meridian, two; against the columns counted
 * one degree at a time (column 0 is the degree from 180° W).
 */
import { describe, expect, test } from "bun:test";
import { gridColumns } from "../../src/directory/lookups";

/** The grid columns of the degrees first..last, one at a time: degree d (of -180..179) is column d + 180. */
function columnsOneByOne(first: number, last: number): number[] {
  const out = new Set<number>();
  for (let degree = first; degree <= last && out.size < 360; degree++) out.add((((degree + 180) % 360) + 360) % 360);
  return [...out].sort((a, b) => a - b);
}

const expand = (runs: (readonly [number, number])[]) =>
  runs.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i)).sort((a, b) => a - b);

describe("gridColumns", () => {
  test("a box within one hemisphere is one run", () => {
    expect(gridColumns(-82, -80)).toEqual([[98, 100]]);
    expect(gridColumns(10, 12)).toEqual([[190, 192]]);
  });

  test("a box across the 180th meridian is two runs, the western edge's and the eastern edge's", () => {
    // Adak, Alaska (-176.6°) seen from 178.5° W with 100 miles of reach: the box starts at 181° W.
    expect(gridColumns(-181, -177)).toEqual([
      [359, 359],
      [0, 3],
    ]);
    expect(gridColumns(177, 182)).toEqual([
      [357, 359],
      [0, 2],
    ]);
  });

  test("a box of 360 degrees or more is the whole row, once", () => {
    expect(gridColumns(-180, 179)).toEqual([[0, 359]]);
    expect(gridColumns(-200, 200)).toEqual([[0, 359]]);
  });

  test("every box of up to 40 degrees, anywhere, covers the columns its degrees fall in, each once", () => {
    for (let first = -220; first <= 220; first++)
      for (let width = 0; width <= 40; width++) {
        const runs = gridColumns(first, first + width);
        const covered = expand(runs);
        expect(covered).toEqual(columnsOneByOne(first, first + width));
        expect(new Set(covered).size).toBe(covered.length);
      }
  });
});
