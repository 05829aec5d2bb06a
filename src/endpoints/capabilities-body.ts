import type { CapabilitiesRecord } from "../directory/snapshot";

/**
 * The capabilities envelope, with the CapabilityStatement and SMART configuration spliced in as
 * the exact text the server sent (stored only when it parsed as a JSON object), so clients get
 * them raw and unmodified, key order and number formatting included.
 */
export function capabilitiesBody(record: CapabilitiesRecord): string {
  const { capabilityStatementText, smartConfigurationText, ...fields } = record;
  const head = JSON.stringify(fields);
  return `{"success":true,"data":${head.slice(0, -1)},"capabilityStatement":${capabilityStatementText ?? "null"},"smartConfiguration":${smartConfigurationText ?? "null"}}}`;
}
