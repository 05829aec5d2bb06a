/**
 * The fault farm: many local "hosts" (every 127.x.y.z is a distinct local address), each answering
 * the probe the way some real FHIR server does, well or badly. A host serves any number of base
 * URLs (`<origin>/t/<n>`), each with `/metadata` and `/.well-known/smart-configuration`. The farm
 * counts, per host, the requests in flight at once (the probe's per-host politeness, measured on
 * the server side) and, per base URL, how often its /metadata was asked for.
 *
 * Loopback only: every listener binds a 127.0.0.0/8 address.
 */
import { gzipSync } from "node:zlib";
import { Rng } from "../generate/prng";
import { type FarmCertificates, makeCertificates } from "./certs";

/** What a host does; docs/deploy.md ("What the probe makes of a server") says how each is classified. */
export const BEHAVIOURS = [
  "ok",
  "slow",
  "silent",
  "closed",
  "reset",
  "status-401",
  "status-403",
  "status-500",
  "html-login",
  "xml-only",
  "too-large",
  "endless",
  "drip",
  "redirect-chain",
  "redirect-loop",
  "cross-host",
  "gzip-bomb",
  "tls-ok",
  "expired-cert",
  "self-signed",
  "dstu2",
  "bom",
  "wrong-content-type",
] as const;
/**
 * JSON just under the body cap (hostileJson): not among BEHAVIOURS, so that a national-like farm
 * and the farm test do not serve megabytes per host; bench/probe-hostile.ts and
 * test/pipeline/probe/hostile-json.test.ts start farms of them.
 */
export const HOSTILE_JSON_BEHAVIOURS = [
  "json-deep",
  "json-wide",
  "json-keys",
  "json-long-string",
  "json-padded",
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number] | (typeof HOSTILE_JSON_BEHAVIOURS)[number];

export interface FarmDocuments {
  /** CapabilityStatement texts (served round-robin by the well-behaved hosts). */
  metadata: readonly string[];
  smart: readonly string[];
  /** A DSTU2 Conformance text. */
  dstu2: string;
}

export interface FarmOptions {
  documents: FarmDocuments;
  /** Delay range of `slow` hosts, ms. Default [1000, 8000]. */
  slowMs?: readonly [number, number];
  /** The probe's body cap: `too-large` and `gzip-bomb` exceed it. Default 5 MB. */
  maxBodyBytes?: number;
  /** Seed of the slow hosts' delays. */
  seed?: number;
  /** The first address is 127.<firstOctet>.0.1. Default 40. */
  firstOctet?: number;
  /**
   * Awaited by a `slow` host after its delay, before it answers: a test holds a probe run in its
   * middle with it (say, the first ten answers, then none until the test has looked).
   */
  hold?: () => Promise<void>;
}

export interface FarmHost {
  index: number;
  address: string;
  behaviour: Behaviour;
  /** `http(s)://address:port`. */
  origin: string;
  /** Requests in flight right now, and the most ever at once. */
  inFlight: number;
  maxInFlight: number;
  requests: number;
}

export interface Farm {
  hosts: FarmHost[];
  certificates: FarmCertificates | null;
  /** The base URL of tenant `n` of a host. */
  baseUrl(host: FarmHost, n?: number): string;
  /** /metadata requests per base URL path (`/t/<n>` on an origin), keyed by base URL. */
  metadataRequests: Map<string, number>;
  /** Stops one host's listener (it goes dark: connections are refused). */
  stopHost(host: FarmHost): Promise<void>;
  /** Stops every listener. */
  stop(): Promise<void>;
}

const TLS_BEHAVIOURS = new Set<Behaviour>(["tls-ok", "expired-cert", "self-signed"]);
const METADATA_SUFFIX = "/metadata";
const SMART_SUFFIX = "/.well-known/smart-configuration";

/** The n-th farm address: 127.<first + n / 65024>.<n / 254 % 256>.<n % 254 + 1>. */
function farmAddress(n: number, firstOctet = 40): string {
  return `127.${firstOctet + Math.floor(n / 65_024)}.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
}

const json = (body: string | Uint8Array, status = 200, type = "application/fhir+json") =>
  new Response(body, { status, headers: { "content-type": type } });

/**
 * Hostile JSON just under the body cap, each a CapabilityStatement (for /metadata) or a SMART
 * configuration (for the other document) that parses: nested `depth` arrays deep, an array of
 * about 1.2M `{}`, an object with hundreds of thousands of distinct keys, one string of nearly the
 * whole cap, and a real statement padded with whitespace (valid, within every structural bound).
 */
export function hostileJson(behaviour: Behaviour, doc: "metadata" | "smart", cap: number, real: string): string {
  const head =
    doc === "metadata"
      ? '{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1",'
      : '{"token_endpoint":"https://example.org/token",';
  const room = cap - head.length - 64;
  switch (behaviour) {
    case "json-deep": {
      const depth = Math.floor(room / 2);
      return `${head}"rest":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    }
    case "json-wide":
      return `${head}"rest":[{"resource":[${"{},".repeat(Math.floor(room / 3) - 1)}{}]}]}`;
    case "json-keys": {
      const keys: string[] = [];
      let size = 0;
      for (let i = 0; size < room - 32; i++) {
        const key = `"k${i.toString(36)}":0`;
        keys.push(key);
        size += key.length + 1;
      }
      return `${head}"extension":{${keys.join(",")}}}`;
    }
    case "json-long-string":
      return `${head}"description":"${"x".repeat(room - 20)}"}`;
    default: {
      // json-padded: the real document, whitespace after its first brace.
      return `{${" ".repeat(Math.max(0, cap - real.length - 16))}${real.slice(1)}`;
    }
  }
}

