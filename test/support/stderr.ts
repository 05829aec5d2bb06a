/**
 * Runs `run` with what this process writes to stderr kept back, and returns it line by line: for
 * a test whose subject warns on purpose (a write dated in the future), so that a green run prints
 * nothing but its dots and the test can say which warning it expects.
 */
export async function stderrLines(run: () => unknown): Promise<string[]> {
  const write = process.stderr.write;
  const decoder = new TextDecoder();
  let text = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    await run();
  } finally {
    process.stderr.write = write;
  }
  return text.split("\n").filter((line) => line !== "");
}

/** The `claimed` time of each "write dated in the future" warning (src/db/write-clock.ts) in `lines`; null for any other line. */
export const futureWriteClaims = (lines: string[]): (string | null)[] =>
  lines.map((line) => {
    const parsed = JSON.parse(line) as { message?: string; claimed?: string };
    return parsed.message?.startsWith("write dated in the future") ? (parsed.claimed ?? null) : null;
  });
