import { createLogger } from "../logger";

/**
 * How far ahead of this machine's clock a write's own time may be: the machines that write (a
 * probe run, an ingest, the server) differ by seconds, and a time further ahead is a wrong clock.
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Warnings of this layer, which has no logger handed to it: one JSON line on stderr. */
const warnings = createLogger("warn", {
  write: (line) => process.stderr.write(`${line}\n`),
  flush() {},
});

/** Writes of this process dated in the future so far. */
let clamped = 0;

/**
 * The time a write is recorded at: `at`, unless it is more than CLOCK_SKEW_MS ahead of `nowMs`,
 * then `nowMs` (logged). A write dated in the future would make every later, correct write look
 * old: retention counted from it would drop the change feed and the report history at once.
 */
export function writtenAt(at: string, nowMs = Date.now()): string {
  if (!(Date.parse(at) > nowMs + CLOCK_SKEW_MS)) return at;
  const now = new Date(nowMs).toISOString();
  // A wrong clock dates every write of its process: the first is logged, then one in a thousand.
  if (clamped++ % 1000 === 0)
    warnings.warn("write dated in the future: recorded at this machine's time instead", {
      claimed: at,
      at: now,
      clampedInThisProcess: clamped,
    });
  return now;
}
