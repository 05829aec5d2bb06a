import { Duplex } from "node:stream";
import { constants, createBrotliCompress, createGzip } from "node:zlib";
import type { EndpointFilter } from "../directory/search";
import type { DatasetSnapshot } from "../directory/snapshot";
import type { EndpointRecord } from "../directory/types";
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
  writer(snapshot: DatasetSnapshot): ExportWriter;
}

export const FORMATS: Record<ExportFormat, FormatInfo> = {
  csv: { contentType: "text/csv; charset=utf-8", extension: "csv", writer: () => csvWriter() },
  ndjson: { contentType: "application/x-ndjson", extension: "ndjson", writer: () => ndjsonWriter() },
  fhir: {
    contentType: "application/fhir+json",
    extension: "fhir.json",
    writer: (snapshot) => fhirWriter(snapshot.stats.lastUpdated),
  },
};

/** Entries read from the read model per list call (one filter intersection each). */
const PAGE = 4096;
/** Entries rendered into one chunk of the body (about 40–120 KB of text, depending on the format). */
const CHUNK = 256;
/** Chunks rendered at most in one pull when the writer holds entries back (see pull). */
const MAX_CHUNKS_PER_PULL = 64;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Every this many bytes sent, an export asks for a garbage collection (asynchronous). An export
 * leaves only garbage behind (records, text, chunks), but a heap as large as the read model's
 * lets it pile up to hundreds of MB before collecting on its own.
 */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * Every entry the list operation would page through for `filter`, in its order, rendered by
 * `writer` as a byte stream produced while it is read: each pull renders at most CHUNK entries
 * after giving the event loop a turn (other requests are answered between chunks), and only
 * one PAGE of records is held at a time, so memory does not grow with the export. The entries
 * come from the snapshot's own list operation, page by page: the same filter, the same order,
 * the same records.
 */
export function exportStream(
  snapshot: DatasetSnapshot,
  filter: EndpointFilter,
  writer: ExportWriter,
  slot: ExportSlot,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let total = -1;
  let offset = 0;
  let page: EndpointRecord[] = [];
  let index = 0;
  let exhausted = false;
  let started = false;
  let sinceCollect = 0;

  const nextRecords = (): EndpointRecord[] => {
    if (index >= page.length) {
      if (exhausted) return [];
      const result = snapshot.list(filter, offset, PAGE);
      total = result.total;
      page = result.records;
      offset += page.length;
      index = 0;
      if (page.length < PAGE) exhausted = true;
      if (page.length === 0) return [];
    }
    const slice = page.slice(index, index + CHUNK);
    index += slice.length;
    return slice;
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (started) await nextTurn();
          let text = "";
          if (!started) {
            started = true;
            text = writer.begin();
          }
          // A writer may hold entries back (the FHIR writer gathers an organization's URLs), so a
          // chunk can render to nothing: render on, up to a bound, so that every pull enqueues
          // bytes (a pull that enqueues nothing leaves the response waiting).
          let done = false;
          for (let chunks = 0; !done && (text === "" || chunks === 0) && chunks < MAX_CHUNKS_PER_PULL; chunks++) {
            const records = nextRecords();
            text += writer.write(records);
            done = records.length === 0 || (exhausted && index >= page.length);
          }
          slot.progress(offset - (page.length - index), Math.max(total, 0));
          if (done) text += writer.end();
          // Still nothing after the bound: JSON whitespace keeps the response moving (CSV and
          // NDJSON writers never hold entries back).
          if (text === "" && !done) text = " ";
          if (text !== "") {
            const bytes = encoder.encode(text);
            controller.enqueue(bytes);
            sinceCollect += bytes.length;
            if (sinceCollect >= COLLECT_EVERY_BYTES) {
              sinceCollect = 0;
              Bun.gc(false);
            }
          }
          if (done) {
            page = [];
            controller.close();
            slot.release();
          }
        } catch (error) {
          slot.release();
          throw error;
        }
      },
      cancel() {
        page = [];
        slot.release();
      },
    },
    { highWaterMark: 0 },
  );
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
