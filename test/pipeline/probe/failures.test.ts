import { afterAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { Prober, probeUrl } from "../../../src/pipeline/probe";
import { closedPort, fixture, json, serve, silentListener } from "./helpers";

const R4 = fixture("r4-capability.json");
const SMART = fixture("smart-patient.json");
const MB = 1024 * 1024;
/** The 50 MB answer, made once: the memory the test measures is the probe's, not the server's. */
const HUGE = new Uint8Array(50 * MB).fill(0x20);

let dripped = 0;
const server = serve(
  {
    "/partial/metadata": R4,
    "/auth/metadata": () => json('{"resourceType":"OperationOutcome"}', 401),
    "/auth/.well-known/smart-configuration": () => json('{"error":"unauthorized"}', 401),
    "/forbidden/metadata": () => new Response("forbidden", { status: 403 }),
    "/forbidden/.well-known/smart-configuration": () => new Response("forbidden", { status: 403 }),
    "/broken/metadata": () => json('{"resourceType":"CapabilityStatement", "fhirVersion": '),
    "/broken/.well-known/smart-configuration": () => json("{not json"),
    "/html/metadata": () =>
      new Response("<!doctype html><html><body>Welcome to our portal</body></html>", {
        headers: { "content-type": "text/html" },
      }),
    "/html/.well-known/smart-configuration": () =>
      new Response("<html>login</html>", { headers: { "content-type": "text/html" } }),
    "/huge/metadata": () => {
      const chunk = new Uint8Array(MB).fill(0x20);
      let sent = 0;
      return new Response(
        new ReadableStream({
          pull(controller) {
            if (sent++ >= 50) controller.close();
            else controller.enqueue(chunk);
          },
        }),
        { headers: { "content-type": "application/fhir+json" } },
      );
    },
    "/huge/.well-known/smart-configuration": () =>
      new Response(HUGE, { headers: { "content-type": "application/json" } }),
    "/drip/metadata": () =>
      new Response(
        new ReadableStream({
          async pull(controller) {
            await Bun.sleep(1000);
            dripped++;
            if (dripped > 30) controller.close();
            else controller.enqueue(new TextEncoder().encode(" "));
          },
        }),
        { headers: { "content-type": "application/fhir+json" } },
      ),
    "/loop/metadata": () => new Response(null, { status: 302, headers: { location: "/loop/metadata" } }),
    "/loop/.well-known/smart-configuration": () =>
      new Response(null, { status: 301, headers: { location: "/loop/.well-known/smart-configuration?again" } }),
    "/hops/metadata": () => new Response(null, { status: 301, headers: { location: "/hop1" } }),
    "/hop1": () => new Response(null, { status: 302, headers: { location: "/hop2" } }),
    "/hop2": () => new Response(null, { status: 307, headers: { location: "/hop3/final" } }),
    "/hop3/final": R4,
    "/fourhops/metadata": () => new Response(null, { status: 301, headers: { location: "/hops/metadata" } }),
    "/array/metadata": () => json("[1,2,3]"),
    "/array/.well-known/smart-configuration": () => json("{}"),
    "/outcome/metadata": () => json('{"resourceType":"OperationOutcome","issue":[]}'),
    "/bom/metadata": () =>
      new Response(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(R4)]), {
        headers: { "content-type": "application/fhir+json; charset=utf-8" },
      }),
    "/gzip/metadata": () =>
      new Response(gzipSync(R4), { headers: { "content-type": "application/fhir+json", "content-encoding": "gzip" } }),
    "/latin1/metadata": () =>
      new Response(
        new Uint8Array([
          ...new TextEncoder().encode('{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1","publisher":"S'),
          0xe3,
          ...new TextEncoder().encode('o Paulo"}'),
        ]),
        {
          headers: { "content-type": "application/json; charset=ISO-8859-1" },
        },
      ),
    "/picky/metadata": (request) =>
      request.headers.get("accept") === "application/json" ? json(R4) : new Response("not acceptable", { status: 406 }),
    "/picky/.well-known/smart-configuration": SMART,
  },
  (request) => {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/to-private/")) {
      const target = decodeURIComponent(
        path.slice("/to-private/".length).replace(/\/(metadata|\.well-known\/smart-configuration)$/, ""),
      );
      return new Response(null, { status: 302, headers: { location: target } });
    }
    return new Response("not found", { status: 404 });
  },
);

