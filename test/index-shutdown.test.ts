import { expect, test } from "bun:test";
import { fixtureDb } from "./support/fixture";
import { startServer } from "./support/server-process";

test("SIGTERM during a slow request: the request completes, then the process exits 0", async () => {
  const db = fixtureDb();
  db.sqlite.close();
  const server = await startServer({ DATABASE_PATH: db.path });
  const { hostname, port } = new URL(server.baseUrl);
  const expected = await (await fetch(`${server.baseUrl}/docs/assets/swagger-ui-bundle.js`)).arrayBuffer();

  // A client that reads a 1 MB+ answer slowly: the server is still sending when SIGTERM arrives.
  const chunks: Uint8Array[] = [];
  let received = 0;
  let resolveClosed: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(s, data) {
        chunks.push(new Uint8Array(data));
        received += data.length;
        s.pause();
        setTimeout(() => s.resume(), 2);
      },
      close: () => resolveClosed(),
      end: () => resolveClosed(),
    },
  });
  socket.write(`GET /docs/assets/swagger-ui-bundle.js HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
  while (received === 0) await Bun.sleep(5);
  server.process.kill("SIGTERM");
  await closed;
  const exitCode = await server.process.exited;

  const raw = Buffer.concat(chunks);
  const headerEnd = raw.indexOf("\r\n\r\n");
  expect(raw.subarray(0, headerEnd).toString()).toContain("200 OK");
  expect(raw.length - headerEnd - 4).toBe(expected.byteLength);
  expect(exitCode).toBe(0);
  expect(server.output()).toContain("shutting down");
});
