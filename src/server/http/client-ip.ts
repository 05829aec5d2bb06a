import { isIP } from "node:net";
import type { Server } from "bun";
import type { TrustProxy } from "../../config";

/**
 * The longest text read as an address: an IPv6 address in full with an embedded IPv4 tail, a
 * zone and a port, in brackets, is under 70 characters. Anything longer is not an address and
 * is not looked at further, so a header of any size costs the same.
 */
const LONGEST_ADDRESS = 80;
const PORT = /^\d{1,5}$/;

/**
 * The client address rate limits count against, in canonical form (`canonicalIp`); forwarded
 * headers only when TRUST_PROXY says so. `true`: the LAST X-Forwarded-For hop, the address our
 * proxy appended (every earlier hop is whatever the client wrote). `fly`: Fly-Client-IP, which
 * Fly's proxy sets. A header value that is not one valid address is ignored: the socket
 * address counts instead. `request` is the one the server received (its socket is known).
 */
export function clientIp(request: Request, server: Server<unknown> | null, trustProxy: TrustProxy): string {
  if (trustProxy === "fly") {
    const fly = request.headers.get("fly-client-ip");
    const ip = fly === null ? null : canonicalIp(fly);
    if (ip !== null) return ip;
  } else if (trustProxy === "true") {
    const forwarded = request.headers.get("x-forwarded-for");
    const ip = forwarded === null ? null : canonicalIp(forwarded.slice(forwarded.lastIndexOf(",") + 1));
    if (ip !== null) return ip;
  }
  const socket = server?.requestIP(request)?.address;
  if (socket === undefined) return "unknown";
  return canonicalIp(socket) ?? socket;
}

/**
 * One address as a header or a socket writes it, in the one form that names it, or null when
 * the text is not a valid address (`node:net` `isIP`). A port is dropped (`1.2.3.4:1234`,
 * `[::1]:80`), as is an IPv6 zone (`%eth0`); an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is
 * the IPv4 address; IPv6 is lowercased and compressed as RFC 5952 says.
 */
function canonicalIp(text: string): string | null {
  if (text.length > LONGEST_ADDRESS) return null;
  let address = text.trim();
  if (address.startsWith("[")) {
    const close = address.indexOf("]");
    const rest = address.slice(close + 1);
    if (close < 0 || (rest !== "" && !(rest.startsWith(":") && PORT.test(rest.slice(1))))) return null;
    address = address.slice(1, close);
  } else {
    const colon = address.indexOf(":");
    // One colon: an IPv4 address and its port (IPv6 has at least two colons).
    if (colon > 0 && address.indexOf(":", colon + 1) < 0) {
      if (!PORT.test(address.slice(colon + 1))) return null;
      address = address.slice(0, colon);
    }
  }
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return null;
  const groups = ipv6Groups(address);
  if (groups === null) return null;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff)
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  return compressed(groups);
}

/**
 * What a client's requests are counted as: an IPv4 address itself; an IPv6 address's /64
 * (`2001:db8:1:2::/64`), the block a single subscriber or host is given, so rotating the low
 * 64 bits is not a new client. Anything else (`unknown`) as it is. `prefix` 48: the /48 (a
 * site's whole allocation, `2001:db8:1::/48`), for what one client may hold at a time.
 */
export function clientGroup(ip: string, prefix: 48 | 64 = 64): string {
  if (!ip.includes(":")) return ip;
  const groups = ipv6Groups(ip);
  if (groups === null) return ip;
  const kept = prefix / 16;
  return `${compressed([...groups.slice(0, kept), ...new Array<number>(8 - kept).fill(0)])}/${prefix}`;
}

/** The eight 16-bit groups of a valid IPv6 address (an embedded IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const octets = text
      .slice(lastColon + 1)
      .split(".")
      .map(Number);
    tail.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
    // Drop the tail and its colon, unless the colon belongs to a `::`.
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith("::")) text = text.slice(0, -1);
  }
  const [head = "", rest] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  const right = [...(rest === undefined ? [] : parse(rest)), ...tail];
  if (rest === undefined) {
    const all = [...left, ...right];
    return all.length === 8 ? all : null;
  }
  const missing = 8 - left.length - right.length;
  if (missing < 0) return null;
  return [...left, ...new Array<number>(missing).fill(0), ...right];
}

/** RFC 5952: lowercase hex without leading zeros, the longest run of two or more zero groups as `::`. */
function compressed(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength) {
      bestStart = i;
      bestLength = end - i;
    }
    i = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
