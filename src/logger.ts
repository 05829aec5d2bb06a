import type { LogLevel } from "./config";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Writes out anything buffered (call before exit). */
  flush(): void;
}

export type LineWriter = { write(line: string): void; flush(): void };

/**
 * Lines are buffered and written to stdout every 100 ms (or at 64 KB), so a request log line
 * costs no system call on the hot path.
 */
export function bufferedStdout(): LineWriter {
  let pending: string[] = [];
  let size = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    size = 0;
    process.stdout.write(text);
  };
  setInterval(flush, 100).unref();
  return {
    write(line) {
      pending.push(line);
      size += line.length;
      if (size > 65_536) flush();
    },
    flush,
  };
}

/** One JSON object per line. */
export function createLogger(level: LogLevel, writer: LineWriter = bufferedStdout()): Logger {
  const emit = (at: LogLevel) => (message: string, fields: Record<string, unknown> = {}) => {
    if (LEVELS[at] < LEVELS[level]) return;
    writer.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })}\n`);
    if (at === "error") writer.flush();
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error"), flush: () => writer.flush() };
}
