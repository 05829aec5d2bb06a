/**
 * A computation in steps (a generator that yields between them), taken either a step per turn
 * of the event loop (other work runs between them) or all at once; both ways share the one
 * generator and its value, so a caller that cannot wait finishes a stepped run rather than
 * starting another.
 */
export class Stepped<T> {
  private steps: Generator<void, T> | null;
  private result: { value: T } | null = null;
  private failure: { error: unknown } | null = null;
  private running: Promise<T> | null = null;

  constructor(steps: Generator<void, T>) {
    this.steps = steps;
  }

  /** `{ value }` once the last step is taken, else null. */
  get done(): { value: T } | null {
    return this.result;
  }

  /** Takes the steps left, one per turn of the event loop (one run however often asked). */
  perTurn(): Promise<T> {
    this.running ??= (async () => {
      for (let done = this.step(); ; done = this.step()) {
        if (done !== null) return done.value;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    return this.running;
  }

  /** Takes the steps left now. */
  drain(): T {
    for (;;) {
      const done = this.step();
      if (done !== null) return done.value;
    }
  }

  /** Takes one step: the value once there is none left (the generator then let go), or the error it threw. */
  private step(): { value: T } | null {
    if (this.failure !== null) throw this.failure.error;
    if (this.result === null) {
      try {
        const step = this.steps!.next();
        if (step.done) {
          this.result = { value: step.value };
          this.steps = null;
        }
      } catch (error) {
        this.failure = { error };
        this.steps = null;
        throw error;
      }
    }
    return this.result;
  }
}

/**
 * Runs `step` over [0, count) in ranges of `size`, yielding after each. The loops live in plain
 * functions: the engine optimises a generator's own body far less (a build 9 times slower).
 */
export function* inRanges(
  count: number,
  size: number,
  step: (from: number, to: number) => void,
): Generator<void, void> {
  for (let from = 0; from < count; from += size) {
    step(from, Math.min(count, from + size));
    yield;
  }
}
