/**
 * SSRF guard forms that test/pipeline/probe/guard.test.ts and test/pipeline/probe/failures.test.ts do not cover
 * yet: names that resolve only to private addresses (whole probes, not just the check),
 * redirects to such names, to IPv4-mapped loopback and to decimal/octal IPv4 forms, and more
 * numeric spellings of private addresses.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { fetchAndParseList } from "../../../src/pipeline/ingest/fetch-list";
import type { ListDefinition } from "../../../src/pipeline/ingest/types";
import { probeUrl } from "../../../src/pipeline/probe";
import { BlockedError, type LookupFn, resolveAndCheck } from "../../../src/pipeline/probe/guard";
import { serve } from "./helpers";

const CAPABILITY = '{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1"}';
const SMART = '{"authorization_endpoint":"https://a.example/authorize","token_endpoint":"https://a.example/token"}';

/** A fake DNS: each test name resolves to the given addresses, anything else fails. */
function fakeDns(table: Record<string, string[]>): LookupFn & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (name: string) => {
    asked.push(name);
    const addresses = table[name];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(lookup, { asked });
}

describe("names that resolve to private addresses are refused before any connection", () => {
  // A real FHIR server on loopback: if the guard let a name through, this server would answer.
  const target = serve({ "/r4/metadata": CAPABILITY, "/r4/.well-known/smart-configuration": SMART });
  afterAll(() => target.stop());

  test.each([
    ["loopback", ["127.0.0.1"]],
    ["IPv6 loopback", ["::1"]],
    ["IPv4-mapped loopback", ["::ffff:127.0.0.1"]],
    ["private", ["10.20.30.40"]],
    ["cloud metadata", ["169.254.169.254"]],
    ["public first, loopback second", ["93.184.216.34", "127.0.0.1"]],
    ["IPv6 unique local", ["fd00::5"]],
  ])("a name resolving to %s", async (_label, addresses) => {
    const lookup = fakeDns({ "fhir.hospital.test": addresses });
    const result = await probeUrl(`http://fhir.hospital.test:${target.port}/r4`, {
      allowPrivate: false,
      lookup,
      timeoutMs: 2000,
    });
    expect(result.probeStatus).toBe("failed");
    expect(result.metadata.errorKind).toBe("blocked");
    expect(result.smart.errorKind).toBe("blocked");
    expect(result.entryStatus).toBeNull();
    expect(lookup.asked).toContain("fhir.hospital.test");
    expect(target.requests).toHaveLength(0);
  });

  test("control: the same server is reached when the guard is off", async () => {
    const lookup = fakeDns({ "fhir.hospital.test": ["127.0.0.1"] });
    const result = await probeUrl(`http://fhir.hospital.test:${target.port}/r4`, {
      allowPrivate: true,
      lookup,
      timeoutMs: 2000,
    });
    expect(result.metadata.ok).toBe(true);
    target.requests.length = 0;
  });
});

const PRIVATE_HOPS: [string, string][] = [
  ["a name resolving to 10.0.0.5", "http://internal.corp.test/"],
  ["a name resolving to the metadata address", "http://metadata.corp.test/latest/meta-data/"],
  ["a name resolving to ::1", "http://v6only.corp.test:PORT/r4/metadata"],
  ["a name resolving to ::ffff:127.0.0.2", "http://mapped.corp.test:PORT/r4/metadata"],
  ["IPv4-mapped loopback [::ffff:127.0.0.1]", "http://[::ffff:127.0.0.1]:PORT/r4/metadata"],
  ["[0:0:0:0:0:0:0:1]", "http://[0:0:0:0:0:0:0:1]:PORT/r4/metadata"],
  ["decimal 2130706434 (127.0.0.2)", "http://2130706434:PORT/r4/metadata"],
  ["octal 0177.0.0.2", "http://0177.0.0.2:PORT/r4/metadata"],
  ["decimal 2852039166 (169.254.169.254)", "http://2852039166/latest/meta-data/"],
  ["octal 012.0.0.1 (10.0.0.1)", "http://012.0.0.1/"],
  ["a relative redirect to a protocol-relative private host", "//[::1]:PORT/r4/metadata"],
];
const PRIVATE_DNS = {
  "fhir.public.test": ["127.0.0.1"],
  "internal.corp.test": ["10.0.0.5"],
  "metadata.corp.test": ["169.254.169.254"],
  "v6only.corp.test": ["::1"],
  "mapped.corp.test": ["::ffff:127.0.0.2"],
};

