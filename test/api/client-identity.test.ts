import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { MemoryRateLimitStore } from "../../src/rate-limit/memory-store";
import { fixtureDb } from "../support/fixture";

/**
 * Behind a trusted proxy the forwarded header names the client. What it names is counted, in
 * one form per address: a port, an IPv4-mapped prefix or the case of IPv6 hex does not make a
 * new client, an IPv6 client is its /64, and a value that is not an address (of any size) counts
 * as the socket's address. Real servers on 127.0.0.1; the store records the names it counts.
 */

/** A memory store that also keeps every client name it was asked to count. */
class RecordingStore extends MemoryRateLimitStore {
  readonly names = new Set<string>();
  override hit(client: string, window: number): number {
    this.names.add(client);
    return super.hit(client, window);
  }
}

function startApp(env: Record<string, string>) {
  const store = new RecordingStore();
  const app = createApp({
    db: fixtureDb(),
    config: loadConfig({ LOG_LEVEL: "error", RATE_LIMIT_WINDOW_SECONDS: "3600", ...env }),
    clock: () => new Date("2026-11-25T12:00:10.000Z"),
    rateLimitStore: store,
  });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const root = `http://127.0.0.1:${app.server!.port}`;
  /** The quota left after one request with these headers. */
  const remaining = async (headers: Record<string, string>) => {
    const response = await fetch(`${root}/api/v1/stats`, { headers });
    await response.arrayBuffer();
    return Number(response.headers.get("ratelimit-remaining"));
  };
  return { app, store, remaining };
}

describe("TRUST_PROXY=true: the last X-Forwarded-For hop, as one canonical address", () => {
  const server = startApp({ RATE_LIMIT_MAX: "1000", TRUST_PROXY: "true" });
  afterAll(() => server.app.stop(true));
  const xff = (value: string) => server.remaining({ "x-forwarded-for": value });

  test("a port, brackets or an IPv4-mapped prefix is the same client as the bare address", async () => {
    const spellings = ["198.51.100.7", "198.51.100.7:1234", "::ffff:198.51.100.7", "[::ffff:198.51.100.7]:443"];
    const seen: number[] = [];
    for (const spelling of spellings) seen.push(await xff(`10.0.0.1, ${spelling}`));
    expect(seen).toEqual([999, 998, 997, 996]);
  });

  test("IPv6: case, leading zeros, zero runs and ports do not matter, and one /64 is one client", async () => {
    const sameBlock = [
      "2001:db8:1:2::1",
      "2001:DB8:1:2:0:0:0:1",
      "2001:0db8:0001:0002::abcd",
      "[2001:db8:1:2:ffff:ffff:ffff:ffff]:8080",
      "2001:db8:1:2:5:6:7:8",
    ];
    const seen: number[] = [];
    for (const spelling of sameBlock) seen.push(await xff(spelling));
    expect(seen).toEqual([999, 998, 997, 996, 995]);
    // The next /64 is another client.
    expect(await xff("2001:db8:1:3::1")).toBe(999);
  });

  test("a value that is not one address counts as the socket's address, however large", async () => {
    const socket = await server.remaining({});
    const junk = [
      "not-an-ip",
      "1.2.3.4.5",
      "01.2.3.4",
      "1.2.3.4:port",
      "[::1",
      "::ffff:1.2.3.4:80",
      "2001:db8::1::2",
      "x".repeat(8192),
      `${"1".repeat(4000)}.2.3.4`,
      "",
    ];
    const seen: number[] = [];
    for (const value of junk) seen.push(await xff(value));
    expect(seen).toEqual(junk.map((_, i) => socket - 1 - i));
  });

  test("1,000 unique 8 KB values are one client, and no counted name is longer than an address", async () => {
    const before = server.store.names.size;
    const pad = "a".repeat(8192);
    for (let i = 0; i < 1000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => xff(`${pad}${i + k}`)));
    expect(server.store.names.size - before).toBeLessThanOrEqual(1);
    for (const name of server.store.names) expect(name.length).toBeLessThanOrEqual(48);
  });
});

describe("TRUST_PROXY=fly: Fly-Client-IP, as one canonical address", () => {
  let server: ReturnType<typeof startApp>;
  beforeAll(() => {
    server = startApp({ RATE_LIMIT_MAX: "1000", TRUST_PROXY: "fly" });
  });
  afterAll(() => server.app.stop(true));

  test("spellings of one address share a quota; junk counts as the socket", async () => {
    const fly = (value: string) => server.remaining({ "fly-client-ip": value });
    expect([await fly("203.0.113.9"), await fly(" 203.0.113.9:5000"), await fly("::FFFF:203.0.113.9")]).toEqual([
      999, 998, 997,
    ]);
    expect([await fly("2001:db8:a:b::1"), await fly("2001:db8:a:b:c::2")]).toEqual([999, 998]);
    const socket = await server.remaining({});
    expect(await fly("y".repeat(8192))).toBe(socket - 1);
  });
});
