import type { CapabilitiesRecord, CapabilitiesShared } from "../../directory/snapshot";
import { HANDSHAKE_CHECK_IDS } from "../../model/capability-rules";
import type { Body } from "../http/compression";

const NULL = Buffer.from("null");
const BETWEEN = Buffer.from(',"smartConfiguration":');
const END = Buffer.from("}}");
const encoder = new TextEncoder();
/** Strict: a stored body that is not valid UTF-8 (or starts with a BOM) stays bytes. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const json = (value: string | null) => (value === null ? "null" : JSON.stringify(value));

/**
 * What answers share: the summary (up to its per-host `tls` member), the checks read from the
 * documents (before the URL's TLS checks), and the verdict and raw bodies after them.
 */
interface SharedParts {
  summary: string;
  checks: string;
  bodies: Body;
}

/** Bytes a part holds: its UTF-16 units count twice, whatever the engine stores. */
const weightOf = (part: Body) => (typeof part === "string" ? part.length * 2 : part.length);
const weightOfParts = (parts: SharedParts) =>
  parts.summary.length * 2 + parts.checks.length * 2 + weightOf(parts.bodies);

/**
 * Shared parts of capabilities answers (summary and both raw bodies), keyed by the pair of bodies
 * they come from, least recently used first out, bounded by count and bytes. Most URLs serve one
 * of a few statements per vendor release, so a few entries answer most ids.
 */
export class CapabilitiesCache {
  private readonly parts = new Map<string, SharedParts>();
  private total = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxEntries: number,
  ) {}

  /** Bytes held (strings counted at two bytes a unit). */
  get bytes() {
    return this.total;
  }

  get size() {
    return this.parts.size;
  }

  /** The part under `key`, built and kept on a miss (unless it alone exceeds the bound). */
  get(key: string, build: () => SharedParts): SharedParts {
    const found = this.parts.get(key);
    if (found !== undefined) {
      this.parts.delete(key);
      this.parts.set(key, found);
      return found;
    }
    const part = build();
    const weight = weightOfParts(part);
    if (weight > this.maxBytes) return part;
    while (this.parts.size > 0 && (this.parts.size >= this.maxEntries || this.total + weight > this.maxBytes)) {
      const [oldest, value] = this.parts.entries().next().value!;
      this.parts.delete(oldest);
      this.total -= weightOfParts(value);
    }
    this.parts.set(key, part);
    this.total += weight;
    return part;
  }
}

/**
 * The process-wide cache: 48 MB holds the shared parts of a few thousand distinct body pairs
 * (a 1M-entry dataset has a few hundred), well inside the server's RSS target.
 */
export const capabilitiesCache = new CapabilitiesCache(48 * 1024 * 1024, 8_192);

/** The envelope up to and including `probeStatus`, in the order of the response schema. */
const head = ({ endpointId, ownJson }: CapabilitiesRecord) =>
  `{"success":true,"data":{"endpointId":${json(endpointId)}${ownJson}`;

/**
 * The summary up to, not including, its per-host `tls` member: shared by every URL with the same
 * bodies, summary and stated version, facets included.
 */
function summaryPart({ summary: s, report: { facets } }: CapabilitiesShared): string {
  return (
    `,"summary":{"fhirVersion":${json(s.fhirVersion)},"softwareName":${json(s.softwareName)},` +
    `"softwareVersion":${json(s.softwareVersion)},"supportedResourceCount":${s.supportedResources.count},"supportedResources":${s.supportedResources.json},` +
    `"smartSupported":${s.smartSupported},"smartCapabilities":${s.smartCapabilities.json},"grantTypes":${s.grantTypes.json},` +
    `"usCore":${JSON.stringify(facets.usCore)},"bulkData":${JSON.stringify(facets.bulkData)},"smart":${JSON.stringify(facets.smart)},"access":${JSON.stringify(facets.access)},"payer":${JSON.stringify(facets.payer)}`
  );
}

/**
 * The summary's closing brace and the checks read from the documents: every check but the TLS
 * ones, which are the URL's own (its host's handshake, where /metadata answered) and come last.
 */
function checksPart({ report: { checks } }: CapabilitiesShared): string {
  const items = JSON.stringify(checks.filter((check) => !HANDSHAKE_CHECK_IDS.has(check.id))).slice(1, -1);
  return `},"checks":[${items}${items === "" ? "" : ","}`;
}

/**
 * Everything after the checks: the verdict, the two raw bodies, then the closing braces. As text
 * when the bytes are valid UTF-8 (the probe stores what it decoded, so they are): an answer is
 * then one concatenation, which the Response encodes back to exactly these bytes, without
 * allocating and copying a buffer per request. As bytes otherwise.
 */
function bodiesPart({
  report: { verdict },
  capabilityStatementBytes,
  smartConfigurationBytes,
}: CapabilitiesShared): Body {
  const start = encoder.encode(`],"verdict":${JSON.stringify(verdict)},"capabilityStatement":`);
  const statement = capabilityStatementBytes ?? NULL;
  const smart = smartConfigurationBytes ?? NULL;
  const part = new Uint8Array(start.length + statement.length + BETWEEN.length + smart.length + END.length);
  let at = 0;
  for (const piece of [start, statement, BETWEEN, smart, END]) {
    part.set(piece, at);
    at += piece.length;
  }
  try {
    return utf8.decode(part);
  } catch {
    return part;
  }
}

/**
 * The capabilities envelope: the entry's own fields; the summary, checks, verdict and raw bodies
 * it shares with every URL whose probe kept the same two bodies and summary (from `cache`, built
 * on a miss), with its host's `tls` and its TLS checks spliced in. The CapabilityStatement and
 * SMART configuration are the exact bytes the server sent (stored only when they parsed as a JSON
 * object), so clients get them raw and unmodified, key order and number formatting included.
 * They are never parsed on the way.
 */
export function capabilitiesBody(record: CapabilitiesRecord, cache: CapabilitiesCache = capabilitiesCache): Body {
  const { summary, checks, bodies } = cache.get(record.sharedKey, () => {
    const shared = record.shared();
    return { summary: summaryPart(shared), checks: checksPart(shared), bodies: bodiesPart(shared) };
  });
  const text = head(record) + summary + record.tlsJson + checks + record.tlsChecksJson;
  if (typeof bodies === "string") return text + bodies;
  // Every byte up to `at + bodies.length` is written below, so the buffer need not be zeroed.
  const body = Buffer.allocUnsafe(text.length * 3 + bodies.length);
  const at = encoder.encodeInto(text, body).written;
  body.set(bodies, at);
  return body.subarray(0, at + bodies.length) as Uint8Array<ArrayBuffer>;
}
