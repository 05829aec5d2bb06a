import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { classifyFetchError } from "./http-errors";
import { blockedAddressReason } from "./ip";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardOptions {
  /** Allow loopback, private, link-local... addresses (tests, offline builds). */
  allowPrivate: boolean;
  /** Exact addresses allowed even with the guard on (tests of the guard itself). */
  allowAddresses?: readonly string[];
  /** Hostname resolution; defaults to node:dns lookup with all addresses. */
  lookup?: LookupFn;
}

/** Refused by the guard: no connection is made. */
export class BlockedError extends Error {
  readonly kind = "blocked" as const;
}
/** Not an http(s) URL. */
export class InvalidUrlError extends Error {
  readonly kind = "invalid_url" as const;
}
/** The hostname did not resolve. */
export class DnsError extends Error {
  readonly kind = "dns" as const;
}

const defaultLookup: LookupFn = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** `[::1]` → `::1`. */
function bareHostname(url: URL): string {
  const h = url.hostname;
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

/**
 * Resolves a URL's host once and checks every address it resolves to. Returns the addresses
 * to connect to (IPv4 first); the caller connects to one of these, never to the name again,
 * so a second DNS answer cannot slip a private address past the check.
 */
export async function resolveAndCheck(url: URL, options: GuardOptions, cache?: DnsCache): Promise<ResolvedAddress[]> {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InvalidUrlError(`unsupported scheme ${url.protocol}`);
  const host = bareHostname(url);
  if (host === "") throw new InvalidUrlError("empty host");
  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
  else {
    const lookup = options.lookup ?? defaultLookup;
    try {
      const name = host.replace(/\.$/, "");
      addresses = await (cache ? cache.resolve(name, lookup) : lookup(name));
    } catch (error) {
      throw new DnsError(`DNS lookup of ${host} failed: ${(error as Error).message}`);
    }
    if (addresses.length === 0) throw new DnsError(`DNS lookup of ${host} returned no address`);
  }
  if (!options.allowPrivate) {
    for (const a of addresses) {
      if (options.allowAddresses?.includes(a.address)) continue;
      const reason = blockedAddressReason(a.address);
      if (reason) throw new BlockedError(`${host} resolves to ${a.address}: ${reason}`);
    }
  }
  return [...addresses].sort((a, b) => a.family - b.family);
}

export interface CheckedRequest {
  /** Request headers; `Host` is set from the URL. */
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Extra trusted CA certificates (PEM). */
  ca?: string | string[];
}

/**
 * GETs `target` from an address `resolveAndCheck` returned, never from the name again: the
 * URL's host is replaced by the address, `Host` carries the name, and for https the TLS server
 * name (SNI and certificate check) stays the name. Redirects are returned, not followed (each hop
 * must go through the guard again). A refused connection tries the next address. Credentials
 * embedded in the URL are never sent.
 */
export async function fetchCheckedAddress(
  target: URL,
  addresses: ResolvedAddress[],
  request: CheckedRequest,
): Promise<Response> {
  const hostname = bareHostname(target);
  const nameIsIp = isIP(hostname) !== 0;
  let lastError: unknown;
  for (const { address, family } of addresses.slice(0, 2)) {
    const direct = new URL(target.href);
    direct.hostname = family === 6 ? `[${address}]` : address;
    direct.username = "";
    direct.password = "";
    const init: BunFetchRequestInit = {
      method: "GET",
      redirect: "manual",
      signal: request.signal,
      headers: { ...request.headers, Host: target.host },
    };
    if (target.protocol === "https:") {
      init.tls = {};
      if (!nameIsIp) init.tls.serverName = hostname.replace(/\.$/, "");
      if (request.ca) init.tls.ca = request.ca;
    }
    try {
      return await fetch(direct, init);
    } catch (error) {
      lastError = error;
      const kind = classifyFetchError(error);
      if (request.signal.aborted || (kind !== "refused" && kind !== "network")) throw error;
    }
  }
  throw lastError;
}

/** Per-run DNS cache: one lookup per hostname, shared by concurrent requests, kept for ttlMs. */
export class DnsCache {
  private readonly entries = new Map<string, { expires: number; value: Promise<ResolvedAddress[]> }>();
  constructor(private readonly ttlMs = 60_000) {}

  resolve(hostname: string, lookup: LookupFn): Promise<ResolvedAddress[]> {
    const now = Date.now();
    const hit = this.entries.get(hostname);
    if (hit && hit.expires > now) return hit.value;
    const value = lookup(hostname);
    this.entries.set(hostname, { expires: now + this.ttlMs, value });
    if (this.entries.size > 10_000) this.prune(now);
    return value;
  }

  private prune(now: number) {
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
  }
}
