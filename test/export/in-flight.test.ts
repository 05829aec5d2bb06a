import { expect, test } from "bun:test";
import { type ExportSlot, InFlightExports } from "../../src/export/in-flight";

test("two slots per client; a released slot is free again; other clients have their own", () => {
  const limiter = new InFlightExports(2);
  const a = limiter.acquire("ip:a") as ExportSlot;
  const b = limiter.acquire("ip:a") as ExportSlot;
  expect(a).not.toBeNull();
  expect(b).not.toBeNull();
  expect(limiter.acquire("ip:a")).toBe("client");
  expect(limiter.acquire("key:k")).not.toBeNull();
  a.release();
  a.release(); // twice is harmless: it frees one slot, not two
  const c = limiter.acquire("ip:a");
  expect(c).not.toBeNull();
  expect(limiter.acquire("ip:a")).toBe("client");
});

test("Retry-After: when the first running export should end at its pace so far, 5 s before any progress", () => {
  let now = 0;
  const limiter = new InFlightExports(2, () => now);
  const slow = limiter.acquire("ip:a") as ExportSlot;
  const fast = limiter.acquire("ip:a") as ExportSlot;
  expect(limiter.retryAfterSeconds("ip:a")).toBe(5);
  now = 2_000;
  slow.progress(100, 1_000); // 900 left at 50 entries/s: 18 s
  fast.progress(500, 1_000); // 500 left at 250 entries/s: 2 s
  expect(limiter.retryAfterSeconds("ip:a")).toBe(2);
  fast.release();
  expect(limiter.retryAfterSeconds("ip:a")).toBe(18);
  slow.progress(999_000, 1_000_000_000); // capped
  expect(limiter.retryAfterSeconds("ip:a")).toBe(300);
});

test("at most maxRunning slots in the whole server, whatever the client; a released one is free again", () => {
  const limiter = new InFlightExports(2, undefined, 3);
  const held = ["ip:a", "ip:b", "ip:c"].map((client) => limiter.acquire(client) as ExportSlot);
  expect(limiter.runningCount).toBe(3);
  expect(limiter.acquire("ip:d")).toBe("server");
  held[0]!.release();
  held[0]!.release();
  expect(limiter.runningCount).toBe(2);
  expect(typeof limiter.acquire("ip:d")).toBe("object");
  expect(limiter.acquire("ip:e")).toBe("server");
});
