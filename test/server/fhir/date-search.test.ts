/**
 * The date arithmetic behind `_lastUpdated`: stored instants read digit by digit must equal
 * Date.parse's reading, and a value's implicit range must follow its precision, fractions of a
 * second included.
 */
import { describe, expect, test } from "bun:test";
import { instantOf, parseDateValue } from "../../../src/server/fhir/date-search";
import { FhirError } from "../../../src/server/http/operation-outcome";

describe("instantOf", () => {
  test("reads the stored form as Date.parse does, across years, leap days and month ends", () => {
    const samples: string[] = [];
    // A fixed pseudo-random walk over years 0001–9999, every month end and leap day on the way.
    let seed = 29;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const lo = Date.parse("0001-01-01T00:00:00.000Z");
    const hi = Date.parse("9999-12-31T23:59:59.999Z");
    for (let i = 0; i < 20_000; i++) samples.push(new Date(lo + Math.floor(next() * (hi - lo))).toISOString());
    for (const year of [1600, 1700, 1900, 1969, 1970, 2000, 2024, 2026, 2100])
      for (let month = 1; month <= 12; month++) {
        samples.push(new Date(Date.UTC(year, month, 0, 23, 59, 59, 999)).toISOString());
      }
    for (const text of samples) expect([text, instantOf(text)]).toEqual([text, Date.parse(text)]);
  });

  test("other forms go to Date.parse; null and non-dates are NaN", () => {
    expect(instantOf("2026-11-01T00:00:00Z")).toBe(Date.parse("2026-11-01T00:00:00.000Z"));
    expect(instantOf("2026-11-01T05:00:00.000+05:00")).toBe(Date.parse("2026-11-01T00:00:00.000Z"));
    expect(instantOf("2026-1x-01T00:00:00.000Z")).toBeNaN();
    expect(instantOf("not a date")).toBeNaN();
    expect(instantOf(null)).toBeNaN();
  });
});

describe("parseDateValue", () => {
  const at = (iso: string) => Date.parse(iso);
  test("each precision's range, shifted by the zone", () => {
    // [value, the first instant it covers, the first instant past it]
    const ranges: [string, string, string][] = [
      ["2026", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"],
      ["2024-02", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"],
      ["2026-12-31", "2026-12-31T00:00:00Z", "2027-01-01T00:00:00Z"],
      ["2026-11-26T10:00+01:00", "2026-11-26T09:00:00Z", "2026-11-26T09:01:00Z"],
      ["2026-11-26T10:00:05-02:30", "2026-11-26T12:30:05Z", "2026-11-26T12:30:06Z"],
      // Fractions: a tenth of a second; and beyond milliseconds, each bound rounds up to the next whole one.
      ["2026-11-26T10:00:05.5Z", "2026-11-26T10:00:05.500Z", "2026-11-26T10:00:05.600Z"],
      ["2026-11-26T10:00:05.1234Z", "2026-11-26T10:00:05.124Z", "2026-11-26T10:00:05.124Z"],
    ];
    for (const [value, lo, hi] of ranges) expect(parseDateValue("d", value)).toEqual({ lo: at(lo), hi: at(hi) });
  });

  test("prefixes turn the range into what they match", () => {
    const { lo: from, hi: to } = parseDateValue("d", "2026-11");
    expect(parseDateValue("d", "gt2026-11")).toEqual({ lo: to, hi: Number.POSITIVE_INFINITY });
    expect(parseDateValue("d", "ge2026-11")).toEqual({ lo: from, hi: Number.POSITIVE_INFINITY });
    expect(parseDateValue("d", "lt2026-11")).toEqual({ lo: Number.NEGATIVE_INFINITY, hi: from });
    expect(parseDateValue("d", "le2026-11")).toEqual({ lo: Number.NEGATIVE_INFINITY, hi: to });
    expect(parseDateValue("d", "eq2026-11")).toEqual({ lo: from, hi: to });
  });

  test("impossible dates are errors: Feb 29 only in leap years", () => {
    expect(parseDateValue("d", "2024-02-29").lo).toBe(at("2024-02-29T00:00:00Z"));
    for (const value of ["2026-02-29", "2100-02-29", "2026-04-31", "2026-11-26T24:00Z", "2026-11-26T10:60Z"])
      expect(() => parseDateValue("d", value)).toThrow(FhirError);
  });
});
