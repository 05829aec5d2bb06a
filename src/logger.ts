import type { LogLevel } from "./config";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line on stdout (stderr for errors). */
export function createLogger(level: LogLevel, write: (line: string, level: LogLevel) => void = defaultWrite): Logger {
  const emit = (at: LogLevel) => (message: string, fields: Record<string, unknown> = {}) => {
    if (LEVELS[at] < LEVELS[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields }), at);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

function defaultWrite(line: string, level: LogLevel) {
  if (level === "error") console.error(line);
  else console.log(line);
}
