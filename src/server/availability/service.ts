import { DAY_MS, NO_RESPONSE_TIME, RECORD_BYTES, readU16, readU48, STORED_ERROR_KINDS } from "../../db/history-format";
import { AT, HISTORY_HEADER, KIND_PROBED_AT, NO_TIME, NO_VALUE } from "../../directory/availability-data";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { ByteBuffer } from "../http/byte-buffer";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ascii = (text: string) => encoder.encode(text);

const HEAD = ascii(`{"success":true,"data":{"endpointId":`);
const URL_KEY = ascii(`,"url":`);
const LAST_PROBED = ascii(`,"lastProbed":`);
const NULL = ascii("null");
const EMPTY = ascii(
  `,"uptime":{"1d":null,"7d":null,"30d":null,"365d":null},"responseTimeMs":{"median":null,"p95":null},"lastSuccessAt":null,"lastFailureAt":null,"recent":[]}}`,
);
const UPTIME = [`,"uptime":{"1d":`, `,"7d":`, `,"30d":`, `,"365d":`].map(ascii);
const MEDIAN = ascii(`},"responseTimeMs":{"median":`);
const P95 = ascii(`,"p95":`);
const LAST_SUCCESS = ascii(`},"lastSuccessAt":`);
const LAST_FAILURE = ascii(`,"lastFailureAt":`);
const RECENT_OPEN = ascii(`,"recent":[`);
const END = ascii("]}}");
const RECORD_OPEN = ascii(`{"at":`);
const NEXT_RECORD_OPEN = ascii(`,{"at":`);
/** By the record's flags & 3 (3 is not written; read as failed, like decodeRecord). */
const OUTCOME = ["failed", "partial", "success", "failed"].map((o) => ascii(`,"outcome":"${o}","httpStatus":`));
const SMART = ascii(`,"smartHttpStatus":`);
const TIME = ascii(`,"responseTimeMs":`);
const ERROR = STORED_ERROR_KINDS.map((kind) => ascii(`,"error":${kind === null ? "null" : JSON.stringify(kind)}}`));
const NO_ERROR = ERROR[0]!;
/** 10000-01-01T00:00:00.000Z: later times (never written by a probe) take Date's slower path. */
const FAST_TIME_END = 253_402_300_800_000;

/**
 * Every body is written here: one buffer for all requests. The answer is a view of it, valid
 * until the next call: the route hands it straight to `new Response` (and to the compressor),
 * which copy it synchronously, so no answer is allocated twice.
 */
const out = new ByteBuffer(16_384);

/** "00" to "99". */
const TWO = new Uint8Array(200);
for (let n = 0; n < 100; n++) {
  TWO[2 * n] = 48 + Math.floor(n / 10);
  TWO[2 * n + 1] = 48 + (n % 10);
}

function put2(b: Uint8Array, p: number, n: number): number {
  b[p] = TWO[2 * n]!;
  b[p + 1] = TWO[2 * n + 1]!;
  return p + 2;
}

/** A u16 where `none` means null, as a JSON integer. */
const putOr = (value: number, none: number) => (value === none ? out.copy(NULL) : out.integer(value));

/** An uptime in ten-thousandths as `String(k / 10000)` prints it: 0, 1, 0.5, 0.9667, 0.0004. */
function putRatio(k: number) {
  if (k === NO_VALUE) return out.copy(NULL);
  if (k === 0 || k === 10_000) return out.integer(k / 10_000);
  out.reserve(6);
  const b = out.bytes;
  const p = out.length;
  b[p] = 48;
  b[p + 1] = 46;
  let digits = 4;
  while (k % 10 === 0) {
    k /= 10;
    digits--;
  }
  for (let i = p + 1 + digits; i > p + 1; i--) {
    b[i] = 48 + (k % 10);
    k = (k / 10) | 0;
  }
  out.length = p + 2 + digits;
}

/** `"YYYY-MM-DD` (with the opening quote) of the days from 1970 on that fit here, filled on first use. */
const CACHED_DAYS = 65_536;
const DAY_TEXT = new Uint8Array(CACHED_DAYS * 11);
const dayKnown = new Uint8Array(CACHED_DAYS);

/** The civil date of a day number (Howard Hinnant's civil_from_days), written as `"YYYY-MM-DD`. */
function writeDay(b: Uint8Array, p: number, day: number) {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  b[p] = 34;
  put2(b, p + 1, Math.floor(y / 100));
  put2(b, p + 3, y % 100);
  b[p + 5] = 45;
  put2(b, p + 6, m);
  b[p + 8] = 45;
  put2(b, p + 9, d);
}

