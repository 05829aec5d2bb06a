import type { CapabilitiesRecord } from "../directory/snapshot";

const NULL = Buffer.from("null");
const BETWEEN = Buffer.from(',"smartConfiguration":');
const END = Buffer.from("}}");
const encoder = new TextEncoder();

const json = (value: string | null) => (value === null ? "null" : JSON.stringify(value));

/** The envelope up to the CapabilityStatement, in the order of the response schema. */
function head({ endpointId, url, vendorName, lastProbed, probeStatus, summary: s }: CapabilitiesRecord): string {
  return (
    `{"success":true,"data":{"endpointId":${json(endpointId)},"url":${json(url)},"vendorName":${json(vendorName)},"lastProbed":${json(lastProbed)},` +
    `"probeStatus":${json(probeStatus)},"summary":{"fhirVersion":${json(s.fhirVersion)},"softwareName":${json(s.softwareName)},` +
    `"softwareVersion":${json(s.softwareVersion)},"supportedResourceCount":${s.supportedResources.count},"supportedResources":${s.supportedResources.json},` +
    `"smartSupported":${s.smartSupported},"smartCapabilities":${s.smartCapabilities.json},"grantTypes":${s.grantTypes.json}},"capabilityStatement":`
  );
}

/**
 * The capabilities envelope, with the CapabilityStatement and SMART configuration spliced in as
 * the exact bytes the server sent (stored only when they parsed as a JSON object), so clients
 * get them raw and unmodified, key order and number formatting included. They are never decoded
 * into strings on the way.
 */
export function capabilitiesBody(record: CapabilitiesRecord): Uint8Array<ArrayBuffer> {
  const text = head(record);
  const statement = record.capabilityStatementBytes ?? NULL;
  const smart = record.smartConfigurationBytes ?? NULL;
  const body = new Uint8Array(text.length * 3 + statement.length + BETWEEN.length + smart.length + END.length);
  let at = encoder.encodeInto(text, body).written;
  for (const part of [statement, BETWEEN, smart, END]) {
    body.set(part, at);
    at += part.length;
  }
  return body.subarray(0, at);
}