describe("redirects to private destinations are refused at the hop", () => {
  // The first hop is "public": fhir.public.test resolves to the test server, whose exact address
  // is let through. Every redirect target below must be refused by the guard itself ("blocked"),
  // not merely fail to connect.
  let redirectTo = "";
  const hops = serve({}, (request) => {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/start/")) return new Response(null, { status: 302, headers: { location: redirectTo } });
    return new Response(CAPABILITY, { headers: { "content-type": "application/fhir+json" } });
  });
  afterAll(() => hops.stop());
  const dns = PRIVATE_DNS;

  test.each(PRIVATE_HOPS)("%s", async (_label, location) => {
    redirectTo = location.replaceAll("PORT", String(hops.port));
    hops.requests.length = 0;
    const lookup = fakeDns(dns);
    const result = await probeUrl(`http://fhir.public.test:${hops.port}/start/x`, {
      allowPrivate: false,
      allowAddresses: ["127.0.0.1"],
      lookup,
      timeoutMs: 2000,
    });
    expect(result.metadata.errorKind).toBe("blocked");
    expect(result.metadata.redirects).toBe(1);
    expect(result.probeStatus).toBe("failed");
    expect(result.entryStatus).toBeNull();
    // Only the first hop reached the server; the redirect target never did.
    expect(hops.requests.map((r) => r.path).every((p) => p.startsWith("/start/"))).toBe(true);
  });

  test("control: a redirect to an allowed destination is followed", async () => {
    redirectTo = `http://fhir.public.test:${hops.port}/r4/metadata`;
    const result = await probeUrl(`http://fhir.public.test:${hops.port}/start/x`, {
      allowPrivate: false,
      allowAddresses: ["127.0.0.1"],
      lookup: fakeDns(dns),
      timeoutMs: 2000,
    });
    expect(result.metadata.ok).toBe(true);
    expect(result.metadata.redirects).toBe(1);
  });
});

describe("vendor list fetching (ingest) refuses the same destinations, as redirects and as next links", () => {
  let redirectTo = "";
  const lists = serve({}, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/redirect") return new Response(null, { status: 302, headers: { location: redirectTo } });
    const next = path === "/paged" ? [{ relation: "next", url: redirectTo }] : [];
    return new Response(JSON.stringify({ resourceType: "Bundle", type: "searchset", link: next, entry: [] }), {
      headers: { "content-type": "application/fhir+json" },
    });
  });
  afterAll(() => lists.stop());
  const list: ListDefinition = { id: "l", url: "", format: "fhir-bundle", audience: null, fhirVersion: null };
  const options = () => ({
    timeoutMs: 2000,
    maxBytes: 1_000_000,
    allowPrivate: false,
    allowAddresses: ["127.0.0.1"],
    lookup: fakeDns(PRIVATE_DNS),
  });

  test.each(PRIVATE_HOPS)("%s", async (_label, location) => {
    redirectTo = location.replaceAll("PORT", String(lists.port));
    for (const start of ["/redirect", "/paged"]) {
      lists.requests.length = 0;
      const attempt = fetchAndParseList(list, `http://fhir.public.test:${lists.port}${start}`, options());
      await expect(attempt).rejects.toThrow(/private-address guard/);
      // Only the first request reached the server; the private destination never did.
      expect(lists.requests.map((r) => r.path)).toEqual([start]);
    }
  });

  test("control: an allowed destination is followed both ways", async () => {
    redirectTo = `http://fhir.public.test:${lists.port}/last`;
    for (const start of ["/redirect", "/paged"]) {
      lists.requests.length = 0;
      await fetchAndParseList(list, `http://fhir.public.test:${lists.port}${start}`, options());
      expect(lists.requests.map((r) => r.path)).toEqual([start, "/last"]);
    }
  });
});

describe("more numeric spellings of private addresses", () => {
  test.each([
    "http://017700000001/", // one octal number
    "http://0x7f000001/", // one hex number
    "http://127.000.000.001/", // zero-padded octets
    "http://0x7f.0.0.1/",
    "http://0177.1/",
    "http://3232235777/", // 192.168.1.1
    "http://0300.0250.0001.0001/", // 192.168.1.1 in octal
    "http://0xa9.0xfe.0xa9.0xfe/", // 169.254.169.254 in hex
    "http://167772161/", // 10.0.0.1
    "http://[::127.0.0.1]/", // IPv4-compatible loopback
    "http://[::ffff:127.0.0.2]/", // mapped, dotted
    "http://[0000:0000:0000:0000:0000:ffff:7f00:0001]/",
    "http://[::ffff:a9fe:a9fe]/", // mapped 169.254.169.254
    "http://[64:ff9b::a00:1]/", // NAT64 of 10.0.0.1
  ])("%s is refused", async (url) => {
    await expect(resolveAndCheck(new URL(url), { allowPrivate: false })).rejects.toBeInstanceOf(BlockedError);
  });
});
