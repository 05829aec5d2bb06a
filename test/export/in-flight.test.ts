import { expect, test } from "bun:test";
import { InFlightExports } from "../../src/server/export/in-flight";

test("two slots per client; a released slot is free again; other clients have their own", () => {
  const limiter = new InFlightExports(2);
  const a = limiter.acquire("ip:a")!;
  const b = limiter.acquire("ip:a")!;
  expect(a).not.toBeNull();
  expect(b).not.toBeNull();
  expect(limiter.acquire("ip:a")).toBeNull();
  expect(limiter.acquire("key:k")).not.toBeNull();
  a.release();
  a.release(); // twice is harmless: it frees one slot, not two
  const c = limiter.acquire("ip:a");
  expect(c).not.toBeNull();
  expect(limiter.acquire("ip:a")).toBeNull();
});

test("Retry-After: when the first running export should end at its pace so far, 5 s before any progress", () => {
  let now = 0;
  const limiter = new InFlightExports(2, () => now);
  const slow = limiter.acquire("ip:a")!;
  const fast = limiter.acquire("ip:a")!;
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
