import { brotliCompressSync, constants } from "node:zlib";

export type Encoding = "br" | "gzip";

const MIN_BYTES = 1024;
const CACHE_ENTRIES = 512;

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

function compress(body: string, encoding: Encoding): Uint8Array {
  if (encoding === "gzip") return Bun.gzipSync(Buffer.from(body), { level: 5 });
  return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
}

/** Compressed bodies by cache key (the ETag: it changes whenever the body could), most recent last. */
const cache = new Map<string, Uint8Array>();

/** The body to send: compressed when worth it and accepted, from the cache when seen before. */
export function encodeBody(body: string, encoding: Encoding | null, cacheKey: string): { body: string | Uint8Array; encoding: Encoding | null } {
  if (encoding === null || body.length < MIN_BYTES) return { body, encoding: null };
  const key = `${encoding} ${cacheKey}`;
  let bytes = cache.get(key);
  if (bytes) {
    cache.delete(key);
  } else {
    bytes = compress(body, encoding);
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, bytes);
  return { body: bytes, encoding };
}
