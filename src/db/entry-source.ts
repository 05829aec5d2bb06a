import type { Database } from "bun:sqlite";
import type { SourceRecord } from "../model/endpoints";

type EntryRow = [
  rowId: number,
  vendorId: string,
  firstSeen: string | null,
  urlEvidence: SourceRecord["fields"]["url"],
  urlPublished: string | null,
  versionEvidence: SourceRecord["fields"]["fhirVersion"],
  stateEvidence: SourceRecord["fields"]["state"],
  probed: number,
];

type ListRow = [
  id: string,
  url: string,
  publishedUrl: string | null,
  readFrom: string | null,
  asOf: string | null,
  sha256: string | null,
  present: number,
  lastSeen: string | null,
];

/**
 * Where an entry comes from (GET /api/v1/endpoints/:id/source), or null for an unknown id. Every
 * entry answers, removed and unusable ones too. The list is the one that carries the entry now
 * (the most recently read, when several do; of lists read at the same time, a version-specific
 * one first, then by id), else the one that carried it last. The served
 * version is known from the probe when the probe's CapabilityStatement named one (as the served
 * value is computed, src/db/effective-fields.ts), else as the list's read recorded it.
 */
export function readEntrySource(sqlite: Database, id: string): Omit<SourceRecord, "environment"> | null {
  const entry = sqlite
    .query(
      `SELECT e.row_id, e.vendor_id, e.first_seen, e.url_evidence, e.url_published, e.version_evidence, e.state_evidence,
         COALESCE(p.metadata_body_id IS NOT NULL AND p.fhir_version != 'UNKNOWN', 0)
       FROM entries e LEFT JOIN probes p ON p.url = e.url WHERE e.id = ?`,
    )
    .values(id)[0] as EntryRow | undefined;
  if (entry === undefined) return null;
  const [rowId, vendorId, firstSeen, urlEvidence, urlPublished, versionEvidence, stateEvidence, probed] = entry;
  const lists = sqlite
    .query(
      `SELECT vl.id, vl.url, vl.published_url, vl.read_from, vl.last_scraped_at, vl.sha256, es.present, es.last_seen
       FROM entry_sources es JOIN vendor_lists vl ON vl.id = es.list_id WHERE es.entry_row_id = ?
       ORDER BY es.present DESC, CASE WHEN es.present = 1 THEN vl.last_scraped_at ELSE es.last_seen END DESC,
         vl.fhir_version IS NOT NULL DESC, vl.id`,
    )
    .values(rowId) as ListRow[];
  const chosen = lists[0];
  const present = lists.filter((l) => l[6] === 1);
  const lastSeen = present.length > 0 ? latest(present.map((l) => l[4])) : latest(lists.map((l) => l[7]));
  return {
    endpointId: id,
    vendorId,
    list:
      chosen === undefined
        ? null
        : {
            id: chosen[0],
            publishedAt: shown(chosen[2] ?? chosen[1]),
            readFrom: chosen[3] === null ? shown(chosen[1]) : parseReadFrom(chosen[3]),
            asOf: chosen[4],
            sha256: chosen[5],
          },
    firstSeen,
    lastSeen,
    fields: {
      url: urlEvidence,
      urlAsPublished: urlPublished,
      fhirVersion: probed === 1 ? "probe" : versionEvidence,
      state: stateEvidence,
    },
  };
}

/** The newest of ISO times (they sort as text), or null. */
function latest(times: (string | null)[]): string | null {
  let newest: string | null = null;
  for (const time of times) if (time !== null && (newest === null || time > newest)) newest = time;
  return newest;
}

/** vendor_lists.read_from: a URL, or the JSON object of a Lantern copy (src/pipeline/ingest/store.ts). */
function parseReadFrom(text: string): NonNullable<SourceRecord["list"]>["readFrom"] {
  return text.startsWith("{")
    ? (JSON.parse(text) as { repository: string; path: string; commit: string })
    : shown(text);
}

/**
 * A list's location as the API shows it: a URL as it is, a local file (a `file:` URL, as ingest
 * records it) by its name alone: where the server keeps its files is nobody's business.
 */
function shown(location: string): string {
  if (!location.startsWith("file:")) return location;
  const path = location.replace(/[?#].*$/, "");
  const name = path.slice(path.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
