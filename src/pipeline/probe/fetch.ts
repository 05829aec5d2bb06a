import { jsonOverBounds } from "../../model/bounded-json";
import type { DocumentResult, ErrorKind } from "../../model/probe";
import type { BodyBudget, BodyLease } from "./body-budget";
import { whatDeriveReads } from "./derive";
import {
  type DnsCache,
  DnsError,
  fetchCheckedAddress,
  type LookupFn,
  type ResolvedAddress,
  resolveAndCheck,
} from "./guard";
import { classifyFetchError, describeError, parseRetryAfter } from "./http-errors";
import type { HostLimiter } from "./limiter";

export type DocumentKind = "metadata" | "smart";

/** Everything one document fetch needs; a Prober builds it once per run. */
export interface FetcherConfig {
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  userAgent: string;
  allowPrivate: boolean;
  /** Exact addresses let through with the guard on (tests of the guard). */
  allowAddresses?: readonly string[];
  lookup?: LookupFn;
  connectTo?: (url: URL) => URL;
  limiter: HostLimiter;
  dns: DnsCache;
  /** Hosts (host:port) that answered anything in this run, and those that timed out without ever answering. */
  hostsAnswered: Set<string>;
  hostsSilent: Set<string>;
  /** Per host not yet heard from: the first request to it, which the others wait for. */
  hostsFirstContact: Map<string, Promise<void>>;
  /** The longest Retry-After we wait for before the single retry of a 429/503. */
  maxRetryAfterMs: number;
  /** The wait before that retry when the server sends no Retry-After. */
  defaultRetryDelayMs: number;
  /** Extra trusted CA certificates (PEM), e.g. a test server's self-signed one. */
  ca?: string | string[];
  /** The room the run gives large bodies (body-budget.ts). */
  bodies: BodyBudget;
  /** Aborts every request of the run. */
  signal?: AbortSignal;
}

const METADATA_ACCEPTS = ["application/fhir+json", "application/json+fhir", "application/json"];
const SMART_ACCEPTS = ["application/json"];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** One HTTP exchange: a response (maybe with a body), or an error before/while reading it. */
interface Exchange {
  status: number | null;
  location: string | null;
  retryAfter: string | null;
  body: string | null;
  errorKind: ErrorKind | null;
  errorMessage: string | null;
  url: string;
}

class BodyTooLargeError extends Error {}
/** A large body fell behind its pace (body-budget.ts): cut, its room given back. */
class BodyTooSlowError extends Error {}
/** A large body met no room (body-budget.ts): the request is dropped and asked again with room reserved. */
class NoRoomError extends Error {}
const NO_ROOM = Symbol("no room for a large body");

/**
 * Fetches `{base}/metadata` or `{base}/.well-known/smart-configuration` politely: Accept
 * fall-backs on 406/415, manual redirects (each hop through the guard), one retry on 429/503.
 * `onWaitForRoom` is called when it has to wait its turn for room for a large body.
 */
export async function fetchDocument(
  baseUrl: string,
  kind: DocumentKind,
  config: FetcherConfig,
  onWaitForRoom?: () => void,
): Promise<DocumentResult> {
  // The document's room for a large body (body-budget.ts), given back once it is read and checked.
  const lease = config.bodies.lease(onWaitForRoom);
  try {
    return await fetchWithLease(baseUrl, kind, config, lease);
  } finally {
    // Room still held here is a large body read whole (a body cut or dropped gave it back at once).
    const readLarge = lease.room > 0;
    lease.release();
    // Its bytes, text and checks are garbage now. Collecting them at once keeps the run near the
    // bodies its room holds: JavaScriptCore would let several accumulate first
    // (`bench/probe-hostile.ts --hosts 40` with two large bodies at a time: 364 MB peak without this, 173 MB with it).
    // A body cut for its pace was never decoded; its bytes are left to the usual collections.
    if (readLarge) Bun.gc(true);
  }
}

