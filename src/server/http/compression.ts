import { brotliCompressSync, constants } from "node:zlib";

export type Encoding = "br" | "gzip";

/** Smaller bodies are sent as they are. */
const MIN_COMPRESSED_BYTES = 1024;

/** The encodings this client accepts (`*` counts as gzip), of those we send. */
function accepted(request: Request): { br: boolean; gzip: boolean } {
  const header = request.headers.get("accept-encoding");
  const out = { br: false, gzip: false };
  if (!header) return out;
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (params.some((p) => /^\s*q=0(?:\.0*)?\s*$/.test(p))) continue;
    if (name === "br") out.br = true;
    if (name === "gzip" || name === "*") out.gzip = true;
  }
  return out;
}

/** The encoding to use for this client, brotli preferred; null when it accepts neither. */
export function negotiateEncoding(request: Request): Encoding | null {
  const { br, gzip } = accepted(request);
  return br ? "br" : gzip ? "gzip" : null;
}

/** Whether the client accepts gzip (the encoding download files are kept in). */
export const acceptsGzip = (request: Request): boolean => accepted(request).gzip;

/** A response body: JSON text, or bytes when it was assembled from stored raw bytes. */
export type Body = string | Uint8Array<ArrayBuffer>;

export function compress(body: Body, encoding: Encoding): Blob {
  if (encoding === "gzip") return new Blob([Bun.gzipSync(body, { level: 5 })]);
  return new Blob([
    brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
    }),
  ]);
}

const sizeOf = (body: Blob | Body) =>
  body instanceof Blob ? body.size : typeof body === "string" ? Buffer.byteLength(body) : body.length;

/**
 * Whether a body is too small to be worth compressing. A string's UTF-8 length is at least its
 * length in UTF-16 units, so a long one is decided without measuring it (which would flatten a
 * concatenated string and scan it once more before the Response encodes it).
 */
export const isSmall = (body: Blob | Body) => smallerThan(body, MIN_COMPRESSED_BYTES);

/** Whether a body is under `bytes` in UTF-8; a string is measured only when its length cannot tell. */
const smallerThan = (body: Blob | Body, bytes: number) =>
  typeof body === "string" && body.length >= bytes ? false : sizeOf(body) < bytes;
