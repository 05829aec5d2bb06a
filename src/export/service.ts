import { Duplex } from "node:stream";
import { constants, createBrotliCompress, createGzip } from "node:zlib";
import type { EndpointFilter } from "../directory/search";
import type { DatasetSnapshot } from "../directory/snapshot";
import type { Encoding } from "../http/compression";
import { ByteBuffer } from "./formats/bytes";
import { csvWriter } from "./formats/csv";
import { fhirWriter } from "./formats/fhir";
import { ndjsonWriter } from "./formats/ndjson";
import type { ExportWriter } from "./formats/writer";
import type { ExportSlot } from "./in-flight";
import type { ExportFormat } from "./schemas";

export interface FormatInfo {
  contentType: string;
  /** File name extension of the download. */
  extension: string;
  writer(snapshot: DatasetSnapshot): ExportWriter;
}

export const FORMATS: Record<ExportFormat, FormatInfo> = {
  csv: {
    contentType: "text/csv; charset=utf-8",
    extension: "csv",
    writer: (snapshot) => csvWriter(snapshot.recordSource),
  },
  ndjson: {
    contentType: "application/x-ndjson",
    extension: "ndjson",
    writer: (snapshot) => ndjsonWriter(snapshot.recordSource),
  },
  fhir: {
    contentType: "application/fhir+json",
    extension: "fhir.json",
    writer: (snapshot) => fhirWriter(snapshot.recordSource, snapshot.stats.lastUpdated),
  },
};

/** Entries read from the read model per search (one filter intersection each). */
const PAGE = 4096;
/** Entries rendered between two turns of the event loop (about 40–120 KB, depending on the format). */
const CHUNK = 256;
/** The render buffer's first size; it grows when a chunk needs more. */
const BUFFER_BYTES = 256 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sinks that copy what they are written (into the socket, or their own buffer while the client
 * is slow): Bun.serve's response sinks. Into these the export writes one reused buffer.
 */
const COPYING_SINK = /^\[object ReadableHTTPS?ResponseSinkController\]$/;

/**
 * Every entry the list operation would page through for `filter`, in its order, rendered by
 * `writer` as a byte stream produced while it is read. The entries come from the snapshot's own
 * search, page by page: the same filter, the same order as the list.
 *
 * A direct stream: the body is rendered into one byte buffer and written into the consumer's
 * sink, CHUNK entries at a time, with a turn of the event loop between chunks (other requests
 * are answered meanwhile). Nothing per entry or per chunk is left for the garbage collector:
 * the writers render from the columns, and Bun.serve's sink copies the buffer into the socket
 * (or its own buffer while the client is slow), so the buffer is reused. Other consumers (a
 * reader, the compressor, `Response.text()`) may keep what they are given, so they get a copy
 * of each chunk. A write to a consumer that is behind returns a promise: awaiting it holds the
 * export at the client's pace, so a slow or stalled client never makes the server buffer the
 * export. A client that goes away cancels the stream, which stops rendering at the next chunk.
 */
export function exportStream(
  snapshot: DatasetSnapshot,
  filter: EndpointFilter,
  writer: ExportWriter,
  slot: ExportSlot,
): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    type: "direct",
    async pull(controller) {
      const out = new ByteBuffer(BUFFER_BYTES);
      const reuse = COPYING_SINK.test(Object.prototype.toString.call(controller));
      const send = async () => {
        if (out.length === 0 || cancelled) return;
        const written = controller.write(reuse ? out.bytes.subarray(0, out.length) : out.bytes.slice(0, out.length));
        out.clear();
        // A promise while the consumer is behind: resolved once it has drained.
        if (written instanceof Promise) await written;
        const flushed = controller.flush();
        if (flushed instanceof Promise) await flushed;
      };
      try {
        writer.begin(out);
        let offset = 0;
        for (;;) {
          const { total, ordinals } = snapshot.search.search(filter, offset, PAGE);
          for (let from = 0; from < ordinals.length && !cancelled; from += CHUNK) {
            const to = Math.min(from + CHUNK, ordinals.length);
            writer.write(ordinals, from, to, out);
            slot.progress(offset + to, total);
            await send();
            await nextTurn();
          }
          offset += ordinals.length;
          if (ordinals.length < PAGE || cancelled) break;
        }
        if (!cancelled) {
          writer.end(out);
          await send();
          controller.close();
        }
      } finally {
        slot.release();
      }
    },
    cancel() {
      cancelled = true;
      slot.release();
    },
  });
}

/** A streaming compressor: brotli at quality 3 or gzip at level 5 (both about 60–80 MB/s of text here). */
export function compressor(encoding: Encoding): ReadableWritablePair<Uint8Array, Uint8Array> {
  const stream =
    encoding === "br"
      ? createBrotliCompress({
          params: { [constants.BROTLI_PARAM_QUALITY]: 3, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
        })
      : createGzip({ level: 5 });
  return Duplex.toWeb(stream) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
}
