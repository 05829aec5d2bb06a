import type { Transform } from "node:stream";
import { constants, createBrotliCompress, createGzip } from "node:zlib";
import { brandsEntries } from "../../directory/brands";
import type { EndpointFilter } from "../../directory/search";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { ByteBuffer } from "../http/byte-buffer";
import type { Encoding } from "../http/compression";
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
  /** `origin`: the request's (scheme://host[:port]), for the FHIR Bundle's absolute URLs. */
  /** `filter`: the export's, default none (the brands bundle plans its brands from every entry it holds). */
  writer(snapshot: DatasetSnapshot, origin: string, filter?: EndpointFilter): ExportWriter;
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
    writer: (snapshot, origin) => fhirWriter(snapshot.recordSource, snapshot.stats.lastUpdated, origin),
  },
  brands: {
    contentType: "application/fhir+json",
    extension: "brands.json",
    writer: (snapshot, origin, filter = { queryWords: [] }) =>
      fhirWriter(snapshot.recordSource, snapshot.stats.lastUpdated, origin, {
        developerPages: new Map(snapshot.vendors.map((vendor) => [vendor.id, vendor.endpointListUrl])),
        entries: () => brandsEntries(snapshot.search, filter),
      }),
  },
};

/** Entries read from the read model per search (one filter intersection each). */
const PAGE = 4096;
/** Entries rendered between two turns of the event loop (about 40–120 KB, depending on the format). */
const CHUNK = 256;
/** The render buffer's first size; it grows when a chunk needs more. */
const BUFFER_BYTES = 256 * 1024;

export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One chunk of the entries an export renders: `ordinals[from .. to)`, `done` of `total` once rendered. */
interface ExportChunk {
  ordinals: number[];
  from: number;
  to: number;
  done: number;
  total: number;
}

/**
 * Every entry the list operation would page through for `filter`, in its order: read PAGE at a
 * time through the snapshot's search, handed out `chunk` at a time. Stops early (reading no
 * further page) once `stopped()` says so.
 */
export function* exportChunks(
  snapshot: DatasetSnapshot,
  filter: EndpointFilter,
  chunk: number,
  stopped: () => boolean = () => false,
): Generator<ExportChunk, void> {
  for (let offset = 0; ; ) {
    const { total, ordinals } = snapshot.search.search(filter, offset, PAGE);
    for (let from = 0; from < ordinals.length && !stopped(); from += chunk) {
      const to = Math.min(from + chunk, ordinals.length);
      yield { ordinals, from, to, done: offset + to, total };
    }
    offset += ordinals.length;
    if (ordinals.length < PAGE || stopped()) break;
  }
}

/**
 * Sinks that copy what they are written (into the socket, or their own buffer while the client
 * is slow): Bun.serve's response sinks. Into these the export writes one reused buffer.
 */
const COPYING_SINK = /^\[object ReadableHTTPS?ResponseSinkController\]$/;

/**
 * Every entry the list operation would page through for `filter`, in its order, rendered by
 * `writer` as a byte stream produced while it is read, compressed when `encoding` is given. The
 * entries come from the snapshot's own search, page by page: the same filter, the same order as
 * the list.
 *
 * A direct stream: the body is rendered into one byte buffer and written into the consumer's
 * sink, CHUNK entries at a time, with a turn of the event loop between chunks (other requests
 * are answered meanwhile). Nothing per entry or per chunk is left for the garbage collector:
 * the writers render from the columns; Bun.serve's sink copies what it is written (into the
 * socket, or its own buffer while the client is slow) and the compressor has read a chunk when
 * its write completes, so the buffer is reused. Only other consumers (a reader,
 * `Response.text()`), which may keep what they are given, get a copy of each chunk. A write to
 * a consumer that is behind returns a promise: awaiting it holds the export at the client's
 * pace, so a slow or stalled client never makes the server buffer the export. A client that
 * goes away cancels the stream, which stops rendering at the next chunk.
 */
export function exportStream(
  snapshot: DatasetSnapshot,
  filter: EndpointFilter,
  writer: ExportWriter,
  slot: ExportSlot,
  encoding: Encoding | null = null,
): ReadableStream<Uint8Array> {
  let cancelled = false;
  let compressor: Transform | null = null;
  return new ReadableStream<Uint8Array>({
    type: "direct",
    async pull(controller) {
      const out = new ByteBuffer(BUFFER_BYTES);
      const copying = COPYING_SINK.test(Object.prototype.toString.call(controller));
      /** Hands bytes to the consumer: a promise while it is behind, resolved once it has drained. */
      const deliver = (bytes: Uint8Array): Promise<unknown> | null => {
        const written = controller.write(bytes);
        const flushed = controller.flush();
        if (written instanceof Promise) return written;
        return flushed instanceof Promise ? flushed : null;
      };
      let compressed: Promise<void> | null = null;
      /** The consumer's last delivery still waiting to drain (compressed path): rendering waits for it. */
      let behind: Promise<unknown> | null = null;
      if (encoding !== null) {
        const stream = createCompressor(encoding);
        compressor = stream;
        // Its output chunks are fresh buffers (a fifth of the text or less): handed on as they
        // come, the compressor paused while the consumer is behind.
        stream.on("data", (chunk: Uint8Array) => {
          if (cancelled) return;
          const waiting = deliver(chunk);
          if (waiting !== null) {
            stream.pause();
            const drained = waiting.then(() => {
              if (behind === drained) behind = null;
              stream.resume();
            });
            behind = drained;
          }
        });
        compressed = new Promise((resolve, reject) => {
          stream.on("end", resolve);
          stream.on("error", reject);
          stream.on("close", resolve);
        });
      }
      const send = async () => {
        if (out.length === 0 || cancelled) return;
        const view = out.bytes.subarray(0, out.length);
        if (compressor !== null) {
          const stream = compressor;
          // Completes once the compressor has consumed the bytes (and its output is taken).
          await new Promise<void>((resolve, reject) =>
            stream.write(view, (error) => (error ? reject(error) : resolve())),
          );
          // Backpressure: the next chunk is rendered only once the consumer has taken what the
          // compressor gave it, so a slow reader never makes the server compress ahead of it.
          while (behind !== null && !cancelled) await behind;
        } else await deliver(copying ? view : out.bytes.slice(0, out.length));
        out.clear();
      };
      try {
        writer.begin(out);
        for (const { ordinals, from, to, done, total } of exportChunks(snapshot, filter, CHUNK, () => cancelled)) {
          writer.write(ordinals, from, to, out);
          slot.progress(done, total);
          await send();
          await nextTurn();
        }
        if (!cancelled) {
          writer.end(out);
          await send();
          if (compressor !== null) {
            compressor.end();
            await compressed;
          }
          controller.close();
        }
      } finally {
        compressor?.destroy();
        slot.release();
      }
    },
    cancel() {
      cancelled = true;
      compressor?.destroy();
      slot.release();
    },
  });
}

/**
 * A streaming compressor: brotli at quality 3 or gzip at level 5 (both about 60–80 MB/s of text
 * here). Each running export holds one, so their memory is kept small: brotli's window is
 * 2^18 = 256 KB (not its 4 MB default), gzip's the default 32 KB at memLevel 8 (about 256 KB
 * of state).
 */
function createCompressor(encoding: Encoding): Transform {
  return encoding === "br"
    ? createBrotliCompress({
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 3,
          [constants.BROTLI_PARAM_LGWIN]: 18,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : createGzip({ level: 5, windowBits: 15, memLevel: 8 });
}
