import type { Server } from "bun";
import type { Config } from "../../config";
import type { ApiKeyLookup } from "../../db/api-key-lookup";
import { Lru } from "../../directory/lru";
import { ApiError } from "../http/api-error";
import { clientGroup, clientIp } from "../http/client-ip";

export interface ClientIdentity {
  /**
   * What the quota is counted against: the key id, or the client address (an IPv6 client's
   * /64). Always short: an address is in canonical form, whatever a header held.
   */
  client: string;
  limit: number;
  /** A short non-reversible tag for logs: never the key or the full address. */
  tag: string;
  /** An unknown or revoked key was presented: counted as the anonymous client, then refused with 401. */
  invalidKey?: ApiError;
}

function presentedKey(request: Request): string | null {
  const header = request.headers.get("x-api-key");
  if (header !== null) return header.trim();
  const authorization = request.headers.get("authorization");
  if (authorization === null) return null;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match ? match[1]!.trim() : "";
}

// Salted per process: a log reader cannot recover an address by hashing all of them.
const SALT = crypto.getRandomValues(new Uint8Array(16));
const tags = new Lru<string>(10_000);
const tagOf = (value: string) =>
  tags.getOrCompute(value, () => new Bun.CryptoHasher("sha256").update(SALT).update(value).digest("hex").slice(0, 12));

/**
 * A valid API key makes the client the key, with its own limit. Otherwise the client address
 * (an IPv6 address's /64: see `clientGroup`), with the anonymous limit; an unknown or revoked
 * key is counted there too (guessing keys is no lane around the quota) and then refused with
 * 401 (a typo must not fall back to the anonymous quota silently).
 */
export function identifyClient(
  request: Request,
  server: Server<unknown> | null,
  config: Config,
  keys: ApiKeyLookup,
): ClientIdentity {
  const key = presentedKey(request);
  let invalidKey: ApiError | undefined;
  if (key !== null) {
    const found = key === "" ? null : keys.find(key);
    if (found)
      return {
        client: `key:${found.id}`,
        limit: found.rateLimit ?? config.rateLimit.maxWithKey,
        tag: `key:${found.id}`,
      };
    invalidKey = new ApiError(401, "INVALID_API_KEY", "The API key is unknown or revoked; send a valid key or none");
  }
  const ip = clientGroup(clientIp(request, server, config.trustProxy));
  const anonymous: ClientIdentity = { client: `ip:${ip}`, limit: config.rateLimit.max, tag: `ip:${tagOf(ip)}` };
  if (invalidKey) anonymous.invalidKey = invalidKey;
  return anonymous;
}
