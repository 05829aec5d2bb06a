import { existsSync } from "node:fs";

const BINARY = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path));

export const redisAvailable = BINARY !== undefined;

/** Tests that start their own redis-server run where it is installed, and always in CI (where a missing one must fail). */
export const redisRuns = redisAvailable || Boolean(process.env.CI);

export interface RedisProcess {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** A throwaway redis-server on 127.0.0.1 without persistence, for one test file. */
export async function startRedis(): Promise<RedisProcess> {
  if (!BINARY) throw new Error("redis-server is not installed (apt-get install redis-server)");
  const port = await freePort();
  const child = Bun.spawn([BINARY, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdout: "ignore",
    stderr: "ignore",
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      socket.end();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("redis-server did not start");
      await Bun.sleep(50);
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGKILL");
      await child.exited;
    },
  };
}
