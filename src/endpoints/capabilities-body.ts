import type { CapabilitiesRecord, CapabilitiesShared } from "../directory/snapshot";

const NULL = Buffer.from("null");
const BETWEEN = Buffer.from(',"smartConfiguration":');
const END = Buffer.from("}}");
const encoder = new TextEncoder();

const json = (value: string | null) => (value === null ? "null" : JSON.stringify(value));

/**
 * Encoded shared parts of capabilities answers (summary and both raw bodies, as bytes), keyed by
 * the pair of bodies they come from, least recently used first out, bounded by count and bytes.
 * Most URLs serve one of a few statements per vendor release, so a few entries answer most ids.
 */
export class CapabilitiesCache {
  private readonly parts = new Map<string, Uint8Array<ArrayBuffer>>();
  private total = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxEntries: number,
  ) {}

  /** Bytes held (the sum of the parts' lengths). */
  get bytes() {
    return this.total;
  }

  get size() {
    return this.parts.size;
  }

  /** The part under `key`, built and kept on a miss (unless it alone exceeds the bound). */
  get(key: string, build: () => Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
    const found = this.parts.get(key);
    if (found !== undefined) {
      this.parts.delete(key);
      this.parts.set(key, found);
      return found;
    }
    const part = build();
    if (part.length > this.maxBytes) return part;
    while (this.parts.size > 0 && (this.parts.size >= this.maxEntries || this.total + part.length > this.maxBytes)) {
      const [oldest, value] = this.parts.entries().next().value!;
      this.parts.delete(oldest);
      this.total -= value.length;
    }
    this.parts.set(key, part);
    this.total += part.length;
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

/** Everything after `probeStatus`: the summary, then the two raw bodies, then the closing braces. */
function sharedPart({
  summary: s,
  capabilityStatementBytes,
  smartConfigurationBytes,
}: CapabilitiesShared): Uint8Array<ArrayBuffer> {
  const text =
    `,"summary":{"fhirVersion":${json(s.fhirVersion)},"softwareName":${json(s.softwareName)},` +
    `"softwareVersion":${json(s.softwareVersion)},"supportedResourceCount":${s.supportedResources.count},"supportedResources":${s.supportedResources.json},` +
    `"smartSupported":${s.smartSupported},"smartCapabilities":${s.smartCapabilities.json},"grantTypes":${s.grantTypes.json}},"capabilityStatement":`;
  const statement = capabilityStatementBytes ?? NULL;
  const smart = smartConfigurationBytes ?? NULL;
  const part = new Uint8Array(text.length * 3 + statement.length + BETWEEN.length + smart.length + END.length);
  let at = encoder.encodeInto(text, part).written;
  for (const piece of [statement, BETWEEN, smart, END]) {
    part.set(piece, at);
    at += piece.length;
  }
  return part.slice(0, at);
}

/**
 * The capabilities envelope: the entry's own fields, then the part it shares with every URL
 * that kept the same two bodies (from `cache`, built on a miss), in which the CapabilityStatement
 * and SMART configuration are the exact bytes the server sent (stored only when they parsed as
 * a JSON object), so clients get them raw and unmodified, key order and number formatting
 * included. They are never decoded into strings on the way. One copy of the shared part per answer.
 */
export function capabilitiesBody(
  record: CapabilitiesRecord,
  cache: CapabilitiesCache = capabilitiesCache,
): Uint8Array<ArrayBuffer> {
  const shared = cache.get(record.sharedKey, () => sharedPart(record.shared()));
  const text = head(record);
  // Every byte up to `at + shared.length` is written below, so the buffer need not be zeroed.
  const body = Buffer.allocUnsafe(text.length * 3 + shared.length);
  const at = encoder.encodeInto(text, body).written;
  body.set(shared, at);
  return body.subarray(0, at + shared.length) as Uint8Array<ArrayBuffer>;
}
