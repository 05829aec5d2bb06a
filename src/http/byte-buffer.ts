/**
 * A growable byte buffer the export and the availability answers render into: UTF-8 text written straight from the read
 * model's strings, with nothing allocated on the way (no string, no view, no result object:
 * garbage is what made the export's memory grow). The bytes are exactly those of the string
 * functions they stand for (`JSON.stringify`, the CSV quoting, `TextEncoder`); the tests
 * compare them on awkward strings.
 */
export class ByteBuffer {
  bytes: Uint8Array<ArrayBuffer>;
  length = 0;

  constructor(capacity = 256 * 1024) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Makes room for `more` bytes after the current length. */
  reserve(more: number) {
    const needed = this.length + more;
    if (needed <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(needed, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  clear() {
    this.length = 0;
  }

  /**
   * Writes the UTF-8 bytes of the character at `i` of `value` (`c`, not ASCII) at `at` and
   * returns the next position: a surrogate pair as one 4-byte character (`pairAt` tells the
   * caller to skip its second half), a lone surrogate as U+FFFD, as TextEncoder writes it.
   */
  private wide(value: string, i: number, c: number, at: number): number {
    const bytes = this.bytes;
    if (c < 0x800) {
      bytes[at++] = 0xc0 | (c >> 6);
      bytes[at++] = 0x80 | (c & 0x3f);
      return at;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < value.length ? value.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        bytes[at++] = 0xf0 | (point >> 18);
        bytes[at++] = 0x80 | ((point >> 12) & 0x3f);
        bytes[at++] = 0x80 | ((point >> 6) & 0x3f);
        bytes[at++] = 0x80 | (point & 0x3f);
        return at;
      }
      c = 0xfffd;
    }
    bytes[at++] = 0xe0 | (c >> 12);
    bytes[at++] = 0x80 | ((c >> 6) & 0x3f);
    bytes[at++] = 0x80 | (c & 0x3f);
    return at;
  }

  /** Whether the character at `i` starts a surrogate pair (its UTF-8 covers two code units). */
  private static pairAt(value: string, i: number, c: number): boolean {
    if (c < 0xd800 || c > 0xdbff || i + 1 >= value.length) return false;
    const next = value.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff;
  }

  /** Any string, as UTF-8 (`TextEncoder`'s bytes). */
  utf8(value: string) {
    const n = value.length;
    this.reserve(n * 3);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x80) bytes[at++] = c;
      else {
        at = this.wide(value, i, c, at);
        if (ByteBuffer.pairAt(value, i, c)) i++;
      }
    }
    this.length = at;
  }

