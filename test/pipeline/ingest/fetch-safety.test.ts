/**
 * Ingest fetches a list like the probe fetches a server: http(s) only on every page, redirect and
 * `next` link; the private-address guard unless ALLOW_PRIVATE_NETWORK=true; and a size cap on a
 * list's bytes (every page together, or a file), enforced while reading. A list that breaks any
 * of these fails: nothing changes and the exit status is 1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fetchAndParseList, ListFetchError } from "../../../src/pipeline/ingest/fetch-list";
import type { ListDefinition } from "../../../src/pipeline/ingest/types";
import type { LookupFn } from "../../../src/pipeline/probe/guard";
import { writeAcmeRegistry } from "../../support/acme";
import { bundle, FOUR, query, removeTempDirs, runCli, snapshot, tempDir, writeFile } from "./cli-helpers";

type Handler = (request: Request) => Response | Promise<Response>;

/** A real HTTP server on `hostname`; answers by path from `routes`, records every path asked. */
function listServer(hostname: string) {
  const routes = new Map<string, Handler | string>();
  const asked: string[] = [];
  const server = Bun.serve({
    hostname,
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      asked.push(path);
      const route = routes.get(path);
      if (route === undefined) return new Response("not found", { status: 404 });
      if (typeof route === "string")
        return new Response(route, { headers: { "content-type": "application/fhir+json" } });
      return route(request);
    },
  });
  return { server, routes, asked, base: `http://${hostname}:${server.port}` };
}

let main: ReturnType<typeof listServer>;
/** A second server on another loopback address, the "internal service" hostile lists point at. */
let internal: ReturnType<typeof listServer>;

beforeAll(() => {
  main = listServer("127.0.0.1");
  internal = listServer("127.0.0.2");
  internal.routes.set("/admin/list", bundle([{ key: "internal", name: "Internal Secret" }]));
});

afterAll(() => {
  main.server.stop(true);
  internal.server.stop(true);
  removeTempDirs();
});

const SECRET_CSV =
  "url,organization\nhttps://secret.example.com/fhir,Secret Clinic\nhttps://secret2.example.com/fhir,Hidden Lab\n";

/** A database already holding acme's four entries from a good list, and a runner for list `path`. */
async function setup(env: Record<string, string> = { ALLOW_PRIVATE_NETWORK: "true" }) {
  const dir = tempDir();
  const db = join(dir, "directory.sqlite");
  const secret = writeFile(dir, "secret.csv", SECRET_CSV);
  const registry = writeAcmeRegistry(join(dir, "vendors.json"), [
    { id: "acme-r4", url: `${main.base}/lists/acme`, format: "fhir-bundle", fhirVersion: "R4" },
  ]);
  const run = (...extra: string[]) =>
    runCli(["--vendor", "acme", "--registry", registry, ...extra], { DATABASE_PATH: db, ...env });
  main.routes.set("/lists/acme", bundle(FOUR));
  const first = await runCli(["--vendor", "acme", "--registry", registry], {
    DATABASE_PATH: db,
    ALLOW_PRIVATE_NETWORK: "true",
  });
  expect(first.code).toBe(0);
  return { dir, db, secret, run, before: snapshot(db) };
}

const names = (db: string) =>
  query<{ organization_name: string }>(db, "SELECT organization_name FROM entries ORDER BY 1").map(
    (r) => r.organization_name,
  );

