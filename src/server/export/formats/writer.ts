import type { ByteBuffer } from "../../http/byte-buffer";

/**
 * Renders the export's entries as bytes, in slices: `begin`, then `write` for consecutive runs
 * of list positions (ordinals) in list order, then `end`, each appending to `out`. A writer reads
 * the entries straight from the read model's columns (no record objects, no intermediate
 * strings) and keeps only what its format needs between slices, so memory does not grow with
 * the export. Its output equals what `endpointRecordAt` and the format's string functions give; the
 * tests compare both for every entry of a dataset.
 */
export interface ExportWriter {
  begin(out: ByteBuffer): void;
  write(ordinals: readonly number[], from: number, to: number, out: ByteBuffer): void;
  end(out: ByteBuffer): void;
}
