/**
 * What a probe hands to the store (src/pipeline/probe/store.ts) and to the availability history
 * (history.ts): the URL and the parts of its result they keep. Its own module, so that neither of
 * the two imports the other for it.
 */
import type { DocumentResult, ProbeResult } from "../../model/probe";

/** What the store keeps of one document; the history also keeps /metadata's error class and time. */
type StorableDocument = Pick<DocumentResult, "ok" | "httpStatus" | "body"> &
  Partial<Pick<DocumentResult, "errorKind" | "durationMs" | "finalUrl" | "redirects">>;

/** The parts of a ProbeResult the store keeps (a ProbeResult is one). */
export interface StorableResult
  extends Pick<ProbeResult, "probeStatus" | "entryStatus" | "errorKind" | "durationMs" | "summary" | "access">,
    Partial<Pick<ProbeResult, "tls">> {
  metadata: StorableDocument;
  smart: StorableDocument;
}

export interface ProbeRecord {
  url: string;
  result: StorableResult;
}

/** A copy of a result with only what the store needs (no parsed JSON), cheap to post to a worker. */
export function storable(result: StorableResult): StorableResult {
  const doc = (d: StorableDocument) => ({
    ok: d.ok,
    httpStatus: d.httpStatus,
    body: d.body,
    errorKind: d.errorKind ?? null,
    durationMs: d.durationMs,
    finalUrl: d.finalUrl,
    redirects: d.redirects,
  });
  return {
    probeStatus: result.probeStatus,
    entryStatus: result.entryStatus,
    errorKind: result.errorKind,
    durationMs: result.durationMs,
    summary: result.summary,
    access: result.access,
    tls: result.tls ?? null,
    metadata: doc(result.metadata),
    smart: doc(result.smart),
  };
}