describe("every page, redirect and next link is http(s)", () => {
  test("a Bundle whose next link is file:// fails; the file is not read into the directory", async () => {
    const { db, secret, run, before } = await setup();
    main.routes.set("/lists/acme", bundle(FOUR, `file://${secret}`));
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.output).toContain("file:");
    expect(snapshot(db)).toBe(before);
    expect(names(db)).not.toContain("Secret Clinic");
  });

  test("a next link with another scheme (ftp:, data:) fails the list", async () => {
    const { db, run, before } = await setup();
    for (const next of ["ftp://lists.acme.test/page2", "data:application/json,%7B%7D"]) {
      main.routes.set("/lists/acme", bundle(FOUR, next));
      const result = await run();
      expect(result.code).toBe(1);
      expect(result.output).toContain(next.slice(0, next.indexOf(":") + 1));
      expect(snapshot(db)).toBe(before);
    }
  });

  test("a redirect to file:// fails the list", async () => {
    const { db, secret, run, before } = await setup();
    main.routes.set(
      "/lists/acme",
      () => new Response(null, { status: 302, headers: { location: `file://${secret}` } }),
    );
    const result = await run();
    expect(result.code).toBe(1);
    expect(snapshot(db)).toBe(before);
  });

  test("next links that loop fail the list: reported, nothing changed", async () => {
    const { db, run, before } = await setup();
    main.routes.set("/lists/acme", bundle(FOUR.slice(0, 2), "/lists/acme-loop-2"));
    main.routes.set("/lists/acme-loop-2", bundle([{ key: "e", name: "Epsilon Care" }], "/lists/acme-loop-3"));
    main.routes.set("/lists/acme-loop-3", bundle([{ key: "f", name: "Zeta Loop" }], "/lists/acme"));
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.output).toContain("loop");
    expect(snapshot(db)).toBe(before);
    expect(names(db)).not.toContain("Epsilon Care");
    // A page that links to itself is the shortest loop.
    main.routes.set("/lists/acme", bundle(FOUR, "/lists/acme"));
    const self = await run();
    expect(self.code).toBe(1);
    expect(snapshot(db)).toBe(before);
  });

  test("control: a relative http next link is followed and both pages are ingested", async () => {
    const { db, run } = await setup();
    main.routes.set("/lists/acme", bundle(FOUR.slice(0, 2), "/lists/acme-page-2"));
    main.routes.set("/lists/acme-page-2", bundle([...FOUR.slice(2), { key: "e", name: "Epsilon Care" }]));
    const result = await run();
    expect(result.code).toBe(0);
    expect(names(db)).toContain("Epsilon Care");
  });
});

describe("the private-address guard (one switch: ALLOW_PRIVATE_NETWORK)", () => {
  test("without ALLOW_PRIVATE_NETWORK=true a list on 127.0.0.1 is refused before any request", async () => {
    const { db, run, before } = await setup({ ALLOW_PRIVATE_NETWORK: "" });
    main.asked.length = 0;
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/127\.0\.0\.1.*loopback/);
    expect(main.asked).toEqual([]);
    expect(snapshot(db)).toBe(before);
  });

  const list: ListDefinition = {
    id: "acme-r4",
    url: "",
    format: "fhir-bundle",
    audience: null,
    fhirVersion: "R4",
  };
  /** The guard on, with the "public" list server's own address let through. */
  const guarded = (extra: { allowAddresses?: string[]; lookup?: LookupFn } = {}) => ({
    timeoutMs: 5000,
    maxBytes: 10_000_000,
    allowPrivate: false,
    allowAddresses: ["127.0.0.1"],
    ...extra,
  });

  test("a next link to a private address is refused; the internal server gets no request", async () => {
    main.routes.set("/lists/next-internal", bundle(FOUR, `${internal.base}/admin/list`));
    internal.asked.length = 0;
    const attempt = fetchAndParseList(list, `${main.base}/lists/next-internal`, guarded());
    await expect(attempt).rejects.toBeInstanceOf(ListFetchError);
    await expect(attempt).rejects.toThrow(/127\.0\.0\.2.*loopback/);
    expect(internal.asked).toEqual([]);
  });

  test("a redirect to a private address is refused; the internal server gets no request", async () => {
    main.routes.set(
      "/lists/redirect-internal",
      () => new Response(null, { status: 302, headers: { location: `${internal.base}/admin/list` } }),
    );
    internal.asked.length = 0;
    const attempt = fetchAndParseList(list, `${main.base}/lists/redirect-internal`, guarded());
    await expect(attempt).rejects.toThrow(/127\.0\.0\.2.*loopback/);
    expect(internal.asked).toEqual([]);
  });

  test("a next link whose name resolves to the cloud metadata address is refused", async () => {
    const lookup: LookupFn = async (name) => {
      if (name === "metadata.acme.test") return [{ address: "169.254.169.254", family: 4 }];
      throw new Error(`ENOTFOUND ${name}`);
    };
    main.routes.set("/lists/next-metadata", bundle(FOUR, "http://metadata.acme.test/latest/meta-data"));
    const attempt = fetchAndParseList(list, `${main.base}/lists/next-metadata`, guarded({ lookup }));
    await expect(attempt).rejects.toThrow(/169\.254\.169\.254/);
  });

  test("control: the same next link and redirect are followed when the address is allowed", async () => {
    internal.asked.length = 0;
    const options = guarded({ allowAddresses: ["127.0.0.1", "127.0.0.2"] });
    const viaNext = await fetchAndParseList(list, `${main.base}/lists/next-internal`, options);
    expect(viaNext.entries.map((e) => e.organizationName)).toContain("Internal Secret");
    const viaRedirect = await fetchAndParseList(list, `${main.base}/lists/redirect-internal`, options);
    expect(viaRedirect.entries.map((e) => e.organizationName)).toEqual(["Internal Secret"]);
    expect(internal.asked).toEqual(["/admin/list", "/admin/list"]);
  });
});

