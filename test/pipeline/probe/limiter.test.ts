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

test("a request asked `first` takes its host's next slot, and the next global one, ahead of those queued before it", async () => {
  const limiter = new HostLimiter(2, 1);
  const order: string[] = [];
  await limiter.acquire("a");
  await limiter.acquire("b");
  const queued = [
    limiter.acquire("a").then(() => order.push("a later")),
    limiter.acquire("c").then(() => order.push("c")),
    limiter.acquire("a", true).then(() => order.push("a first")),
  ];
  await Bun.sleep(5);
  expect(order).toEqual([]);
  // A slot of host a ends: its `first` request takes it, not the one queued before it.
  limiter.release("a");
  await Bun.sleep(5);
  expect(order).toEqual(["a first"]);
  // A slot of b ends: c, the host that has waited longest for a global slot.
  limiter.release("b");
  await Bun.sleep(5);
  expect(order).toEqual(["a first", "c"]);
  const d = limiter.acquire("d").then(() => order.push("d"));
  const b = limiter.acquire("b", true).then(() => order.push("b first"));
  // Every slot taken (a first, c): b, asked first, goes before d, which waited longer.
  limiter.release("c");
  await Bun.sleep(5);
  expect(order).toEqual(["a first", "c", "b first"]);
  limiter.release("a");
  limiter.release("b");
  await Promise.all([...queued, d, b]);
  // Then in the order they waited for a global slot.
  expect(order).toEqual(["a first", "c", "b first", "d", "a later"]);
  limiter.release("a");
  limiter.release("d");
  expect(limiter.inFlight).toBe(0);
});