  /** Exactly the UTF-8 of `JSON.stringify(value)`. */
  json(value: string) {
    const n = value.length;
    this.reserve(n * 6 + 2);
    const bytes = this.bytes;
    let at = this.length;
    bytes[at++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c < 0x80) bytes[at++] = c;
      else if (c === 0x22 || c === 0x5c) {
        bytes[at++] = 0x5c;
        bytes[at++] = c;
      } else if (c < 0x20) {
        bytes[at++] = 0x5c;
        const short = SHORT_ESCAPES[c]!;
        if (short !== 0) bytes[at++] = short;
        else at = unicodeEscape(bytes, at, c);
      } else if (c >= 0xd800 && c <= 0xdfff && !ByteBuffer.pairAt(value, i, c) && !lowOfPair(value, i, c)) {
        // A lone surrogate: JSON.stringify writes it as an escape.
        bytes[at++] = 0x5c;
        at = unicodeEscape(bytes, at, c);
      } else {
        at = this.wide(value, i, c, at);
        if (ByteBuffer.pairAt(value, i, c)) i++;
      }
    }
    bytes[at++] = 0x22;
    this.length = at;
  }

  /** `JSON.stringify(value)`, `null` for null. */
  jsonOrNull(value: string | null) {
    if (value === null) this.ascii("null");
    else this.json(value);
  }

  /**
   * One RFC 4180 field: as is, or quoted with inner quotes doubled when it holds a quote, comma,
   * CR or LF. A value starting with `=`, `+`, `-`, `@`, tab or CR gets a `'` in front (inside the
   * quotes when quoted): spreadsheets would run it as a formula (OWASP CSV injection).
   */
  csv(value: string) {
    const n = value.length;
    const first = n === 0 ? 0 : value.charCodeAt(0);
    const formula =
      first === 0x3d || first === 0x2b || first === 0x2d || first === 0x40 || first === 0x09 || first === 0x0d;
    let quote = false;
    for (let i = 0; i < n && !quote; i++) {
      const c = value.charCodeAt(i);
      quote = c === 0x22 || c === 0x2c || c === 0x0d || c === 0x0a;
    }
    if (!quote) {
      if (formula) this.ascii("'");
      this.utf8(value);
      return;
    }
    this.reserve(n * 3 + 3 + n);
    const bytes = this.bytes;
    let at = this.length;
    bytes[at++] = 0x22;
    if (formula) bytes[at++] = 0x27;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c === 0x22) {
        bytes[at++] = 0x22;
        bytes[at++] = 0x22;
      } else if (c < 0x80) bytes[at++] = c;
      else {
        at = this.wide(value, i, c, at);
        if (ByteBuffer.pairAt(value, i, c)) i++;
      }
    }
    bytes[at++] = 0x22;
    this.length = at;
  }

  /** A string of ASCII characters only (the writers' own constants). */
  ascii(value: string) {
    const n = value.length;
    this.reserve(n);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < n; i++) bytes[at++] = value.charCodeAt(i);
    this.length = at;
  }

  /** Bytes prepared before (a table's encoded values). */
  copy(source: Uint8Array) {
    const n = source.length;
    this.reserve(n);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < n; i++) bytes[at++] = source[i]!;
    this.length = at;
  }

  /** `count` bytes of `source` from `offset` as lowercase hex. */
  hex(source: Uint8Array, offset: number, count: number) {
    this.reserve(count * 2);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = offset; i < offset + count; i++) {
      const b = source[i]!;
      bytes[at++] = HEX[b >> 4]!;
      bytes[at++] = HEX[b & 15]!;
    }
    this.length = at;
  }

  /** A non-negative safe integer in decimal (as `String(value)` writes it). */
  integer(value: number) {
    if (!Number.isSafeInteger(value) || value < 0) {
      this.ascii(String(value));
      return;
    }
    let digits = 1;
    for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
    this.reserve(digits);
    const bytes = this.bytes;
    let at = this.length + digits;
    this.length = at;
    let v = value;
    do {
      bytes[--at] = 0x30 + (v % 10);
      v = Math.floor(v / 10);
    } while (v > 0);
  }
}

const isAscii = (value: string) => {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false;
  return true;
};

/** Whether two strings are equal once lowercased (`a.toLowerCase() === b.toLowerCase()`), without building either. */
export function equalFolded(a: string, b: string): boolean {
  const n = a.length;
  // Lowercasing keeps the length of ASCII text (not of all text: "İ" becomes two characters).
  if (n !== b.length) return isAscii(a) && isAscii(b) ? false : a.toLowerCase() === b.toLowerCase();
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x > 0x7f || y > 0x7f) return a.toLowerCase() === b.toLowerCase();
    if (x >= 0x41 && x <= 0x5a) x += 0x20;
    if (y >= 0x41 && y <= 0x5a) y += 0x20;
    if (x !== y) return false;
  }
  return true;
}

const HEX = new Uint8Array([..."0123456789abcdef"].map((c) => c.charCodeAt(0)));

/** JSON's two-character escapes of control characters (0: none, written as \\u00XX). */
const SHORT_ESCAPES = new Uint8Array(0x20);
for (const [code, letter] of [
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0c, "f"],
  [0x0d, "r"],
] as const)
  SHORT_ESCAPES[code] = letter.charCodeAt(0);

/** `uXXXX` (lowercase hex, after the backslash) at `at`; returns the next position. */
function unicodeEscape(bytes: Uint8Array, at: number, c: number): number {
  bytes[at++] = 0x75;
  bytes[at++] = HEX[(c >> 12) & 15]!;
  bytes[at++] = HEX[(c >> 8) & 15]!;
  bytes[at++] = HEX[(c >> 4) & 15]!;
  bytes[at++] = HEX[c & 15]!;
  return at;
}

/** Whether the low surrogate at `i` ends a pair (its high half came before). */
function lowOfPair(value: string, i: number, c: number): boolean {
  if (c < 0xdc00 || i === 0) return false;
  const previous = value.charCodeAt(i - 1);
  return previous >= 0xd800 && previous <= 0xdbff;
}

/** A table of strings pre-encoded with `encode` (small tables: vendors, versions, statuses, dates). */
export function encodeTable(values: readonly string[], encode: (out: ByteBuffer, value: string) => void): Uint8Array[] {
  const out = new ByteBuffer(1024);
  return values.map((value) => {
    out.clear();
    encode(out, value);
    return out.bytes.slice(0, out.length);
  });
}
