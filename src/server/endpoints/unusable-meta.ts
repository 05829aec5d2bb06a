import type { DatasetSnapshot } from "../../directory/snapshot";
import type { Body } from "../http/compression";

const encoder = new TextEncoder();

/**
 * A by-id answer (`{"success":true,"data":{…}}`) of an unusable entry with what keeps it out of
 * the listings added as `"meta":{"unusable":{"reason":…,"detail":…}}` before the envelope's
 * closing brace; any other entry's answer unchanged (docs/api.md, "Unusable entries"). The
 * record itself stays the spec's.
 */
export function withUnusableMeta(snapshot: DatasetSnapshot, id: string, body: Body): Body {
  const unusable = snapshot.unusable(id);
  if (unusable === null) return body;
  const meta = `,"meta":${JSON.stringify({ unusable })}}`;
  if (typeof body === "string") return body.slice(0, -1) + meta;
  const tail = encoder.encode(meta);
  const out = new Uint8Array(body.length - 1 + tail.length);
  out.set(body.subarray(0, body.length - 1));
  out.set(tail, body.length - 1);
  return out;
}
