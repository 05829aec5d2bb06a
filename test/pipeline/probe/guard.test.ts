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
