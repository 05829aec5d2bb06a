/**
 * A growable byte buffer the export renders into: UTF-8 text written straight from the read
 * model's strings, no intermediate strings. The common case (printable ASCII with nothing to
 * escape) is copied character by character; anything else takes the general path
 * (`JSON.stringify` or the CSV quoting, then UTF-8), so the bytes are exactly those of the
 * string functions.
 */
export class ByteBuffer {
  bytes: Uint8Array<ArrayBuffer>;
  length = 0;
  private readonly encoder = new TextEncoder();

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

  /** Any string, as UTF-8. */
  text(value: string) {
    this.reserve(value.length * 3);
    const { written } = this.encoder.encodeInto(value, this.bytes.subarray(this.length));
    this.length += written;
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

  /** Exactly `JSON.stringify(value)`. */
  json(value: string) {
    const n = value.length;
    this.reserve(n + 2);
    const bytes = this.bytes;
    const start = this.length;
    let at = start;
    bytes[at++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        this.length = start;
        this.text(JSON.stringify(value));
        return;
      }
      bytes[at++] = c;
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
   * One RFC 4180 field: as is, or quoted with inner quotes doubled when it holds a quote,
   * comma, CR or LF (`quote` renders that case; called only then or for non-ASCII text).
   */
  csv(value: string, quote: (value: string) => string) {
    const n = value.length;
    this.reserve(n);
    const bytes = this.bytes;
    const start = this.length;
    let at = start;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x2c) {
        this.length = start;
        this.text(quote(value));
        return;
      }
      bytes[at++] = c;
    }
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

const HEX = new Uint8Array([..."0123456789abcdef"].map((c) => c.charCodeAt(0)));

/** A table of strings pre-encoded with `encode` (small tables: vendors, versions, statuses, dates). */
export function encodeTable(values: readonly string[], encode: (out: ByteBuffer, value: string) => void): Uint8Array[] {
  const out = new ByteBuffer(1024);
  return values.map((value) => {
    out.clear();
    encode(out, value);
    return out.bytes.slice(0, out.length);
  });
}
