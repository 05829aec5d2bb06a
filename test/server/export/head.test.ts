import { afterAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { loadConfig } from "../../../src/config";
import { createTestApp } from "../../support/app";
import { fixtureDb } from "../../support/fixture";

/**
 * HEAD of an export says what GET would: for a filtered export, a streamed body of unknown
 * length, so no `Content-Length` (a `Content-Length: 0` tells a client the file is empty); for
 * the unfiltered one, its download file's length. Raw TCP to a real
 * server, since fetch hides the framing headers; a GET pipelined after the HEAD shows where the
 * HEAD answer ends.
 */

function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
  });
}

const headersOf = (head: string) =>
  Object.fromEntries(
    head
      .split("\r\n")
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );

describe("HEAD /api/v1/export", () => {
  const app = createTestApp({ db: fixtureDb(), config: loadConfig({ LOG_LEVEL: "error", RATE_LIMIT_MAX: "1000" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  afterAll(() => app.stop(true));

  /** The GET of `target` (read whole) and the headers of its HEAD, pipelined before a GET that shows where the HEAD answer ends. */
  async function getAndHead(target: string, encoding: string | null) {
    const get = await fetch(`http://127.0.0.1:${app.server!.port}${target}`, {
      headers: encoding ? { "accept-encoding": encoding } : {},
      decompress: false,
    });
    const length = (await get.arrayBuffer()).byteLength;
    const extra = encoding ? `Accept-Encoding: ${encoding}\r\n` : "";
    const raw = await exchange(
      app.server!.port!,
      // The Host the GET sends: the FHIR Bundle's URLs, and so its ETag, follow the origin.
      `HEAD ${target} HTTP/1.1\r\nHost: 127.0.0.1:${app.server!.port}\r\n${extra}\r\nGET /health HTTP/1.1\r\nHost: l\r\nConnection: close\r\n\r\n`,
    );
    const headEnd = raw.indexOf("\r\n\r\n");
    expect(raw.slice(0, 12)).toBe("HTTP/1.1 200");
    // Nothing between the HEAD's headers and the next answer.
    expect(raw.slice(headEnd + 4, headEnd + 16)).toBe("HTTP/1.1 200");
    expect(length).toBeGreaterThan(0);
    return { get, length, head: headersOf(raw.slice(0, headEnd)) };
  }

  for (const [format, encoding] of [
    ["csv", null],
    ["ndjson", null],
    ["fhir", null],
    ["csv", "gzip"],
    ["fhir", "br"],
  ] as const)
    test(`${format}${encoding ? `, ${encoding}` : ""}, filtered: the GET's headers, no Content-Length, no body`, async () => {
      const { get, head } = await getAndHead(`/api/v1/export?format=${format}&fhirVersion=R4`, encoding);
      expect(head["content-length"]).toBeUndefined();
      for (const name of ["content-type", "content-disposition", "content-encoding", "etag"])
        expect({ name, value: head[name] ?? null }).toEqual({ name, value: get.headers.get(name) });
    });

  for (const [format, encoding] of [
    ["csv", null],
    ["fhir", "gzip"],
  ] as const)
    test(`${format}${encoding ? `, ${encoding}` : ""}, unfiltered: the GET's headers, its length, no body`, async () => {
      const { get, head, length } = await getAndHead(`/api/v1/export?format=${format}`, encoding);
      expect(head["content-length"]).toBe(String(length));
      for (const name of ["content-type", "content-disposition", "content-encoding", "etag", "accept-ranges"])
        expect({ name, value: head[name] ?? null }).toEqual({ name, value: get.headers.get(name) });
    });
});