let throttled = 0;
const throttling = serve({
  "/t429/metadata": () => (throttled++ % 2 === 0 ? json("slow down", 429, { "retry-after": "1" }) : json(R4)),
  "/t503/metadata": () => json("busy", 503),
  "/t503/.well-known/smart-configuration": () => json("busy", 503, { "retry-after": "120" }),
});

const silent = silentListener();
const closed = closedPort();

afterAll(() => {
  server.stop();
  throttling.stop();
  silent.stop(true);
});

const opts = { allowPrivate: true, timeoutMs: 1500, defaultRetryDelayMs: 50 };
const probe = (path: string, extra: object = {}) => probeUrl(`${server.url}${path}`, { ...opts, ...extra });

describe("partial and failed", () => {
  test("metadata but SMART 404 → partial, verified", async () => {
    const r = await probe("/partial");
    expect(r.probeStatus).toBe("partial");
    expect(r.entryStatus).toBe("verified");
    expect(r.smart.httpStatus).toBe(404);
    expect(r.smart.body).toBeNull();
    expect(r.summary.smartSupported).toBe(false);
    expect(r.errorKind).toBe("http_status");
  });

  test("401 on both → failed, status unchanged, no body kept", async () => {
    const r = await probe("/auth");
    expect(r.probeStatus).toBe("failed");
    expect(r.entryStatus).toBeNull();
    expect(r.metadata.httpStatus).toBe(401);
    expect(r.smart.httpStatus).toBe(401);
    expect(r.metadata.body).toBeNull();
    expect(r.errorKind).toBe("http_status");
  });

  test("403 on both → failed, status unchanged", async () => {
    const r = await probe("/forbidden");
    expect(r.probeStatus).toBe("failed");
    expect(r.entryStatus).toBeNull();
  });
});

describe("unreachable servers → unresponsive within the time-out", () => {
  test("closed port", async () => {
    const started = performance.now();
    const r = await probeUrl(`http://127.0.0.1:${closed}/fhir`, opts);
    expect(r.probeStatus).toBe("failed");
    expect(r.entryStatus).toBe("unresponsive");
    expect(r.errorKind).toBe("refused");
    // Refused at once, not waited for until the time-out.
    expect(performance.now() - started).toBeLessThan(opts.timeoutMs ?? 10_000);
  });

  test("a server that never answers", async () => {
    const started = performance.now();
    const r = await probeUrl(`http://127.0.0.1:${silent.port}/fhir`, { ...opts, timeoutMs: 400 });
    const elapsed = performance.now() - started;
    expect(r.probeStatus).toBe("failed");
    expect(r.entryStatus).toBe("unresponsive");
    expect(r.errorKind).toBe("timeout");
    expect(r.metadata.httpStatus).toBeNull();
    expect(elapsed).toBeGreaterThanOrEqual(380);
    // The 400 ms time-out, not the default 10 s (with room for a busy machine).
    expect(elapsed).toBeLessThan(5_000);
  });

  test("a name that does not resolve", async () => {
    const lookup = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const r = await probeUrl("https://fhir.nowhere.invalid/r4", { ...opts, lookup });
    expect(r.entryStatus).toBe("unresponsive");
    expect(r.errorKind).toBe("dns");
  });
});

