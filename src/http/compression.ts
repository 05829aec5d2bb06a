import { brotliCompressSync, constants } from "node:zlib";
import type { Lru } from "../directory/lru";

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

function encode(body: string, encoding: Encoding | null): Uint8Array {
  if (encoding === "gzip") return Bun.gzipSync(Buffer.from(body), { level: 5 });
  if (encoding === "br") return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
  return new TextEncoder().encode(body);
}

/**
 * The bytes to send for `body()`, compressed when worth it and accepted. `cache` holds bodies by
 * key and encoding (the caller's, per dataset version): a hit skips building, serialising,
 * UTF-8 encoding and compressing the body.
 */
export function encodedBody(cache: Lru<Uint8Array>, cacheKey: string, accepted: Encoding | null, body: () => string): { bytes: Uint8Array; encoding: Encoding | null } {
  const plain = cache.getOrCompute(`identity ${cacheKey}`, () => encode(body(), null));
  if (accepted === null || plain.length < MIN_BYTES) return { bytes: plain, encoding: null };
  return { bytes: cache.getOrCompute(`${accepted} ${cacheKey}`, () => encode(new TextDecoder().decode(plain), accepted)), encoding: accepted };
}
