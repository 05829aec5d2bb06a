import type { LogLevel } from "../../src/config";
import { createLogger } from "../../src/logger";

interface Line {
  message: string;
  [field: string]: unknown;
}

/**
 * A logger for a test app that keeps its lines. The app logs a request (and records its metrics)
 * as its answer leaves, a promised answer once it settles: `logged(n)` and `loggedWhere(match)`
 * resolve once those request lines have been written, so a test awaits the observation instead of
 * sleeping.
 */
export function requestLog(level: LogLevel = "info") {
  const lines: Line[] = [];
  const waiting: { done: () => boolean; resolve: () => void }[] = [];
  const requests = () => lines.filter((line) => line.message === "request");
  const log = createLogger(level, {
    write: (text) => {
      lines.push(JSON.parse(text) as Line);
      for (const waiter of waiting.filter((w) => w.done())) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    flush: () => {},
  });
  /** Resolves once `done()` holds (checked after every line written). */
  const until = (done: () => boolean) =>
    done() ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ done, resolve }));
  /** Resolves once `count` request lines have been written. */
  const logged = (count: number) => until(() => requests().length >= count);
  /** Resolves once a request line matches. */
  const loggedWhere = (match: (line: Line) => boolean) => until(() => requests().some(match));
  return { log, lines, requests, logged, loggedWhere };
}