async function fetchWithLease(
  baseUrl: string,
  kind: DocumentKind,
  config: FetcherConfig,
  lease: BodyLease,
): Promise<DocumentResult> {
  const started = performance.now();
  const target = documentUrl(baseUrl, kind);
  let requests = 0;
  let redirects = 0;
  let last: Exchange;
  if (target === null) {
    last = failure(baseUrl, "invalid_url", "not a valid URL");
  } else {
    const accepts = kind === "metadata" ? METADATA_ACCEPTS : SMART_ACCEPTS;
    for (let attempt = 0; ; attempt++) {
      let chain: { exchange: Exchange; redirects: number; requests: number } | undefined;
      for (let i = 0; i < accepts.length; i++) {
        chain = await followRedirects(target, accepts[i]!, config, lease);
        requests += chain.requests;
        const status = chain.exchange.status;
        if (!((status === 406 || status === 415) && i + 1 < accepts.length)) break;
      }
      last = chain!.exchange;
      redirects = chain!.redirects;
      if (attempt > 0 || (last.status !== 429 && last.status !== 503)) break;
      const wait = parseRetryAfter(last.retryAfter) ?? config.defaultRetryDelayMs;
      if (wait > config.maxRetryAfterMs) break;
      if (!(await sleep(wait, config.signal))) break;
    }
  }
  return interpret(last, kind, { redirects, requests, durationMs: Math.round(performance.now() - started) });
}

/** `{base}/metadata`; the base keeps its path and drops any query or fragment. */
export function documentUrl(baseUrl: string, kind: DocumentKind): URL | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  url.search = "";
  url.hash = "";
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path + (kind === "metadata" ? "/metadata" : "/.well-known/smart-configuration");
  return url;
}

async function followRedirects(start: URL, accept: string, config: FetcherConfig, lease: BodyLease) {
  let current = start;
  let redirects = 0;
  let requests = 0;
  for (;;) {
    const exchange = await exchangeOnce(current, accept, config, lease);
    requests++;
    if (exchange.status === null || !REDIRECT_STATUSES.has(exchange.status) || exchange.location === null) {
      return { exchange, redirects, requests };
    }
    if (redirects >= config.maxRedirects) {
      return {
        exchange: {
          ...exchange,
          errorKind: "too_many_redirects" as const,
          errorMessage: `more than ${config.maxRedirects} redirects`,
        },
        redirects,
        requests,
      };
    }
    let next: URL;
    try {
      next = new URL(exchange.location, current);
    } catch {
      return {
        exchange: {
          ...exchange,
          errorKind: "bad_redirect" as const,
          errorMessage: `unusable Location ${exchange.location.slice(0, 200)}`,
        },
        redirects,
        requests,
      };
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      return {
        exchange: {
          ...exchange,
          errorKind: "bad_redirect" as const,
          errorMessage: `redirect to unsupported scheme ${next.protocol}`,
        },
        redirects,
        requests,
      };
    }
    next.hash = "";
    redirects++;
    current = next;
  }
}

function failure(url: string, kind: ErrorKind, message: string, status: number | null = null): Exchange {
  return { status, location: null, retryAfter: null, body: null, errorKind: kind, errorMessage: message, url };
}

/** One request to one URL: guard, slot, fetch, body. Never throws. */
async function exchangeOnce(logical: URL, accept: string, config: FetcherConfig, lease: BodyLease): Promise<Exchange> {
  const url = logical.href;
  let target: URL;
  try {
    target = config.connectTo ? config.connectTo(new URL(logical.href)) : logical;
  } catch (error) {
    return failure(url, "invalid_url", `connectTo failed: ${describeError(error)}`);
  }
  if (config.signal?.aborted) return failure(url, "timeout", "run aborted");

  let addresses: ResolvedAddress[];
  try {
    addresses = await withTimeout(
      resolveAndCheck(target, config, config.dns),
      config.timeoutMs,
      () => new DnsError(`DNS lookup of ${target.hostname} timed out`),
    );
  } catch (error) {
    const kind = (error as { kind?: ErrorKind }).kind ?? "dns";
    return failure(url, kind, describeError(error));
  }

  const hostKey = logical.host;
  // A host that let a request time out before answering anything is not asked again in this run:
  // its other URLs would each hold two slots for the whole time-out.
  const silent = () => failure(url, "timeout", "the host did not answer an earlier request of this run");
  if (config.hostsSilent.has(hostKey)) return silent();
  // Until a host has answered once, one request goes first and the others wait for it, so a
  // silent host holds one slot for the time-out, not two.
  let firstContact: (() => void) | null = null;
  if (!config.hostsAnswered.has(hostKey)) {
    const pending = config.hostsFirstContact.get(hostKey);
    if (pending) {
      await pending;
      // Answered, or failed otherwise (refused, DNS…): no reason to wait again; silent: not asked.
      if (config.hostsSilent.has(hostKey)) return silent();
    } else {
      let done!: () => void;
      const pendingOf = new Promise<void>((resolve) => {
        done = resolve;
      });
      config.hostsFirstContact.set(hostKey, pendingOf);
      firstContact = () => {
        if (config.hostsFirstContact.get(hostKey) !== pendingOf) return;
        config.hostsFirstContact.delete(hostKey);
        done();
      };
    }
  }
  try {
    // Dropped for want of room: asked again holding room for a whole body, reserved in turn
    // outside its slot, then first in line for its host's next slot.
    for (let reserve = false; ; reserve = true) {
      if (reserve && !(await lease.reserve(config.signal))) return failure(url, "timeout", "run aborted");
      const exchange = await exchangeInSlot(
        target,
        addresses,
        url,
        hostKey,
        accept,
        config,
        silent,
        firstContact,
        lease,
        reserve,
      );
      if (exchange !== NO_ROOM) return exchange;
    }
  } finally {
    firstContact?.();
  }
}

