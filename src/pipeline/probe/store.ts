import { type CapabilityColumns, capabilityColumns } from "../../db/capability-columns";
import type { Db } from "../../db/client";
import { markDatasetChanged } from "../../db/dataset-meta";
import { refreshEffectiveFields } from "../../db/effective-fields";
import { perConnection } from "../../db/per-connection";
import { bodyPairMemo, pruneBodies, storeBody } from "../../db/probe-bodies";
import { probeWrites } from "../../db/probe-statements";
import { schemeOf } from "../../model/capability-rules";
import { recordHistory } from "./history";
import type { ProbeRecord, StorableResult } from "./record";

/** The capability columns of a pair of stored bodies, derived once per pair and connection. */
const derivedPairs = perConnection(() => bodyPairMemo<CapabilityColumns>());
function capabilitiesOf(
  sqlite: Db["sqlite"],
  metadataId: number | null,
  smartId: number | null,
  url: string,
  derive: () => CapabilityColumns,
): CapabilityColumns {
  const pairs = derivedPairs(sqlite);
  if (pairs.size > 10_000) pairs.clear();
  return pairs.of(metadataId, smartId, derive, schemeOf(url));
}

function iso(now: Date | string): string {
  return typeof now === "string" ? now : now.toISOString();
}

/**
 * Stores several probe results in one transaction: the probes row of each URL (each body exactly
 * as received, stored once in probe_bodies however many URLs serve it), the status of the entries
 * on it, their effective fhirVersion/access, one record in the URL's availability history, and a
 * new dataset version. Bodies that the replaced rows referred to and no probe refers to any more
 * are deleted. Returns the number of entries whose status changed.
 */
export function recordProbes(
  db: Db,
  records: readonly ProbeRecord[],
  now: Date | string,
  { history = true } = {},
): number {
  if (records.length === 0) return 0;
  const at = iso(now);
  const probes = probeWrites(db.sqlite);
  const sqlite = db.sqlite;
  const body = (doc: StorableResult["metadata"]) => (doc.ok && doc.body !== null ? storeBody(sqlite, doc.body) : null);
  const kept = (doc: StorableResult["metadata"]) => (doc.ok ? doc.body : null);
  const write = db.sqlite.transaction(() => {
    let changed = 0;
    const replaced = new Set<number>();
    for (const { url, result } of records) {
      const s = result.summary;
      const tls = result.tls;
      const before = probes.bodiesOf(url);
      if (before) for (const id of before) if (id !== null) replaced.add(id);
      const metadataId = body(result.metadata);
      const smartId = body(result.smart);
      const capabilities = capabilitiesOf(sqlite, metadataId, smartId, url, () =>
        capabilityColumns(kept(result.metadata), kept(result.smart), url),
      );
      const answered = result.metadata.httpStatus !== null;
      probes.upsert({
        url,
        probedAt: at,
        probeStatus: result.probeStatus,
        metadataHttpStatus: result.metadata.httpStatus,
        metadataBodyId: metadataId,
        smartHttpStatus: result.smart.httpStatus,
        smartBodyId: smartId,
        errorKind: result.errorKind,
        durationMs: result.durationMs,
        fhirVersion: s.fhirVersion,
        softwareName: s.softwareName,
        softwareVersion: s.softwareVersion,
        supportedResources: JSON.stringify(s.supportedResources),
        smartSupported: s.smartSupported,
        access: result.access ? JSON.stringify(result.access) : null,
        smartCapabilities: JSON.stringify(s.smartCapabilities),
        grantTypes: JSON.stringify(s.grantTypes),
        supports: capabilities.supports,
        verdict: capabilities.verdict,
        tlsProtocol: tls?.protocol ?? null,
        tlsCertificateExpiresAt: tls?.certificateExpiresAt ?? null,
        tlsIssuer: tls?.issuer ?? null,
        tlsVerified: tls?.verified ?? null,
        // Where /metadata really answered (after redirects), when anything answered.
        finalUrl: answered ? (result.metadata.finalUrl ?? null) : null,
        redirectCount: answered ? (result.metadata.redirects ?? 0) : null,
      });
      if (result.entryStatus) changed += probes.setEntryStatus(url, result.entryStatus, at);
    }
    pruneBodies(sqlite, replaced);
    if (history) recordHistory(db.sqlite, records, at);
    refreshEffectiveFields(
      db.sqlite,
      records.map((r) => r.url),
      at,
    );
    markDatasetChanged(db.sqlite, at);
    return changed;
  });
  return write.immediate();
}

/** Stores one probe result under `url` (see recordProbes). */
export function recordProbe(db: Db, url: string, result: StorableResult, now: Date | string): number {
  return recordProbes(db, [{ url, result }], now);
}
