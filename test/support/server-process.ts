import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export interface ServerProcess {
  baseUrl: string;
  process: ReturnType<typeof Bun.spawn>;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `bun src/index.ts` as a real process on a free port and waits for its "listening" line. */
export async function startServer(env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  const child = Bun.spawn([process.execPath, join(ROOT, "src/index.ts")], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const decoder = new TextDecoder();
  const reader = child.stdout.getReader();
  const deadline = Date.now() + timeoutMs;
  let baseUrl: string | undefined;
  while (!baseUrl && Date.now() < deadline) {
    const { value, done } = await Promise.race([
      reader.read(),
      Bun.sleep(Math.max(0, deadline - Date.now())).then(() => ({ value: undefined, done: true })),
    ]);
    if (done) break;
    output += decoder.decode(value);
    baseUrl = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
  }
  if (!baseUrl) {
    child.kill();
    throw new Error(`server did not start: ${output}${await new Response(child.stderr).text()}`);
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      output += decoder.decode(value);
    }
  })();
  return {
    baseUrl,
    process: child,
    output: () => output,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}