describe("bad answers fail cleanly", () => {
  test("invalid JSON", async () => {
    const r = await probe("/broken");
    expect(r.probeStatus).toBe("failed");
    expect(r.metadata.errorKind).toBe("invalid_json");
    expect(r.smart.errorKind).toBe("invalid_json");
    expect(r.metadata.httpStatus).toBe(200);
    expect(r.metadata.body).toBeNull();
    expect(r.entryStatus).toBeNull();
  });

  test("HTML with status 200", async () => {
    const r = await probe("/html");
    expect(r.probeStatus).toBe("failed");
    expect(r.metadata.errorKind).toBe("invalid_json");
    expect(r.entryStatus).toBeNull();
  });

  test("a 50 MB body stops at the 5 MB cap", async () => {
    // The suite shares one process: what earlier files allocated stays in its RSS, so the probe
    // is judged by what the request adds. Server and probe share this process, and sending the
    // answers costs about 65 MB of socket and stream buffers here; a probe that kept both 50 MB
    // bodies would add 100 MB more.
    const rssBefore = process.memoryUsage().rss;
    // Cut at the cap (body_too_large), not read on to the time-out (body_timeout).
    const r = await probe("/huge", { timeoutMs: 10_000 });
    expect(r.probeStatus).toBe("failed");
    expect(r.metadata.errorKind).toBe("body_too_large"); // streamed, no Content-Length
    expect(r.smart.errorKind).toBe("body_too_large"); // Content-Length says 50 MB
    expect(r.metadata.body).toBeNull();
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * MB);
  });

  test("a body dripping a byte a second fails at the time-out", async () => {
    const started = performance.now();
    const r = await probe("/drip", { timeoutMs: 1500 });
    const elapsed = performance.now() - started;
    expect(r.metadata.errorKind).toBe("body_timeout");
    expect(r.metadata.httpStatus).toBe(200);
    expect(r.probeStatus).toBe("failed");
    expect(r.entryStatus).toBeNull();
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    // The 1.5 s time-out, not the 30 s of the whole drip (with room for a busy machine).
    expect(elapsed).toBeLessThan(10_000);
  });

  test("a redirect loop", async () => {
    const r = await probe("/loop");
    expect(r.probeStatus).toBe("failed");
    expect(r.metadata.errorKind).toBe("too_many_redirects");
    expect(r.smart.errorKind).toBe("too_many_redirects");
    expect(r.metadata.redirects).toBe(3);
    expect(r.metadata.requests).toBe(4);
  });

  test("up to 3 redirects are followed; a 4th is refused", async () => {
    const ok = await probe("/hops");
    expect(ok.metadata.ok).toBe(true);
    expect(ok.metadata.redirects).toBe(3);
    expect(ok.metadata.finalUrl).toBe(`${server.url}/hop3/final`);
    expect(ok.metadata.body).toBe(R4);
    const tooMany = await probe("/fourhops");
    expect(tooMany.metadata.errorKind).toBe("too_many_redirects");
  });

  test.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/fhir",
    "http://127.0.0.2/fhir",
    "http://[::1]/fhir",
    "http://0x0a000001/fhir",
    "http://0251.0376.0251.0376/latest/meta-data/",
    "http://100.64.0.1/",
  ])("a redirect to a private address (%s) with the guard on", async (target) => {
    // The guard is on; only the test server's own address is let through.
    const r = await probe(`/to-private/${encodeURIComponent(target)}`, {
      allowPrivate: false,
      allowAddresses: ["127.0.0.1"],
    });
    expect(r.metadata.errorKind).toBe("blocked");
    expect(r.metadata.redirects).toBe(1);
    expect(r.probeStatus).toBe("failed");
    expect(r.entryStatus).toBeNull();
  });

  test("a redirect to another scheme", async () => {
    const r = await probe(`/to-private/${encodeURIComponent("file:///etc/passwd")}`);
    expect(r.metadata.errorKind).toBe("bad_redirect");
  });

  test("JSON that is not an object, not a CapabilityStatement, not a SMART configuration", async () => {
    const r = await probe("/array");
    expect(r.metadata.errorKind).toBe("not_json_object");
    expect(r.smart.errorKind).toBe("not_smart_configuration");
    expect((await probe("/outcome")).metadata.errorKind).toBe("not_capability_statement");
  });
});

describe("encodings", () => {
  test("a UTF-8 BOM is dropped; the rest is kept exactly", async () => {
    const r = await probe("/bom");
    expect(r.metadata.ok).toBe(true);
    expect(r.metadata.body).toBe(R4);
  });

  test("a gzip-encoded body is stored decoded", async () => {
    const r = await probe("/gzip");
    expect(r.metadata.ok).toBe(true);
    expect(r.metadata.body).toBe(R4);
  });

  test("a declared non-UTF-8 charset is honoured", async () => {
    const r = await probe("/latin1");
    expect(r.metadata.ok).toBe(true);
    expect(r.metadata.json?.publisher).toBe("São Paulo");
  });
});

