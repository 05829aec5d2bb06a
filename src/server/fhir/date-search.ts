import { invalid, notSupported } from "./outcome";

/**
 * FHIR R4 date search (https://hl7.org/fhir/R4/search.html#date) over instants as milliseconds
 * since the epoch: a search value's date has the implicit range [from, to) of its precision (a
 * year, a month, a day, a minute, a second or a fraction of one), and its prefix turns that into
 * the interval [lo, hi) of the instants it matches. Resources' ISO strings are read once per
 * dataset version (`instantOf`, when its FHIR index is built), whatever form each was written
 * in, so a search compares numbers only.
 */

/** The prefixes served; `ne`, `sa`, `eb` and `ap` are FHIR's too, and answered 400 not-supported. */
const PREFIXES = ["eq", "gt", "ge", "lt", "le"] as const;
const UNSUPPORTED = ["ne", "sa", "eb", "ap"];
type Prefix = (typeof PREFIXES)[number];

/** The instants a date search value matches, in ms since the epoch: lo ≤ t < hi. */
export interface DateInterval {
  lo: number;
  hi: number;
}

/**
 * A date, dateTime or instant of FHIR search: the date from the left (`2026`, `2026-11`,
 * `2026-11-26`), then optionally a time of at least hours and minutes, seconds and a fraction
 * (at most 9 digits), and a zone (`Z` or ±hh:mm; absent: UTC, the server's zone). A space stands
 * for the `+` of a zone, as an unescaped `+` in a query string arrives as a space.
 */
const DATE =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+\- ])(\d{2}):(\d{2}))?)?)?)?$/;

/** Milliseconds since the epoch of a UTC date and time; months and days past their end roll over. */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/**
 * Reads a `_lastUpdated` (or any date parameter) value: an optional prefix and a date. A
 * malformed value or an impossible date is 400 `invalid`; `ne`, `sa`, `eb` and `ap` are 400
 * `not-supported`.
 */
export function parseDateValue(name: string, value: string): DateInterval {
  const fail = (why: string) => invalid(`${name}: "${value.slice(0, 64)}" ${why}`);
  let prefix: Prefix = "eq";
  let text = value;
  if (/^[a-z]{2}/.test(value)) {
    const given = value.slice(0, 2);
    if (UNSUPPORTED.includes(given))
      throw notSupported(`${name}: the prefix ${given} is not supported; use ${PREFIXES.join(", ")} or none (eq)`);
    if (!(PREFIXES as readonly string[]).includes(given))
      throw fail(`has an unknown prefix; use ${PREFIXES.join(", ")} or none (eq)`);
    prefix = given as Prefix;
    text = value.slice(2);
  }
  const parts = DATE.exec(text);
  if (parts === null)
    throw fail(
      "is not a FHIR date: write 2026, 2026-11, 2026-11-26 or 2026-11-26T10:00:00Z, optionally after a prefix",
    );
  const [, y, mo, d, h, mi, s, fraction, , sign, zh, zm] = parts;
  const year = Number(y);
  const month = mo === undefined ? 1 : Number(mo);
  const day = d === undefined ? 1 : Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (year === 0 || month < 1 || month > 12 || day < 1 || day > new Date(utc(year, month + 1, 0)).getUTCDate())
    throw fail("is not a calendar date");
  if (hour > 23 || minute > 59 || second > 59) throw fail("is not a time of day");
  if (zh !== undefined && (Number(zh) > 14 || Number(zm) > 59)) throw fail("has an impossible time zone offset");
  const offset = sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(zh) * 60 + Number(zm)) * 60_000;
  const start = utc(year, month, day, hour, minute, second);
  let from = start;
  let to: number;
  if (mo === undefined) to = utc(year + 1, 1, 1);
  else if (d === undefined) to = utc(year, month + 1, 1);
  else if (h === undefined) to = utc(year, month, day + 1);
  else if (s === undefined) to = start + 60_000;
  else if (fraction === undefined) to = start + 1_000;
  else {
    // The fraction's range [f, f + 1) in units of 10^-digits s; instants are whole milliseconds,
    // so each bound rounds up to the first millisecond at or after it.
    const unit = 10 ** fraction.length;
    const f = Number(fraction);
    from = start + Math.ceil((f * 1000) / unit);
    to = start + Math.ceil(((f + 1) * 1000) / unit);
  }
  return intervalOf(prefix, from - offset, to - offset);
}

/**
 * The instants a prefix matches, for a date of range [from, to): eq within the range, gt after
 * it, ge from its start, lt before it, le before its end. An instant is a point (of a
 * millisecond), so FHIR's tests of ranges overlapping come down to these.
 */
function intervalOf(prefix: Prefix, from: number, to: number): DateInterval {
  switch (prefix) {
    case "eq":
      return { lo: from, hi: to };
    case "gt":
      return { lo: to, hi: Number.POSITIVE_INFINITY };
    case "ge":
      return { lo: from, hi: Number.POSITIVE_INFINITY };
    case "lt":
      return { lo: Number.NEGATIVE_INFINITY, hi: from };
    case "le":
      return { lo: Number.NEGATIVE_INFINITY, hi: to };
  }
}

/** The value of the decimal digits of `text` in [from, to); NaN when one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    value = value * 10 + d;
  }
  return value;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Days in a month of the proleptic Gregorian calendar. */
const monthLength = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : 30 + ((month + (month >> 3)) & 1);

/**
 * An ISO instant in ms (NaN for null or no date, which no search matches). The form ingest and probe write, `YYYY-MM-DDTHH:MM:SS.sssZ`, is read
 * digit by digit (several times faster than Date.parse, which reads any other form).
 */
export function instantOf(text: string | null): number {
  if (text === null) return Number.NaN;
  if (
    text.length === 24 &&
    text.charCodeAt(4) === 45 && // -
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 84 && // T
    text.charCodeAt(13) === 58 && // :
    text.charCodeAt(16) === 58 &&
    text.charCodeAt(19) === 46 && // .
    text.charCodeAt(23) === 90 // Z
  ) {
    const month = digits(text, 5, 7);
    const day = digits(text, 8, 10);
    const hour = digits(text, 11, 13);
    const minute = digits(text, 14, 16);
    const second = digits(text, 17, 19);
    // Out-of-range fields (or a non-digit: NaN fails every test) are left to Date.parse.
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59) {
      const days = daysFromCivil(digits(text, 0, 4), month, day);
      const ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + digits(text, 20, 23);
      if (!Number.isNaN(ms) && (day <= 28 || day < 1 + monthLength(digits(text, 0, 4), month))) return ms;
    }
  }
  return Date.parse(text);
}