async function exchangeInSlot(
  target: URL,
  addresses: ResolvedAddress[],
  url: string,
  hostKey: string,
  accept: string,
  config: FetcherConfig,
  silent: () => Exchange,
  /** Lets the requests waiting for this host go, once it answered (or this request ended). */
  answered: (() => void) | null,
  lease: BodyLease,
  /** Asked again holding room for a whole body (body-budget.ts): first in line for a slot. */
  reserve: boolean,
): Promise<Exchange | typeof NO_ROOM> {
  await config.limiter.acquire(hostKey, reserve);
  if (config.hostsSilent.has(hostKey)) {
    lease.release();
    config.limiter.release(hostKey);
    return silent();
  }
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(new DOMException("run aborted", "AbortError"));
  config.signal?.addEventListener("abort", onRunAbort, { once: true });
  const timeOut = () => controller.abort(new DOMException("time-out", "TimeoutError"));
  const timer = setTimeout(timeOut, config.timeoutMs);
  /** A large body is read holding room for its bytes, or dropped (the abort below) to be asked again. */
  const room = (total: number) => {
    if (!lease.grow(total)) throw new NoRoomError();
  };
  let tooSlow: BodyTooSlowError | null = null;
  /** Once large, the body must keep pace (body-budget.ts), else the request is cut. */
  const pace = paceKeeper(config.bodies.pace, (error) => {
    tooSlow = error;
    controller.abort(error);
  });
  // Asked again holding room reserved: the pace counts from the request on.
  if (reserve) pace.received(0, true);
  /** A body read and returned keeps its room until it is checked (fetchDocument); anything else gives it back here. */
  let keepRoom = false;
  let phase: "connect" | "body" = "connect";
  let status: number | null = null;
  try {
    const response = await fetchCheckedAddress(target, addresses, {
      headers: { Accept: accept, "User-Agent": config.userAgent },
      signal: controller.signal,
      ca: config.ca,
    });
    status = response.status;
    config.hostsAnswered.add(hostKey);
    answered?.();
    const location = response.headers.get("location");
    const retryAfter = response.headers.get("retry-after");
    if (status < 200 || status > 299) {
      await discard(response);
      const isRedirect = REDIRECT_STATUSES.has(status) && location !== null;
      return {
        status,
        location,
        retryAfter,
        body: null,
        url,
        errorKind: isRedirect ? null : "http_status",
        errorMessage: isRedirect ? null : `HTTP ${status}`,
      };
    }
    phase = "body";
    const bytes = await readCapped(response, config.maxBodyBytes, config.bodies.freeBytes, room, pace.received);
    keepRoom = true;
    return {
      status,
      location,
      retryAfter,
      body: decode(bytes, response.headers.get("content-type")),
      errorKind: null,
      errorMessage: null,
      url,
    };
  } catch (error) {
    if (error instanceof BodyTooLargeError) return failure(url, "body_too_large", error.message, status);
    if (error instanceof NoRoomError) return NO_ROOM;
    if (tooSlow !== null) return failure(url, "body_timeout", (tooSlow as BodyTooSlowError).message, status);
    let kind = classifyFetchError(error);
    if (controller.signal.aborted && kind !== "timeout") kind = "timeout";
    if (phase === "body" && kind === "timeout") kind = "body_timeout";
    if (kind === "timeout" && status === null && !config.signal?.aborted && !config.hostsAnswered.has(hostKey))
      config.hostsSilent.add(hostKey);
    return failure(url, kind, describeError(error), status);
  } finally {
    clearTimeout(timer);
    pace.stop();
    config.signal?.removeEventListener("abort", onRunAbort);
    if (!controller.signal.aborted) controller.abort(new DOMException("done", "AbortError"));
    // Given back before a redirect, a retry's wait or another request: room waits for nothing else.
    if (!keepRoom) lease.release();
    config.limiter.release(hostKey);
  }
}