/** `{"Endpoints":[…]}` items, each about 100 bytes, until `bytes` is reached. */
function flatList(bytes: number): string {
  const items: string[] = [];
  let size = 16;
  for (let i = 0; size < bytes; i++) {
    const item = JSON.stringify({ URL: `https://fhir${i}.big.example.com/r4`, OrganizationName: `Big Clinic ${i}` });
    items.push(item);
    size += item.length + 1;
  }
  return `{"Endpoints":[${items.join(",")}]}`;
}

describe("a list's size is capped while it is read (INGEST_MAX_BYTES, default 100 MB)", () => {
  const capped = { ALLOW_PRIVATE_NETWORK: "true", INGEST_MAX_BYTES: "1000000" };
  // --force: without the cap these lists would be accepted although they drop acme's four entries.

  test("a body over the cap fails the list with a message naming the cap", async () => {
    const { db, run, before } = await setup(capped);
    main.routes.set("/lists/acme", flatList(1_500_000));
    const result = await run("--force");
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/larger than.*1,000,000 bytes.*INGEST_MAX_BYTES/);
    expect(snapshot(db)).toBe(before);
  });

  test("an endless body without Content-Length fails at the cap", async () => {
    const { db, run, before } = await setup(capped);
    const chunk = new TextEncoder().encode(`${JSON.stringify({ URL: "https://x.example.com/r4" })},`.repeat(1000));
    main.routes.set(
      "/lists/acme",
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"Endpoints":['));
            },
            pull(controller) {
              controller.enqueue(chunk);
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    );
    const result = await run("--force", "--timeout", "20000");
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/larger than.*1,000,000 bytes/);
    expect(snapshot(db)).toBe(before);
  });

  test("the cap counts every page of a paged Bundle together", async () => {
    const { db, run, before } = await setup(capped);
    const half = (key: string) =>
      Array.from({ length: 2500 }, (_, i) => ({ key: `${key}${i}`, name: `Clinic ${key} ${i} ${"x".repeat(40)}` }));
    const page1 = bundle(half("p"), "/lists/acme-page-2");
    const page2 = bundle(half("q"));
    expect(page1.length).toBeLessThan(1_000_000);
    expect(page1.length + page2.length).toBeGreaterThan(1_000_000);
    main.routes.set("/lists/acme", page1);
    main.routes.set("/lists/acme-page-2", page2);
    const result = await run("--force");
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/larger than/);
    expect(snapshot(db)).toBe(before);
  });

  test("--file over the cap fails before the database changes", async () => {
    const { dir, db, run, before } = await setup(capped);
    const file = writeFile(dir, "big.json", flatList(1_500_000));
    const result = await run("--force", "--file", file);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/larger than.*1,000,000 bytes/);
    expect(snapshot(db)).toBe(before);
  });

  test("--file /dev/zero fails with a clear message (default cap)", async () => {
    const { db, run, before } = await setup();
    const result = await run("--force", "--file", "/dev/zero");
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/\/dev\/zero.*larger than.*100,000,000 bytes/);
    expect(snapshot(db)).toBe(before);
  });
});
