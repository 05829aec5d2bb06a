import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";

/** A list larger than the configured cap (INGEST_MAX_BYTES): it is not ingested. */
export class ListTooLargeError extends Error {
  override name = "ListTooLargeError";
  constructor(what: string, maxBytes: number) {
    super(`${what} is larger than the ${maxBytes.toLocaleString("en-US")} bytes allowed (INGEST_MAX_BYTES)`);
  }
}

/**
 * Reads a byte stream to its end, or stops (and cancels the stream) as soon as it holds more
 * than `limit` bytes: returns null then. Memory stays below `limit` plus one chunk.
 */
export async function readCapped(
  source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop early cancels a web stream and destroys a Node stream.
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > limit) return null;
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : new Uint8Array(Buffer.concat(chunks, total));
}

/**
 * The bytes of a list file, at most `maxBytes` of them. A regular file over the cap fails without
 * being read; anything else (a pipe, a device such as /dev/zero) fails as soon as it passes it.
 */
export async function readListFile(path: string, maxBytes: number): Promise<Uint8Array> {
  let bytes: Uint8Array | null;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new Error("it is a directory");
    if (info.isFile()) {
      if (info.size > maxBytes) throw new ListTooLargeError(path, maxBytes);
      // One byte more than allowed tells a file that grew since stat() from one that fits.
      const whole = await Bun.file(path)
        .slice(0, maxBytes + 1)
        .bytes();
      bytes = whole.byteLength > maxBytes ? null : whole;
    } else bytes = await readCapped(createReadStream(path, { highWaterMark: 1 << 20 }), maxBytes);
  } catch (error) {
    if (error instanceof ListTooLargeError) throw error;
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (bytes === null) throw new ListTooLargeError(path, maxBytes);
  return bytes;
}