async function discard(response: Response) {
  try {
    await response.body?.cancel();
  } catch {
    // The connection is closed by the abort in exchangeOnce anyway.
  }
}

/**
 * Watches the pace of a large body: `received(total, large)` before each read;
 * from the first call with `large`, the bytes received since must be at least
 * `bytesPerSecond` × (time since − `graceMs`), checked by a timer set for the moment they would
 * fall behind, which calls `cut` when they have.
 */
function paceKeeper(
  { bytesPerSecond, graceMs }: { bytesPerSecond: number; graceMs: number },
  cut: (error: BodyTooSlowError) => void,
) {
  let start = -1;
  let startBytes = 0;
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** When the bytes received so far stop being enough. */
  const due = () => start + graceMs + ((bytes - startBytes) / bytesPerSecond) * 1000;
  const check = () => {
    const late = performance.now() - due();
    if (late >= 0)
      return cut(
        new BodyTooSlowError(
          `a large body arrived slower than ${Math.round(bytesPerSecond / 1024)} KB/s (${bytes} bytes read)`,
        ),
      );
    timer = setTimeout(check, Math.max(1, -late));
  };
  return {
    received(total: number, large: boolean) {
      bytes = total;
      if (!large || start >= 0) return;
      start = performance.now();
      startBytes = total;
      timer = setTimeout(check, graceMs);
    },
    stop: () => clearTimeout(timer),
  };
}

/**
 * Reads the body up to `maxBytes`; past `freeBytes` (declared or read), asks for `room` for the
 * bytes read so far after each read (it throws when there is none). Tells `received` the bytes
 * read so far, and whether the body is large, before each read.
 */
async function readCapped(
  response: Response,
  maxBytes: number,
  freeBytes: number,
  room: (total: number) => void,
  received: (total: number, large: boolean) => void,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await discard(response);
    throw new BodyTooLargeError(`Content-Length ${declared} exceeds the ${maxBytes}-byte cap`);
  }
  if (!response.body) return new Uint8Array(0);
  let large = Number.isFinite(declared) && declared > freeBytes;
  // Declared large: room for its first `freeBytes` before reading any, or dropped unread.
  if (large) room(freeBytes);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    received(total, large);
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      try {
        await reader.cancel();
      } catch {
        // ignore
      }
      throw new BodyTooLargeError(`body exceeds the ${maxBytes}-byte cap`);
    }
    if (total > freeBytes) large = true;
    if (large) room(total);
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Decodes with the charset the server names (UTF-8 by default, as JSON requires); drops a BOM. */
function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder((charset ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(bytes);
}

function interpret(
  last: Exchange,
  kind: DocumentKind,
  counts: { redirects: number; requests: number; durationMs: number },
): DocumentResult {
  const base = { httpStatus: last.status, finalUrl: last.url, ...counts };
  const fail = (errorKind: ErrorKind, errorMessage: string): DocumentResult => ({
    ...base,
    ok: false,
    body: null,
    json: null,
    errorKind,
    errorMessage,
  });
  if (last.errorKind) return fail(last.errorKind, last.errorMessage ?? last.errorKind);
  if (last.status === null || last.status < 200 || last.status > 299 || last.body === null)
    return fail("http_status", `HTTP ${last.status}`);
  const over = jsonOverBounds(last.body);
  if (over !== null) return fail("body_too_complex", `the body has ${over}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(last.body);
  } catch {
    return fail("invalid_json", "the body is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return fail("not_json_object", "the body is JSON but not an object");
  const json = parsed as Record<string, unknown>;
  if (kind === "metadata" && json.resourceType !== "CapabilityStatement" && json.resourceType !== "Conformance") {
    return fail(
      "not_capability_statement",
      `resourceType is ${JSON.stringify(json.resourceType ?? null)?.slice(0, 60)}`,
    );
  }
  if (kind === "smart" && !looksLikeSmartConfiguration(json)) {
    return fail("not_smart_configuration", "no authorization_endpoint, token_endpoint or capabilities");
  }
  return { ...base, ok: true, body: last.body, json: whatDeriveReads(json), errorKind: null, errorMessage: null };
}

/** A SMART configuration names at least one of its endpoints or its capabilities. */
function looksLikeSmartConfiguration(json: Record<string, unknown>): boolean {
  return (
    typeof json.authorization_endpoint === "string" ||
    typeof json.token_endpoint === "string" ||
    Array.isArray(json.capabilities)
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
