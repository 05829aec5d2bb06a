import { Lru } from "../../directory/lru";
import type { DatasetSnapshot } from "../../directory/snapshot";
import type { Encoding } from "../http/compression";

/** One data response as built for a dataset version: enough to answer the same URL again. */
export interface CachedAnswer {
  etag: string;
  plain: Blob;
  /** Headers of this answer's own (the list's Link), set by the body's builder. */
  headers?: Record<string, string>;
  /** Compressed forms, added as clients ask for them (by storing a new answer). */
  readonly encoded: Readonly<Partial<Record<Encoding, Blob>>>;
}

const ENTRIES = 1_000;
const BYTES = 64 * 1024 * 1024;
const weigh = (answer: CachedAnswer) =>
  answer.plain.size + (answer.encoded.gzip?.size ?? 0) + (answer.encoded.br?.size ?? 0);

/** Answers already built, per dataset version (dropped with it), by request target (path and query); bounded by count and bytes. */
const byVersion = new WeakMap<DatasetSnapshot, Lru<CachedAnswer>>();

export function answersOf(snapshot: DatasetSnapshot): Lru<CachedAnswer> {
  let answers = byVersion.get(snapshot);
  if (answers === undefined) answers = new Lru<CachedAnswer>(ENTRIES, { maxWeight: BYTES, weigh });
  byVersion.set(snapshot, answers);
  return answers;
}
