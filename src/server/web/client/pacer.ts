/** Milliseconds of quiet typing before the page searches. */
export const TYPING_DEBOUNCE_MS = 350;
/**
 * As-you-type searches allowed per minute: half the anonymous quota of 60, so a fast typist
 * leaves room for opening details and paging. Searches over it wait; none is dropped.
 */
const TYPING_SEARCHES_PER_MINUTE = 30;

/** A sliding-window budget: how long the next request must wait to stay under `max` per `windowMs`. */
export class Pacer {
  private times: number[] = [];

  constructor(
    readonly max = TYPING_SEARCHES_PER_MINUTE,
    readonly windowMs = 60_000,
  ) {}

  /** Milliseconds until a request may go (0: now). */
  delay(now: number): number {
    this.times = this.times.filter((time) => now - time < this.windowMs);
    return this.times.length < this.max ? 0 : this.times[0]! + this.windowMs - now;
  }

  record(now: number) {
    this.times.push(now);
  }
}
