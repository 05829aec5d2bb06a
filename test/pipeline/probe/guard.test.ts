import { afterAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeUrl } from "../../../src/pipeline/probe";
import { BlockedError, DnsError, InvalidUrlError, resolveAndCheck } from "../../../src/pipeline/probe/guard";
import { blockedAddressReason } from "../../../src/pipeline/probe/ip";
import { serve } from "./helpers";

const guardOn = { allowPrivate: false };

describe("address classification", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.254", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456:789a::1", "private"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.255", "CGNAT"],
    ["224.0.0.251", "multicast"],
    ["ff02::1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:a00:1::1", "private"],
  ])("%s is refused (%s)", (address, reason) => {
    expect(blockedAddressReason(address)).toContain(reason);
  });

  test.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "172.15.255.255",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "192.169.0.1",
  ])("%s is public", (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });
});

/**
 * ipaddr.js's special ranges (v2.3, `IPv4.SpecialRanges` and `IPv6.SpecialRanges`), each with an
 * address inside it: ipaddr.js calls none of them unicast, so the guard refuses every one, except
 * where the address carries a public IPv4 address it is judged by (IPv4-mapped, NAT64's /96).
 */
const IPADDR_RANGES: [range: string, name: string, inside: string][] = [
  ["0.0.0.0/8", "unspecified", "0.1.2.3"],
  ["255.255.255.255/32", "broadcast", "255.255.255.255"],
  ["224.0.0.0/4", "multicast", "239.1.2.3"],
  ["169.254.0.0/16", "linkLocal", "169.254.1.1"],
  ["127.0.0.0/8", "loopback", "127.8.9.10"],
  ["100.64.0.0/10", "carrierGradeNat", "100.100.1.1"],
  ["10.0.0.0/8", "private", "10.9.8.7"],
  ["172.16.0.0/12", "private", "172.20.1.1"],
  ["192.168.0.0/16", "private", "192.168.200.1"],
  ["192.0.0.0/24", "reserved", "192.0.0.8"],
  ["192.0.2.0/24", "reserved", "192.0.2.44"],
  ["192.88.99.0/24", "reserved", "192.88.99.1"],
  ["198.18.0.0/15", "reserved", "198.19.255.1"],
  ["198.51.100.0/24", "reserved", "198.51.100.7"],
  ["203.0.113.0/24", "reserved", "203.0.113.9"],
  ["240.0.0.0/4", "reserved", "250.1.2.3"],
  ["192.175.48.0/24", "as112", "192.175.48.1"],
  ["192.31.196.0/24", "as112", "192.31.196.1"],
  ["192.52.193.0/24", "amt", "192.52.193.1"],
  ["::/128", "unspecified", "::"],
  ["fe80::/10", "linkLocal", "febf::1"],
  ["ff00::/8", "multicast", "ff0e::1"],
  ["::1/128", "loopback", "::1"],
  ["fc00::/7", "uniqueLocal", "fdff::1"],
  ["::ffff:0:0/96", "ipv4Mapped", "::ffff:a00:1"],
  ["fec0::/10", "deprecatedSiteLocal", "fec0::1"],
  ["100::/64", "discard", "100::ffff:1"],
  ["::ffff:0:0:0/96", "rfc6145", "::ffff:0:a00:1"],
  ["::ffff:0:0:0/96", "rfc6145", "::ffff:0:808:808"],
  ["64:ff9b::/96", "rfc6052", "64:ff9b::a00:1"],
  ["64:ff9b:1::/48", "rfc6052", "64:ff9b:1::a00:1"],
  ["64:ff9b:1::/48", "rfc6052", "64:ff9b:1:ffff::808:808"],
  ["2002::/16", "6to4", "2002:808:808::1"],
  ["2001::/32", "teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  ["2001:2::/48", "benchmarking", "2001:2::1"],
  ["2001:3::/32", "amt", "2001:3:1::1"],
  ["2001:4:112::/48", "as112v6", "2001:4:112::1"],
  ["2620:4f:8000::/48", "as112v6", "2620:4f:8000::1"],
  ["2001:10::/28", "deprecatedOrchid", "2001:1f::1"],
  ["2001:20::/28", "orchid2", "2001:2f::1"],
  ["2001:30::/28", "droneRemoteIdProtocolEntityTags", "2001:3f::1"],
  ["5f00::/16", "segmentRouting", "5f00:1::1"],
  ["2001::/23", "reserved", "2001:1ff::1"],
  ["2001:db8::/32", "reserved", "2001:db8::1"],
  ["3fff::/20", "reserved", "3fff:fff::1"],
];

describe("ipaddr.js's special ranges", () => {
  test.each(IPADDR_RANGES)("%s (%s): %s is refused", (_range, _name, inside) => {
    expect(blockedAddressReason(inside)).not.toBeNull();
  });

  test.each([
    ["64:ff9b:1::a00:1", "local-use NAT64"],
    ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo private IPv4 address"],
    ["::ffff:0:a00:1", "SIIT"],
    ["192.88.99.1", "6to4 relay"],
  ])("%s, which embeds or is a non-public address, is refused (%s)", (address, reason) => {
    expect(blockedAddressReason(address)).toContain(reason);
  });

  test.each([
    "::ffff:8.8.8.8", // IPv4-mapped: judged by its IPv4 address, as ipaddr.js's process() does
    "64:ff9b::808:808", // NAT64 well-known prefix (DNS64): judged by its IPv4 address
    "192.88.98.255",
    "192.88.100.1",
    "2001:200::1", // just past 2001::/23
    "2003::1",
    "64:ff9b:2::1",
    "3fff:1000::1", // just past 3fff::/20
    "5f01::1",
  ])("%s, just outside the ranges, is public", (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });
});

describe("resolveAndCheck with the guard on", () => {
  test.each([
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[0:0:0:0:0:ffff:7f00:1]/",
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://0/",
    "http://10.1.2.3/fhir",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.1.2/",
    "https://192.168.0.10:8443/r4",
    "http://localhost:8080/",
    "http://LOCALHOST./",
  ])("%s is refused", async (url) => {
    await expect(resolveAndCheck(new URL(url), guardOn)).rejects.toBeInstanceOf(BlockedError);
  });

  test("WHATWG URL normalises decimal, octal and hex IPv4 hosts to 127.0.0.1", () => {
    for (const url of ["http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://0x7f000001/"]) {
      expect(new URL(url).hostname).toBe("127.0.0.1");
    }
  });

  test("a name is refused when ANY of its addresses is private", async () => {
    const lookup = async () => [
      { address: "93.184.216.34", family: 4 as const },
      { address: "10.0.0.7", family: 4 as const },
    ];
    await expect(resolveAndCheck(new URL("https://rebind.example/"), { ...guardOn, lookup })).rejects.toBeInstanceOf(
      BlockedError,
    );
  });

  test("public addresses pass, IPv4 first", async () => {
    const lookup = async () => [
      { address: "2606:4700::1", family: 6 as const },
      { address: "93.184.216.34", family: 4 as const },
    ];
    const addresses = await resolveAndCheck(new URL("https://fhir.example/"), { ...guardOn, lookup });
    expect(addresses.map((a) => a.address)).toEqual(["93.184.216.34", "2606:4700::1"]);
  });

  test("only http and https", async () => {
    for (const url of ["ftp://example.com/", "file:///etc/passwd", "gopher://example.com/"]) {
      await expect(resolveAndCheck(new URL(url), guardOn)).rejects.toBeInstanceOf(InvalidUrlError);
    }
  });

  test("a name that does not resolve is a DNS error", async () => {
    const lookup = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    await expect(resolveAndCheck(new URL("https://nowhere.invalid/"), { ...guardOn, lookup })).rejects.toBeInstanceOf(
      DnsError,
    );
  });

  test("allowPrivate lets loopback through", async () => {
    const addresses = await resolveAndCheck(new URL("http://127.0.0.1:9/"), { allowPrivate: true });
    expect(addresses).toEqual([{ address: "127.0.0.1", family: 4 }]);
  });
});

describe("probing with the guard on", () => {
  const server = serve({ "/fhir/metadata": '{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1"}' });
  afterAll(() => server.stop());

  test("a loopback server is never contacted", async () => {
    for (const url of [
      `${server.url}/fhir`,
      `http://localhost:${server.port}/fhir`,
      `http://2130706433:${server.port}/fhir`,
      `http://[::ffff:127.0.0.1]:${server.port}/fhir`,
    ]) {
      const result = await probeUrl(url, { allowPrivate: false });
      expect(result.probeStatus).toBe("failed");
      expect(result.errorKind).toBe("blocked");
      expect(result.entryStatus).toBeNull();
    }
    expect(server.requests).toHaveLength(0);
  });

  test("only the allowPrivate option opens the guard: the probe reads no environment itself", async () => {
    const before = process.env.ALLOW_PRIVATE_NETWORK;
    try {
      process.env.ALLOW_PRIVATE_NETWORK = "true";
      expect((await probeUrl(`${server.url}/fhir`)).errorKind).toBe("blocked");
      const { allowPrivateNetwork } = loadConfig({ ALLOW_PRIVATE_NETWORK: "true" });
      expect((await probeUrl(`${server.url}/fhir`, { allowPrivate: allowPrivateNetwork })).metadata.ok).toBe(true);
    } finally {
      if (before === undefined) delete process.env.ALLOW_PRIVATE_NETWORK;
      else process.env.ALLOW_PRIVATE_NETWORK = before;
    }
  });
});

describe("resolve once, connect to the checked address", () => {
  const server = serve(
    {},
    (request) =>
      new Response(
        JSON.stringify({
          resourceType: "CapabilityStatement",
          fhirVersion: "4.0.1",
          host: request.headers.get("host"),
        }),
        { headers: { "content-type": "application/fhir+json" } },
      ),
  );
  afterAll(() => server.stop());

  test("the name is resolved by our lookup only; the request goes to that address with the name in Host", async () => {
    let lookups = 0;
    const lookup = async (name: string) => {
      lookups++;
      expect(name).toBe("fhir.rebind.test");
      return [{ address: "127.0.0.1", family: 4 as const }];
    };
    // fhir.rebind.test resolves nowhere else: if fetch resolved it again, the request would fail.
    const result = await probeUrl(`http://fhir.rebind.test:${server.port}/r4`, {
      allowPrivate: false,
      allowAddresses: ["127.0.0.1"],
      lookup,
    });
    expect(result.metadata.ok).toBe(true);
    expect(result.metadata.json?.host).toBe(`fhir.rebind.test:${server.port}`);
    expect(lookups).toBe(1); // both documents share one lookup per run
  });

  test("a DNS answer that never comes fails within the time-out", async () => {
    const started = performance.now();
    const result = await probeUrl("http://hangs.test/r4", {
      allowPrivate: false,
      timeoutMs: 200,
      lookup: () => new Promise(() => {}),
    });
    expect(result.errorKind).toBe("dns");
    expect(result.entryStatus).toBe("unresponsive");
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
