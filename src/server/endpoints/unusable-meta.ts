import type { DatasetSnapshot } from "../../directory/snapshot";
import type { EnvironmentMatch } from "../../model/environment";
import type { Body } from "../http/compression";

const encoder = new TextEncoder();

/**
 * A by-id answer (`{"success":true,"data":{…}}`) with the entry's `meta` added before the
 * envelope's closing brace: for an unusable entry what keeps it out of the listings
 * (`"unusable":{"reason":…,"detail":…}`, docs/api.md "Unusable entries"), for a non-production
 * entry the environment rule that makes it so (`"environment":{"rule":…,"code":…,"found":…}`,
 * docs/api.md "Environment"); any other entry's answer unchanged. The record itself stays the
 * spec's. `environment` is the entry's rule when the caller has already looked it up.
 */
export function withUnusableMeta(
  snapshot: DatasetSnapshot,
  id: string,
  body: Body,
  environment: EnvironmentMatch | null = snapshot.environment(id),
): Body {
  const unusable = snapshot.unusable(id);
  if (unusable === null && environment === null) return body;
  const meta = `,"meta":${JSON.stringify({ ...(environment && { environment }), ...(unusable && { unusable }) })}}`;
  if (typeof body === "string") return body.slice(0, -1) + meta;
  const tail = encoder.encode(meta);
  const out = new Uint8Array(body.length - 1 + tail.length);
  out.set(body.subarray(0, body.length - 1));
  out.set(tail, body.length - 1);
  return out;
}
