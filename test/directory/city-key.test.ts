import { describe, expect, test } from "bun:test";
import { cityKey } from "../../src/directory/lookups";
import { zipPlaces } from "../../src/model/zip-places";

/**
 * The form the `city` filter compares names in, written here from its definition: lowercased,
 * accents removed, compatibility forms read as their letters (NFKD), and the words (runs of
 * letters and digits) joined by one space.
 */
const expected = (city: string) =>
  city
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .join(" ");

describe("cityKey", () => {
  test("every city of the ZIP table has the key its definition gives", () => {
    const cities = new Set([...zipPlaces().values()].map((place) => place.city));
    expect(cities.size).toBeGreaterThan(18_000);
    const wrong = [...cities].filter((city) => cityKey(city) !== expected(city));
    expect(wrong).toEqual([]);
  });

  test("names that are not plain words one space apart", () => {
    const names = [
      "Winston-Salem",
      "  St.  Louis ",
      "Coeur d'Alene",
      "San José",
      "ÑANDÚ",
      "Two  Spaces",
      "Trailing ",
      "ﬁsh Creek",
      "ＦＯＲＴ Worth",
      "Naval Air Station/ Jrb",
      "At&t",
      "",
      " ",
    ];
    for (const name of names) expect([name, cityKey(name)]).toEqual([name, expected(name)]);
    expect(cityKey("Winston-Salem")).toBe("winston salem");
    expect(cityKey("San José")).toBe("san jose");
    expect(cityKey("ＦＯＲＴ Worth")).toBe("fort worth");
  });
});
