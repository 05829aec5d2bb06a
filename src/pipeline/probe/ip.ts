import { isIP } from "node:net";

/**
 * Classifies IP addresses for the SSRF guard. Returns why an address must not be contacted
 * from a public prober, or null when it is a public unicast address.
 */
export function blockedAddressReason(address: string): string | null {
  const ip = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(ip);
  if (family === 4) return blockedV4(parseV4(ip)!);
  if (family === 6) {
    const groups = parseV6(ip);
    return groups ? blockedV6(groups) : "unparseable IPv6 address";
  }
  return "not an IP address";
}

/** Dotted-quad IPv4 (the form DNS and WHATWG URL produce) to a 32-bit unsigned number. */
function parseV4(ip: string): number | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

function inV4(value: number, base: string, bits: number): boolean {
  const b = parseV4(base)!;
  const size = 2 ** (32 - bits);
  return Math.floor(value / size) === Math.floor(b / size);
}

const V4_BLOCKS: [string, number, string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "CGNAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "documentation"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

function blockedV4(value: number): string | null {
  for (const [base, bits, reason] of V4_BLOCKS) if (inV4(value, base, bits)) return `${reason} IPv4 address`;
  return null;
}

/** Any textual IPv6 address (with :: and an optional dotted IPv4 tail) to eight 16-bit groups. */
function parseV6(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    text = text.slice(0, lastColon + 1);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const toGroups = (s: string) =>
    s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const head = toGroups(halves[0] ?? "");
  const rest = halves.length === 2 ? toGroups(halves[1] ?? "") : [];
  const known = head.length + rest.length + tail.length;
  if ([...head, ...rest].some(Number.isNaN)) return null;
  if (halves.length === 1 && known !== 8) return null;
  if (known > 8 || (halves.length === 2 && known === 8)) return null;
  const zeros = new Array<number>(8 - known).fill(0);
  return halves.length === 2 ? [...head, ...zeros, ...rest, ...tail] : [...head, ...tail];
}

function embeddedV4(groups: number[], at: number): number {
  return (groups[at] ?? 0) * 65536 + (groups[at + 1] ?? 0);
}

function blockedV6(g: number[]): string | null {
  const first = g[0] ?? 0;
  const allZeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (allZeroUpTo(8)) return "unspecified IPv6 address";
  if (allZeroUpTo(7) && g[7] === 1) return "loopback IPv6 address";
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible): judge the IPv4 address.
  if (allZeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) {
    const reason = blockedV4(embeddedV4(g, 6));
    return reason ? `IPv4-mapped ${reason}` : null;
  }
  // 64:ff9b::/96 (NAT64) embeds an IPv4 address in its last 32 bits.
  if (first === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const reason = blockedV4(embeddedV4(g, 6));
    return reason ? `NAT64 ${reason}` : null;
  }
  // 2002::/16 (6to4) embeds an IPv4 address in bits 16..47.
  if (first === 0x2002) {
    const reason = blockedV4(embeddedV4(g, 1));
    return reason ? `6to4 ${reason}` : null;
  }
  if ((first & 0xfe00) === 0xfc00) return "private (unique local) IPv6 address";
  if ((first & 0xffc0) === 0xfe80) return "link-local IPv6 address";
  if ((first & 0xffc0) === 0xfec0) return "site-local IPv6 address";
  if ((first & 0xff00) === 0xff00) return "multicast IPv6 address";
  if (first === 0x2001 && g[1] === 0x0db8) return "documentation IPv6 address";
  if (first === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "discard-only IPv6 address";
  return null;
}
