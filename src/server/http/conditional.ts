/**
 * Data responses carry an ETag that changes only when the dataset changes: the dataset version
 * and a hash of the dataset's last refresh time (so a rebuilt database that reaches the same
 * version number does not match) and of the request target, path and query as the request line
 * has them (so two URLs never share one, and the Host plays no part).
 */
export function datasetEtag(version: number, refreshedAt: string | null, target: string): string {
  return `W/"${version.toString(36)}-${Bun.hash.wyhash(`${refreshedAt}\n${target}`).toString(36)}"`;
}

/** `W/"x"` and `"x"` both as `"x"`: the weak comparison (RFC 9110 §8.8.3.2). */
const opaqueTag = (etag: string) => (etag.startsWith("W/") ? etag.slice(2) : etag);

/**
 * Whether If-None-Match names `etag` (weak or strong), by the weak comparison RFC 9110 §13.1.2
 * asks for: a client may send back either form of it.
 */
export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  const header = request.headers.get("if-none-match");
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const wanted = opaqueTag(etag);
  return header.split(",").some((candidate) => opaqueTag(candidate.trim()) === wanted);
}

/** The dataset's refresh time as an HTTP date (Last-Modified), one string per time. */
const httpDates = new Map<string, string>();
export function httpDate(iso: string | null): string | null {
  if (iso === null) return null;
  let date = httpDates.get(iso);
  if (date === undefined) {
    if (httpDates.size > 16) httpDates.clear();
    date = new Date(iso).toUTCString();
    httpDates.set(iso, date);
  }
  return date;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

interface DateParts {
  day: string;
  date: number;
  month: string;
  year: number;
  clock: string[];
  days: string[];
}

/** The three forms of HTTP-date (RFC 9110 §5.6.7), each read into its parts. */
const FORMS: { pattern: RegExp; parts: (m: RegExpExecArray) => DateParts }[] = [
  {
    // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
    pattern: /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/,
    parts: (m) => ({
      day: m[1]!,
      date: Number(m[2]),
      month: m[3]!,
      year: Number(m[4]),
      clock: m.slice(5, 8),
      days: DAYS,
    }),
  },
  {
    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT (a two-digit year more than 50 years ahead is the past century's)
    pattern: /^([A-Z][a-z]{5,8}), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/,
    parts: (m) => {
      const yy = Number(m[4]);
      const year = 2000 + yy > new Date().getUTCFullYear() + 50 ? 1900 + yy : 2000 + yy;
      return { day: m[1]!, date: Number(m[2]), month: m[3]!, year, clock: m.slice(5, 8), days: LONG_DAYS };
    },
  },
  {
    // asctime: Sun Nov  6 08:49:37 1994
    pattern: /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/,
    parts: (m) => ({
      day: m[1]!,
      date: Number(m[3]!.trim()),
      month: m[2]!,
      year: Number(m[7]),
      clock: m.slice(4, 7),
      days: DAYS,
    }),
  },
];

/**
 * Seconds since the epoch of an HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, or the obsolete RFC 850
 * and asctime forms), or null for anything else: a number (`3000`), another date format, or a
 * date that does not exist or does not fall on the day named (`Sat, 31 Feb 2027`).
 */
function parseHttpDate(text: string): number | null {
  for (const { pattern, parts } of FORMS) {
    const m = pattern.exec(text);
    if (m === null) continue;
    const { day, date, month, year, clock, days } = parts(m);
    const monthIndex = MONTHS.indexOf(month);
    const [hours, minutes, seconds] = clock.map(Number) as [number, number, number];
    if (monthIndex === -1 || hours > 23 || minutes > 59 || seconds > 60) return null;
    const ms = Date.UTC(year, monthIndex, date, hours, minutes, Math.min(seconds, 59));
    const at = new Date(ms);
    // Date.UTC rolls 31 February over into March: a date that does not exist is not one.
    if (at.getUTCDate() !== date || at.getUTCMonth() !== monthIndex || days[at.getUTCDay()] !== day) return null;
    return Math.floor(ms / 1000);
  }
  return null;
}

/**
 * Whether the client's copy is current: by If-None-Match when it sent one (RFC 9110 §13.1.3: it
 * then ignores If-Modified-Since), else by If-Modified-Since against the dataset's last refresh,
 * both at the whole seconds `Last-Modified` has (so echoing `Last-Modified` back matches). An
 * If-Modified-Since that is not an HTTP-date is ignored (RFC 9110 §13.1.3). The one rule of every
 * dataset answer: the JSON API's, the exports' and /fhir's.
 */
export function notModified(request: Request, etag: string, lastModified: string | null): boolean {
  if (request.headers.has("if-none-match")) return matchesIfNoneMatch(request, etag);
  const since = request.headers.get("if-modified-since");
  if (since === null || lastModified === null) return false;
  const sinceSeconds = parseHttpDate(since.trim());
  return sinceSeconds !== null && Math.floor(Date.parse(lastModified) / 1000) <= sinceSeconds;
}
