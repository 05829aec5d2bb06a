import { isIP } from "node:net";

/**
 * Classifies IP addresses for the SSRF guard. Returns why an address must not be contacted
 * from a public prober, or null when it is a public unicast address.
 *
 * The ranges are ipaddr.js's special ranges (`IPv4.SpecialRanges`, `IPv6.SpecialRanges`, v2.3),
 * in its order: an address in any of them is refused, as ipaddr.js calls none of them unicast.
 * Three kinds are judged by the IPv4 address they carry instead (refused when that one is):
 * IPv4-mapped `::ffff:0:0/96` (what ipaddr.js's `process()` does), the deprecated
 * IPv4-compatible `::/96`, and the well-known NAT64 prefix `64:ff9b::/96` (behind DNS64, every
 * IPv4-only server resolves to it). test/pipeline/probe/guard.test.ts holds the table.
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

/** ipaddr.js `IPv4.SpecialRanges`: [base, prefix length, what it is]. */
const V4_BLOCKS: [string, number, string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["255.255.255.255", 32, "broadcast"],
  ["224.0.0.0", 4, "multicast"],
  ["169.254.0.0", 16, "link-local"],
  ["127.0.0.0", 8, "loopback"],
  ["100.64.0.0", 10, "CGNAT"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "reserved (6to4 relay anycast)"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["240.0.0.0", 4, "reserved"],
  ["192.175.48.0", 24, "AS112"],
  ["192.31.196.0", 24, "AS112"],
  ["192.52.193.0", 24, "AMT"],
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

/** The IPv4 address in groups `at` and `at + 1`, XORed with `mask` (Teredo obfuscates its client's). */
function embeddedV4(groups: number[], at: number, mask = 0): number {
  return (((groups[at] ?? 0) * 65536 + (groups[at + 1] ?? 0)) ^ mask) >>> 0;
}

function inV6(groups: number[], base: readonly number[], bits: number): boolean {
  for (let i = 0, left = bits; left > 0; i++, left -= 16) {
    const shift = Math.max(0, 16 - left);
    if (groups[i]! >> shift !== base[i]! >> shift) return false;
  }
  return true;
}

interface V6Range {
  base: readonly number[];
  bits: number;
  name: string;
  /** Where an IPv4 address sits in it (groups), judged instead of refusing the range outright. */
  judge?: number;
  /** Where IPv4 addresses sit in it, named in the reason (the range is refused anyway). */
  carries?: readonly { at: number; mask?: number }[];
}

/**
 * ipaddr.js `IPv6.SpecialRanges` in its order, plus IPv4-compatible `::/96` after `::` and `::1`.
 * Teredo (inside `2001::/23`, listed first so that the reason names it) carries its server's IPv4
 * address in groups 2–3 and its client's, inverted, in groups 6–7.
 */
const V6_BLOCKS: V6Range[] = [
  { base: [0, 0, 0, 0, 0, 0, 0, 0], bits: 128, name: "unspecified" },
  { base: [0xfe80, 0, 0, 0, 0, 0, 0, 0], bits: 10, name: "link-local" },
  { base: [0xff00, 0, 0, 0, 0, 0, 0, 0], bits: 8, name: "multicast" },
  { base: [0, 0, 0, 0, 0, 0, 0, 1], bits: 128, name: "loopback" },
  { base: [0xfc00, 0, 0, 0, 0, 0, 0, 0], bits: 7, name: "private (unique local)" },
  { base: [0, 0, 0, 0, 0, 0xffff, 0, 0], bits: 96, name: "IPv4-mapped", judge: 6 },
  { base: [0, 0, 0, 0, 0, 0, 0, 0], bits: 96, name: "IPv4-compatible", judge: 6 },
  { base: [0xfec0, 0, 0, 0, 0, 0, 0, 0], bits: 10, name: "site-local" },
  { base: [0x100, 0, 0, 0, 0, 0, 0, 0], bits: 64, name: "discard-only" },
  { base: [0, 0, 0, 0, 0xffff, 0, 0, 0], bits: 96, name: "IPv4-translated (SIIT)", carries: [{ at: 6 }] },
  { base: [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], bits: 96, name: "NAT64", judge: 6 },
  { base: [0x64, 0xff9b, 1, 0, 0, 0, 0, 0], bits: 48, name: "local-use NAT64", carries: [{ at: 6 }] },
  { base: [0x2002, 0, 0, 0, 0, 0, 0, 0], bits: 16, name: "6to4", carries: [{ at: 1 }] },
  { base: [0x2001, 0, 0, 0, 0, 0, 0, 0], bits: 32, name: "Teredo", carries: [{ at: 2 }, { at: 6, mask: 0xffffffff }] },
  { base: [0x2001, 2, 0, 0, 0, 0, 0, 0], bits: 48, name: "benchmarking" },
  { base: [0x2001, 3, 0, 0, 0, 0, 0, 0], bits: 32, name: "AMT" },
  { base: [0x2001, 4, 0x112, 0, 0, 0, 0, 0], bits: 48, name: "AS112" },
  { base: [0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], bits: 48, name: "AS112" },
  { base: [0x2001, 0x10, 0, 0, 0, 0, 0, 0], bits: 28, name: "deprecated ORCHID" },
  { base: [0x2001, 0x20, 0, 0, 0, 0, 0, 0], bits: 28, name: "ORCHIDv2" },
  { base: [0x2001, 0x30, 0, 0, 0, 0, 0, 0], bits: 28, name: "drone remote ID" },
  { base: [0x5f00, 0, 0, 0, 0, 0, 0, 0], bits: 16, name: "segment routing" },
  { base: [0x2001, 0, 0, 0, 0, 0, 0, 0], bits: 23, name: "reserved (IETF protocol assignments)" },
  { base: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], bits: 32, name: "documentation" },
  { base: [0x3fff, 0, 0, 0, 0, 0, 0, 0], bits: 20, name: "documentation" },
];

function blockedV6(g: number[]): string | null {
  for (const range of V6_BLOCKS) {
    if (!inV6(g, range.base, range.bits)) continue;
    if (range.judge !== undefined) {
      const reason = blockedV4(embeddedV4(g, range.judge));
      return reason ? `${range.name} ${reason}` : null;
    }
    const carried = (range.carries ?? []).map(({ at, mask }) => blockedV4(embeddedV4(g, at, mask))).find(Boolean);
    return carried ? `${range.name} ${carried}` : `${range.name} IPv6 address`;
  }
  return null;
}
