import type { CapabilitiesRecord } from "../directory/snapshot";

const NULL = Buffer.from("null");
const BETWEEN = Buffer.from(',"smartConfiguration":');
const END = Buffer.from("}}");

/**
 * The capabilities envelope, with the CapabilityStatement and SMART configuration spliced in as
 * the exact bytes the server sent (stored only when they parsed as a JSON object), so clients
 * get them raw and unmodified, key order and number formatting included. They are never decoded
 * into strings on the way.
 */
export function capabilitiesBody(record: CapabilitiesRecord): Uint8Array<ArrayBuffer> {
  const { capabilityStatementBytes, smartConfigurationBytes, ...fields } = record;
  const head = Buffer.from(`{"success":true,"data":${JSON.stringify(fields).slice(0, -1)},"capabilityStatement":`);
  const parts = [head, capabilityStatementBytes ?? NULL, BETWEEN, smartConfigurationBytes ?? NULL, END];
  const body = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body;
}
