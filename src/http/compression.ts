import { brotliCompressSync, constants } from "node:zlib";
import { Lru } from "../directory/lru";

export type Encoding = "br" | "gzip";

const MIN_BYTES = 1024;

/** The encoding to use for this client, brotli preferred; null when it accepts neither. */
export function negotiateEncoding(request: Request): Encoding | null {
  const header = request.headers.get("accept-encoding");
  if (!header) return null;
  let gzip = false;
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (params.some((p) => /^\s*q=0(?:\.0*)?\s*$/.test(p))) continue;
    if (name === "br") return "br";
    if (name === "gzip" || name === "*") gzip = true;
  }
  return gzip ? "gzip" : null;
}

/** A response body: JSON text, or bytes when it was assembled from stored raw bytes. */
export type Body = string | Uint8Array<ArrayBuffer>;

function compress(body: Body, encoding: Encoding): Blob {
  if (encoding === "gzip") return new Blob([Bun.gzipSync(body, { level: 5 })]);
  return new Blob([brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })]);
}

/**
 * Response bodies already built, by key (the request URL) and encoding, bounded by count and
 * bytes; one per dataset version. A hit skips building, serialising, UTF-8 encoding and
 * compressing. Kept as Blobs, which a Response sends without copying.
 */
export class BodyCache {
  private readonly blobs: Lru<Blob>;

  constructor(entries: number, bytes: number) {
    this.blobs = new Lru<Blob>(entries, { maxWeight: bytes, weigh: (blob) => blob.size });
  }

  /** The uncompressed body; `build` runs (and may throw) only on a miss. */
  plain(key: string, build: () => Body): Blob {
    return this.blobs.getOrCompute(`identity ${key}`, () => new Blob([build()]));
  }

  /**
   * The body to send to a client accepting `accepted`: compressed when worth it. A compressed
   * form is cached only when the plain one was (`plain` is a Blob from `plain()`).
   */
  encoded(key: string, plain: Blob | Body, accepted: Encoding | null, build: () => Body): { body: Blob | Body; encoding: Encoding | null } {
    if (accepted === null || sizeOf(plain) < MIN_BYTES) return { body: plain, encoding: null };
    if (!(plain instanceof Blob)) return { body: compress(plain, accepted), encoding: accepted };
    return { body: this.blobs.getOrCompute(`${accepted} ${key}`, () => compress(build(), accepted)), encoding: accepted };
  }
}

const sizeOf = (body: Blob | Body) => (body instanceof Blob ? body.size : typeof body === "string" ? Buffer.byteLength(body) : body.length);
