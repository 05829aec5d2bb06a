import { invalid, notSupported } from "./outcome";

/**
 * FHIR R4 date search (https://hl7.org/fhir/R4/search.html#date) over instants held as ISO
 * strings of one form, `YYYY-MM-DDTHH:MM:SS.sssZ`, in which text order is time order: a search
 * value becomes the implicit range [from, to) of its precision (a year, a month, a day, a minute,
 * a second or a fraction of one) as two such strings, and a resource's instant is compared with
 * them as text, with no date parsing per resource.
 */

/** The prefixes served; `ne`, `sa`, `eb` and `ap` are FHIR's too, and answered 400 not-supported. */
const PREFIXES = ["eq", "gt", "ge", "lt", "le"] as const;
const UNSUPPORTED = ["ne", "sa", "eb", "ap"];
type Prefix = (typeof PREFIXES)[number];

/** A date search value: a prefix and the implicit range of its date, as canonical instants. */
export interface DateRange {
  prefix: Prefix;
  /** The range's first instant (inclusive), canonical; "" when before year 0000. */
  from: string;
  /** The instant after the range (exclusive), canonical; "~" when after year 9999. */
  to: string;
}

/**
 * A date, dateTime or instant of FHIR search: the date from the left (`2026`, `2026-11`,
 * `2026-11-26`), then optionally a time of at least hours and minutes, seconds and a fraction
 * (at most 9 digits), and a zone (`Z` or ±hh:mm; absent: UTC, the server's zone). A space stands
 * for the `+` of a zone, as an unescaped `+` in a query string arrives as a space.
 */
const DATE =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+\- ])(\d{2}):(\d{2}))?)?)?)?$/;

/** The earliest and latest instants written in the canonical form (4-digit years). */
const MIN_MS = Date.parse("0000-01-01T00:00:00.000Z");
const MAX_MS = Date.parse("9999-12-31T23:59:59.999Z");

/** Milliseconds since the epoch of a UTC date and time; months and days past their end roll over. */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** An instant as a canonical string, or a sentinel below ("") or above ("~") every canonical string. */
const canonical = (ms: number) => (ms < MIN_MS ? "" : ms > MAX_MS ? "~" : new Date(ms).toISOString());

/**
 * Reads a `_lastUpdated` (or any date parameter) value: an optional prefix and a date. A
 * malformed value or an impossible date is 400 `invalid`; `ne`, `sa`, `eb` and `ap` are 400
 * `not-supported`.
 */
export function parseDateValue(name: string, value: string): DateRange {
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
  return { prefix, from: canonical(from - offset), to: canonical(to - offset) };
}

/**
 * Whether an instant (canonical, or null when the resource has none) is in what `range` asks for:
 * eq within the range, gt after it, ge from its start, lt before it, le before its end. An
 * instant is a point, so FHIR's "ranges overlap" tests come down to these.
 */
export function dateMatches(range: DateRange, instant: string | null): boolean {
  if (instant === null) return false;
  switch (range.prefix) {
    case "eq":
      return instant >= range.from && instant < range.to;
    case "gt":
      return instant >= range.to;
    case "ge":
      return instant >= range.from;
    case "lt":
      return instant < range.from;
    case "le":
      return instant < range.to;
  }
}

const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An instant as the canonical string (as stored it usually is already); null when it is no date. */
export function canonicalInstant(text: string): string | null {
  if (CANONICAL.test(text)) return text;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : canonical(ms);
}

/**
 * The canonical form of every string of a table: the table itself when all are canonical (as
 * ingest and probe write them), else a copy with each normalised (null when it is no date).
 */
export function canonicalTable(table: readonly string[]): readonly (string | null)[] {
  for (let i = 0; i < table.length; i++) if (!CANONICAL.test(table[i]!)) return table.map(canonicalInstant);
  return table;
}