describe("a good citizen", () => {
  test("Accept falls back after 406: fhir+json, json+fhir, json", async () => {
    server.requests.length = 0;
    const r = await probe("/picky");
    expect(r.probeStatus).toBe("success");
    expect(r.metadata.requests).toBe(3);
    expect(server.requests.filter((q) => q.path === "/picky/metadata").map((q) => q.headers.get("accept"))).toEqual([
      "application/fhir+json",
      "application/json+fhir",
      "application/json",
    ]);
  });

  test("one retry on 429 after Retry-After", async () => {
    throttled = 0;
    const started = performance.now();
    const r = await probeUrl(`${throttling.url}/t429`, opts);
    expect(r.metadata.ok).toBe(true);
    expect(r.metadata.requests).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  test("503: one retry only; a Retry-After beyond 30 s is not waited for", async () => {
    const started = performance.now();
    const r = await probeUrl(`${throttling.url}/t503`, opts);
    expect(r.metadata.httpStatus).toBe(503);
    expect(r.metadata.requests).toBe(2); // first try + one retry after the default delay
    expect(r.smart.httpStatus).toBe(503);
    expect(r.smart.requests).toBe(1); // Retry-After: 120
    expect(performance.now() - started).toBeLessThan(2000);
    expect(r.entryStatus).toBeNull();
  });

  test("at most 2 requests in flight per host", async () => {
    const slow = serve({}, async (request) => {
      await Bun.sleep(30);
      return new URL(request.url).pathname.endsWith("/metadata") ? json(R4) : json(SMART);
    });
    try {
      const prober = new Prober({ allowPrivate: true, concurrency: 16, perHostConcurrency: 2 });
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => prober.probe(`${slow.url}/site${i}`)));
      expect(results.every((r) => r.probeStatus === "success")).toBe(true);
      expect(slow.maxInFlight).toBe(2);
    } finally {
      slow.stop();
    }
  });

  test("global concurrency across hosts", async () => {
    let inFlight = 0;
    let max = 0;
    const servers = Array.from({ length: 6 }, () =>
      serve({}, async () => {
        max = Math.max(max, ++inFlight);
        await Bun.sleep(30);
        inFlight--;
        return json(R4);
      }),
    );
    try {
      const prober = new Prober({ allowPrivate: true, concurrency: 3, perHostConcurrency: 2 });
      const results = await Promise.all(
        servers.flatMap((s) => [prober.probe(`${s.url}/a`), prober.probe(`${s.url}/b`)]),
      );
      expect(results.every((r) => r.probeStatus === "partial")).toBe(true);
      expect(max).toBe(3);
    } finally {
      for (const s of servers) s.stop();
    }
  });
});

describe("https", () => {
  const cert = fixture("tls/cert.pem");
  const key = fixture("tls/key.pem");
  const tlsServer: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert, key },
    fetch: (request): Response => {
      const path = new URL(request.url).pathname;
      if (path === "/r4/metadata")
        return json(request.headers.get("host") === `fhir.tls.test:${tlsServer.port}` ? R4 : '{"wrong":"host"}');
      if (path === "/r4/.well-known/smart-configuration") return json(SMART);
      return new Response("", { status: 404 });
    },
  });
  afterAll(() => tlsServer.stop(true));
  const lookup = async () => [{ address: "127.0.0.1", family: 4 as const }];

  test("connects to the checked address with the name as TLS server name and Host", async () => {
    const r = await probeUrl(`https://fhir.tls.test:${tlsServer.port}/r4`, { ...opts, lookup, ca: cert });
    expect(r.probeStatus).toBe("success");
    expect(r.metadata.body).toBe(R4);
  });

  test("a self-signed certificate nobody trusts is named as such → unresponsive", async () => {
    const r = await probeUrl(`https://fhir.tls.test:${tlsServer.port}/r4`, { ...opts, lookup });
    expect(r.errorKind).toBe("certificate_self_signed");
    expect(r.entryStatus).toBe("unresponsive");
  });

  test("a certificate for another name is named as such", async () => {
    const other = async () => [{ address: "127.0.0.1", family: 4 as const }];
    const r = await probeUrl(`https://other.tls.test:${tlsServer.port}/r4`, { ...opts, lookup: other, ca: cert });
    expect(r.errorKind).toBe("certificate_name_mismatch");
    expect(r.tls).toMatchObject({ verified: false });
  });
});
