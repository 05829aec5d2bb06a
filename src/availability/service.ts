import type { DatasetSnapshot } from "../directory/snapshot";
import { DAY_MS, ERROR_CODES, RECORD_BYTES } from "./history-format";
import { AT, HISTORY_HEADER, KIND_PROBED_AT, NO_TIME, NO_VALUE, readU16, readU48 } from "./index-data";

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
const ERROR = ERROR_CODES.map((kind) => ascii(`,"error":${kind === null ? "null" : JSON.stringify(kind)}}`));
const NO_ERROR = ERROR[0]!;
/** 10000-01-01T00:00:00.000Z: later times (never written by a probe) take Date's slower path. */
const FAST_TIME_END = 253_402_300_800_000;

/** The body is written here, then copied out: one buffer for every request (the handler is synchronous). */
let buf = new Uint8Array(16_384);
let pos = 0;

function put(bytes: Uint8Array) {
  buf.set(bytes, pos);
  pos += bytes.length;
}

/** Writes any text as UTF-8 (ids and URLs: the buffer was sized for 3 bytes per UTF-16 unit). */
function putText(text: string) {
  pos += encoder.encodeInto(text, buf.subarray(pos)).written;
}

const json = (value: string) => JSON.stringify(value);

function putUint(n: number) {
  if (n >= 10) {
    const digits = n >= 10_000 ? 5 : n >= 1_000 ? 4 : n >= 100 ? 3 : 2;
    for (let i = pos + digits - 1; i >= pos; i--) {
      buf[i] = 48 + (n % 10);
      n = Math.floor(n / 10);
    }
    pos += digits;
  } else buf[pos++] = 48 + n;
}

function put2(n: number) {
  buf[pos++] = 48 + Math.floor(n / 10);
  buf[pos++] = 48 + (n % 10);
}

/** A u16 of the index (NO_VALUE: null) as a JSON integer. */
function putU16(value: number) {
  if (value === NO_VALUE) put(NULL);
  else putUint(value);
}

/** A record's u16 status or time, where `none` means null. */
function putOr(value: number, none: number) {
  if (value === none) put(NULL);
  else putUint(value);
}

/** An uptime in ten-thousandths as `String(k / 10000)` prints it: 0, 1, 0.5, 0.9667, 0.0004. */
function putRatio(k: number) {
  if (k === NO_VALUE) return put(NULL);
  if (k === 0 || k === 10_000) {
    buf[pos++] = k === 0 ? 48 : 49;
    return;
  }
  buf[pos++] = 48;
  buf[pos++] = 46;
  let digits = 4;
  while (k % 10 === 0) {
    k /= 10;
    digits--;
  }
  for (let i = pos + digits - 1; i >= pos; i--) {
    buf[i] = 48 + (k % 10);
    k = Math.floor(k / 10);
  }
  pos += digits;
}

/**
 * `"<Date.prototype.toISOString>"` of `ms`, without a Date: the civil date from the day number
 * (Howard Hinnant's days_from_civil inverse), digits written straight into the buffer.
 */
function putIso(ms: number) {
  if (!(ms >= 0 && ms < FAST_TIME_END)) {
    putText(json(new Date(ms).toISOString()));
    return;
  }
  const day = Math.floor(ms / DAY_MS);
  let t = ms - day * DAY_MS;
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const b = buf;
  let p = pos;
  b[p++] = 34;
  b[p++] = 48 + Math.floor(y / 1000);
  b[p++] = 48 + (Math.floor(y / 100) % 10);
  b[p++] = 48 + (Math.floor(y / 10) % 10);
  b[p++] = 48 + (y % 10);
  b[p++] = 45;
  pos = p;
  put2(m);
  buf[pos++] = 45;
  put2(d);
  buf[pos++] = 84;
  const h = Math.floor(t / 3_600_000);
  t -= h * 3_600_000;
  const min = Math.floor(t / 60_000);
  t -= min * 60_000;
  const sec = Math.floor(t / 1000);
  t -= sec * 1000;
  put2(h);
  buf[pos++] = 58;
  put2(min);
  buf[pos++] = 58;
  put2(sec);
  buf[pos++] = 46;
  buf[pos++] = 48 + Math.floor(t / 100);
  put2(t % 100);
  buf[pos++] = 90;
  buf[pos++] = 34;
}

function putTime(ms: number) {
  if (ms === NO_TIME) put(NULL);
  else putIso(ms);
}

/**
 * The availability answer (the whole envelope, UTF-8, in the order of the response schema) of
 * an entry's URL as of the dataset version `snapshot` pins, from the answers the version's index
 * holds (index-data.ts): no database read. Null for an unknown id. Written byte by byte into one
 * buffer: its 20 recent probes are most of the body, and this is a hot path.
 */
export function availabilityBody(snapshot: DatasetSnapshot, id: string): Uint8Array<ArrayBuffer> | null {
  const u = snapshot.urlIndexOf(id);
  if (u === -1) return null;
  const idJson = json(id);
  const urlJson = json(snapshot.urlAt(u));
  const { offsets, bytes } = snapshot.availability;
  const start = offsets[u]!;
  const end = offsets[u + 1]!;
  const probedAt =
    start < end && bytes[start] === KIND_PROBED_AT ? json(decoder.decode(bytes.subarray(start + 1, end))) : "";
  const need = 8_192 + 3 * (idJson.length + urlJson.length + probedAt.length);
  if (buf.length < need) buf = new Uint8Array(need * 2);
  pos = 0;
  put(HEAD);
  putText(idJson);
  put(URL_KEY);
  putText(urlJson);
  put(LAST_PROBED);
  if (start === end || bytes[start] === KIND_PROBED_AT) {
    if (start === end) put(NULL);
    else putText(probedAt);
    put(EMPTY);
    return buf.slice(0, pos);
  }
  putIso(readU48(bytes, start + AT.lastProbed));
  for (let w = 0; w < 4; w++) {
    put(UPTIME[w]!);
    putRatio(readU16(bytes, start + AT.uptime + 2 * w));
  }
  put(MEDIAN);
  putU16(readU16(bytes, start + AT.median));
  put(P95);
  putU16(readU16(bytes, start + AT.p95));
  put(LAST_SUCCESS);
  putTime(readU48(bytes, start + AT.lastSuccess));
  put(LAST_FAILURE);
  putTime(readU48(bytes, start + AT.lastFailure));
  put(RECENT_OPEN);
  const count = bytes[start + AT.count]!;
  for (let n = 0, o = start + HISTORY_HEADER; n < count; n++, o += RECORD_BYTES) {
    put(n === 0 ? RECORD_OPEN : NEXT_RECORD_OPEN);
    putIso(readU48(bytes, o));
    put(OUTCOME[bytes[o + 6]! & 3]!);
    putOr(readU16(bytes, o + 8), 0);
    put(SMART);
    putOr(readU16(bytes, o + 10), 0);
    put(TIME);
    putOr(readU16(bytes, o + 12), 0xffff);
    put(ERROR[bytes[o + 7]!] ?? NO_ERROR);
  }
  put(END);
  return buf.slice(0, pos);
}
