const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `24h`, `7d`, `90s`, `500ms`, `1.5h`, or `0` → milliseconds. Throws on anything else. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(text);
  if (!match || (match[2] === undefined && Number(match[1]) !== 0)) {
    throw new Error(`not a duration: "${text}" (use e.g. 30m, 24h, 7d)`);
  }
  return Math.round(Number(match[1]) * UNITS[(match[2] ?? "ms").toLowerCase()]!);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