/** `"<Date.prototype.toISOString>"` of `ms`, without a Date. */
function putIso(ms: number) {
  if (!(ms >= 0 && ms < FAST_TIME_END)) return out.json(new Date(ms).toISOString());
  out.reserve(26);
  const b = out.bytes;
  const p = out.length;
  const day = Math.floor(ms / DAY_MS);
  if (day < CACHED_DAYS) {
    if (dayKnown[day] === 0) {
      writeDay(DAY_TEXT, day * 11, day);
      dayKnown[day] = 1;
    }
    for (let i = 0, o = day * 11; i < 11; i++) b[p + i] = DAY_TEXT[o + i]!;
  } else writeDay(b, p, day);
  let t = ms - day * DAY_MS;
  const h = (t / 3_600_000) | 0;
  t -= h * 3_600_000;
  const min = (t / 60_000) | 0;
  t -= min * 60_000;
  const sec = (t / 1000) | 0;
  t -= sec * 1000;
  b[p + 11] = 84;
  put2(b, p + 12, h);
  b[p + 14] = 58;
  put2(b, p + 15, min);
  b[p + 17] = 58;
  put2(b, p + 18, sec);
  b[p + 20] = 46;
  b[p + 21] = 48 + ((t / 100) | 0);
  put2(b, p + 22, t % 100);
  b[p + 24] = 90;
  b[p + 25] = 34;
  out.length = p + 26;
}

const putTime = (ms: number) => (ms === NO_TIME ? out.copy(NULL) : putIso(ms));

/**
 * The availability answer (the whole envelope, UTF-8, in the order of the response schema) of
 * an entry's URL as of the dataset version `snapshot` pins, from the answers the version's index
 * holds (index-data.ts): no database read. Null for an unknown id. Written byte by byte into one
 * shared buffer: its 20 recent probes are most of the body, and this is a hot path. The bytes
 * returned are overwritten by the next call: copy them (a Response does) before calling again.
 */
export function availabilityBody(snapshot: DatasetSnapshot, id: string): Uint8Array<ArrayBuffer> | null {
  const u = snapshot.urlIndexOf(id);
  if (u === -1) return null;
  const url = snapshot.urlAt(u);
  const { offsets, bytes } = snapshot.availability;
  const start = offsets[u]!;
  const end = offsets[u + 1]!;
  const probedAt = start < end && bytes[start] === KIND_PROBED_AT ? decoder.decode(bytes.subarray(start + 1, end)) : "";
  out.clear();
  out.copy(HEAD);
  out.json(id);
  out.copy(URL_KEY);
  out.json(url);
  out.copy(LAST_PROBED);
  if (start === end || bytes[start] === KIND_PROBED_AT) {
    if (start === end) out.copy(NULL);
    else out.json(probedAt);
    out.copy(EMPTY);
    return out.bytes.subarray(0, out.length);
  }
  putIso(readU48(bytes, start + AT.lastProbed));
  for (let w = 0; w < 4; w++) {
    out.copy(UPTIME[w]!);
    putRatio(readU16(bytes, start + AT.uptime + 2 * w));
  }
  out.copy(MEDIAN);
  putOr(readU16(bytes, start + AT.median), NO_VALUE);
  out.copy(P95);
  putOr(readU16(bytes, start + AT.p95), NO_VALUE);
  out.copy(LAST_SUCCESS);
  putTime(readU48(bytes, start + AT.lastSuccess));
  out.copy(LAST_FAILURE);
  putTime(readU48(bytes, start + AT.lastFailure));
  out.copy(RECENT_OPEN);
  const count = bytes[start + AT.count]!;
  for (let n = 0, o = start + HISTORY_HEADER; n < count; n++, o += RECORD_BYTES) {
    out.copy(n === 0 ? RECORD_OPEN : NEXT_RECORD_OPEN);
    putIso(readU48(bytes, o));
    out.copy(OUTCOME[bytes[o + 6]! & 3]!);
    putOr(readU16(bytes, o + 8), 0);
    out.copy(SMART);
    putOr(readU16(bytes, o + 10), 0);
    out.copy(TIME);
    putOr(readU16(bytes, o + 12), NO_RESPONSE_TIME);
    out.copy(ERROR[bytes[o + 7]!] ?? NO_ERROR);
  }
  out.copy(END);
  return out.bytes.subarray(0, out.length);
}
