import { expect, test } from "bun:test";
import { HostLimiter } from "../../../src/pipeline/probe/limiter";

/** Runs one task per entry of `hosts`; returns the order in which tasks started. */
async function startOrder(limiter: HostLimiter, hosts: string[], perTaskMs: number): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(
    hosts.map((host) =>
      limiter.run(host, async () => {
        order.push(host);
        await Bun.sleep(perTaskMs);
      }),
    ),
  );
  return order;
}

test("never more than `global` in all nor `perHost` per host", async () => {
  const limiter = new HostLimiter(5, 2);
  const hosts = Array.from({ length: 60 }, (_, i) => `h${i % 4}`);
  const inHost = new Map<string, number>();
  let inAll = 0;
  let maxAll = 0;
  let maxHost = 0;
  await Promise.all(
    hosts.map((host) =>
      limiter.run(host, async () => {
        inAll++;
        inHost.set(host, (inHost.get(host) ?? 0) + 1);
        maxAll = Math.max(maxAll, inAll);
        maxHost = Math.max(maxHost, inHost.get(host)!);
        await Bun.sleep(2);
        inAll--;
        inHost.set(host, inHost.get(host)! - 1);
      }),
    ),
  );
  expect(maxAll).toBe(5);
  expect(maxHost).toBe(2);
  expect(limiter.inFlight).toBe(0);
});

test("a host with a long queue does not starve the others", async () => {
  const limiter = new HostLimiter(4, 2);
  const order = await startOrder(limiter, [...Array.from({ length: 40 }, () => "busy"), "a", "b", "c"], 2);
  // a, b and c get a slot long before the 40 busy tasks are done.
  for (const host of ["a", "b", "c"]) expect(order.indexOf(host)).toBeLessThan(10);
});

test("limits must be at least 1", () => {
  expect(() => new HostLimiter(0, 2)).toThrow();
  expect(() => new HostLimiter(2, 0)).toThrow();
});