const OPERATION_OUTCOME = (code: string) =>
  JSON.stringify({ resourceType: "OperationOutcome", issue: [{ severity: "error", code }] });

/** Starts one host per behaviour listed (in order). */
export async function startFarm(behaviours: readonly Behaviour[], options: FarmOptions): Promise<Farm> {
  const { documents } = options;
  const [slowMin, slowMax] = options.slowMs ?? [1000, 8000];
  const cap = options.maxBodyBytes ?? 5 * 1024 * 1024;
  const rng = new Rng(options.seed ?? 1);
  const firstOctet = options.firstOctet ?? 40;
  const hosts: FarmHost[] = behaviours.map((behaviour, index) => ({
    index,
    address: farmAddress(index, firstOctet),
    behaviour,
    origin: "",
    inFlight: 0,
    maxInFlight: 0,
    requests: 0,
  }));
  const tlsAddresses = hosts.filter((h) => TLS_BEHAVIOURS.has(h.behaviour)).map((h) => h.address);
  const certificates = tlsAddresses.length > 0 ? makeCertificates(tlsAddresses) : null;
  const metadataRequests = new Map<string, number>();
  const tooLarge = new Uint8Array(cap + 1).fill(0x20);
  const bomb = hosts.some((h) => h.behaviour === "gzip-bomb") ? gzipSync(new Uint8Array(cap * 4).fill(0x20)) : null;
  const encoder = new TextEncoder();
  const stoppers = new Map<number, () => void | Promise<void>>();
  const okHosts = hosts.filter((h) => h.behaviour === "ok");
  // Built once per behaviour and document, before any host listens (each is about the size of the cap).
  const hostile = new Map<string, Uint8Array>();
  for (const behaviour of new Set(behaviours)) {
    if (!behaviour.startsWith("json-")) continue;
    for (const doc of ["metadata", "smart"] as const) {
      const real = doc === "metadata" ? documents.metadata[0]! : documents.smart[0]!;
      hostile.set(`${behaviour}/${doc}`, encoder.encode(hostileJson(behaviour, doc, cap, real)));
    }
  }
  const hostileBody = (behaviour: Behaviour, doc: "metadata" | "smart") => hostile.get(`${behaviour}/${doc}`)!;

  const enter = (host: FarmHost) => {
    host.requests++;
    host.inFlight++;
    if (host.inFlight > host.maxInFlight) host.maxInFlight = host.inFlight;
  };
  const leave = (host: FarmHost) => {
    host.inFlight--;
  };
  /** A body that never ends: `chunk` every `everyMs`; `done` when the client goes away. */
  const endless = (done: () => void, chunk: Uint8Array, everyMs: number) => {
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (everyMs > 0) await Bun.sleep(everyMs);
        try {
          controller.enqueue(chunk);
        } catch {
          done();
        }
      },
      cancel: done,
    });
  };

  const answer = async (host: FarmHost, request: Request, done: () => void): Promise<Response> => {
    const url = new URL(request.url);
    let path = url.pathname;
    const doc = path.endsWith(METADATA_SUFFIX) ? "metadata" : path.endsWith(SMART_SUFFIX) ? "smart" : null;
    if (doc === null) return new Response("not found", { status: 404 });
    const base = path.slice(0, -(doc === "metadata" ? METADATA_SUFFIX : SMART_SUFFIX).length);
    const tenant = Number(/\/t\/(\d+)$/.exec(base)?.[1] ?? 0);
    if (doc === "metadata" && !/^\/(hop|loop)\//.test(path)) {
      const key = `${host.origin}${base}`;
      metadataRequests.set(key, (metadataRequests.get(key) ?? 0) + 1);
    }
    const pick = (list: readonly string[]) => list[(host.index + tenant) % list.length]!;
    const good = () => json(doc === "metadata" ? pick(documents.metadata) : pick(documents.smart));
    switch (host.behaviour) {
      case "ok":
      case "tls-ok":
      case "expired-cert":
      case "self-signed":
        return good();
      case "slow":
        await Bun.sleep(slowMin + rng.int(slowMax - slowMin));
        await options.hold?.();
        return good();
      case "status-401":
      case "status-403":
      case "status-500": {
        const status = Number(host.behaviour.slice(-3));
        return json(OPERATION_OUTCOME(status === 500 ? "exception" : "security"), status);
      }
      case "html-login":
        return json(
          '<!doctype html><html><head><title>Sign in</title></head><body><form method="post"><input name="user"><input name="password" type="password"></form></body></html>',
          200,
          "text/html; charset=utf-8",
        );
      case "xml-only":
        return json(
          doc === "metadata"
            ? '<?xml version="1.0" encoding="UTF-8"?><CapabilityStatement xmlns="http://hl7.org/fhir"><status value="active"/><fhirVersion value="4.0.1"/></CapabilityStatement>'
            : "<smart/>",
          200,
          "application/fhir+xml",
        );
      case "too-large":
        return json(tooLarge);
      case "endless":
        return new Response(endless(done, encoder.encode(" ".repeat(65_536)), 0), {
          headers: { "content-type": "application/fhir+json" },
        });
      case "drip":
        return new Response(endless(done, encoder.encode(" "), 200), {
          headers: { "content-type": "application/fhir+json" },
        });
      case "redirect-chain": {
        // /t/n/metadata → /hop/2/t/n/metadata → /hop/1/t/n/metadata → /done/t/n/metadata (3 redirects)
        const hop = /^\/hop\/(\d)(\/.*)$/.exec(path);
        if (path.startsWith("/done/")) return good();
        if (!hop) return Response.redirect(`/hop/2${path}`, 301);
        const left = Number(hop[1]) - 1;
        path = hop[2]!;
        return Response.redirect(left > 0 ? `/hop/${left}${path}` : `/done${path}`, left > 0 ? 302 : 307);
      }
      case "redirect-loop":
        return Response.redirect(path.startsWith("/loop/") ? path.slice(5) : `/loop${path}`, 302);
      case "cross-host": {
        const partner = okHosts[host.index % Math.max(1, okHosts.length)];
        if (!partner) return new Response("no partner", { status: 500 });
        return Response.redirect(`${partner.origin}${path}`, 301);
      }
      case "gzip-bomb":
        return new Response(bomb, {
          headers: { "content-type": "application/fhir+json", "content-encoding": "gzip" },
        });
      case "dstu2":
        return doc === "metadata" ? json(documents.dstu2) : new Response("not found", { status: 404 });
      case "bom":
        return json(`\uFEFF${doc === "metadata" ? pick(documents.metadata) : pick(documents.smart)}`);
      case "wrong-content-type":
        return json(doc === "metadata" ? pick(documents.metadata) : pick(documents.smart), 200, "text/plain");
      case "json-deep":
      case "json-wide":
      case "json-keys":
      case "json-long-string":
      case "json-padded":
        return json(hostileBody(host.behaviour, doc));
      default:
        return new Response("not found", { status: 404 });
    }
  };

  for (const host of hosts) {
    if (host.behaviour === "closed") {
      host.origin = `http://${host.address}:9`;
      continue;
    }
    if (host.behaviour === "silent" || host.behaviour === "reset") {
      const listener = Bun.listen<{ open: boolean }>({
        hostname: host.address,
        port: 0,
        socket: {
          open(socket) {
            socket.data = { open: true };
            enter(host);
          },
          data(socket) {
            if (host.behaviour === "reset") socket.terminate();
          },
          close(socket) {
            if (socket.data?.open) leave(host);
            socket.data = { open: false };
          },
          error() {},
        },
      });
      host.origin = `http://${host.address}:${listener.port}`;
      stoppers.set(host.index, () => listener.stop(true));
      continue;
    }
    const tls =
      certificates === null || !TLS_BEHAVIOURS.has(host.behaviour)
        ? undefined
        : host.behaviour === "expired-cert"
          ? certificates.expired
          : host.behaviour === "self-signed"
            ? certificates.selfSigned
            : certificates.valid;
    const streams = host.behaviour === "endless" || host.behaviour === "drip";
    const server = Bun.serve({
      hostname: host.address,
      port: 0,
      tls,
      idleTimeout: 0,
      async fetch(request) {
        enter(host);
        // A request stops counting when its client goes away (a killed prober), whatever the handler still does.
        let left = false;
        const done = () => {
          if (!left) leave(host);
          left = true;
        };
        request.signal.addEventListener("abort", done, { once: true });
        let streaming = false;
        try {
          const response = await answer(host, request, done);
          streaming = streams && response.status === 200;
          return response;
        } finally {
          if (!streaming) done();
        }
      },
    });
    host.origin = `${tls ? "https" : "http"}://${host.address}:${server.port}`;
    stoppers.set(host.index, () => server.stop(true));
  }

  return {
    hosts,
    certificates,
    metadataRequests,
    baseUrl: (host, n = 0) => `${host.origin}/t/${n}`,
    async stopHost(host) {
      const stop = stoppers.get(host.index);
      stoppers.delete(host.index);
      await stop?.();
    },
    async stop() {
      const all = [...stoppers.values()];
      stoppers.clear();
      await Promise.all(all.map((stop) => stop()));
    },
  };
}
