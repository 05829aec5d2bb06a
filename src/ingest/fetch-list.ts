import {
  BlockedError,
  fetchCheckedAddress,
  type LookupFn,
  type ResolvedAddress,
  resolveAndCheck,
} from "../probe/guard";
import { decodeListBody } from "./decode";
import { parseList } from "./parsers";
import { ListTooLargeError, readCapped } from "./read-body";
import type { ListDefinition, ParseResult } from "./types";

/** The list could not be downloaded: refused URL, network error, time-out or a non-2xx answer. */
export class ListFetchError extends Error {
  override name = "ListFetchError";
}

export interface ListFetchOptions {
  /** Per request: DNS, connection, headers and the whole body. */
  timeoutMs: number;
  /** The most bytes read for the whole list, every page together. */
  maxBytes: number;
  /** Let requests reach loopback/private/link-local… addresses (ALLOW_PRIVATE_NETWORK=true). */
  allowPrivate: boolean;
  /** Exact addresses let through with the guard on (tests of the guard). */
  allowAddresses?: readonly string[];
  /** Host name resolution (default node:dns, all addresses). */
  lookup?: LookupFn;
}

const MAX_PAGES = 200;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT = "application/fhir+json, application/json;q=0.9, text/csv;q=0.8, */*;q=0.1";

/** `href` as an absolute http(s) URL without fragment, or a ListFetchError saying what it is. */
function httpUrl(href: string, base: string | undefined, what: string): URL {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    throw new ListFetchError(`refused: ${what} ${JSON.stringify(href.slice(0, 200))} is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ListFetchError(`refused: ${what} ${url.href.slice(0, 200)} is not http(s) (${url.protocol})`);
  url.hash = "";
  return url;
}

interface Page {
  bytes: Uint8Array;
  contentType: string | null;
  /** Where the body came from after redirects: the base of a relative `next` link. */
  url: URL;
}

/**
 * GETs one page through the private-address guard, following at most 5 redirects by hand (each
 * hop is http(s) and checked again), reading at most `budget` bytes (null when over it).
 */
async function fetchPage(start: URL, options: ListFetchOptions, budget: number): Promise<Page | null> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = start;
  for (let redirects = 0; ; redirects++) {
    let response: Response;
    try {
      const addresses = await abortable(resolveAndCheck(url, options), signal);
      response = await fetchCheckedAddress(url, addresses, {
        headers: { Accept: ACCEPT, "User-Agent": "endpoint-directory-ingest" },
        signal,
      });
    } catch (error) {
      throw fetchFailure(error, url, options.timeoutMs);
    }
    const location = response.headers.get("location");
    if (REDIRECT_STATUSES.has(response.status) && location !== null) {
      await response.body?.cancel().catch(() => {});
      if (redirects >= MAX_REDIRECTS) throw new ListFetchError(`more than ${MAX_REDIRECTS} redirects`);
      url = httpUrl(location, url.href, "redirect to");
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new ListFetchError(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
    }
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > budget) {
      await response.body?.cancel().catch(() => {});
      return null;
    }
    let bytes: Uint8Array | null;
    try {
      bytes = response.body ? await readCapped(response.body, budget) : new Uint8Array(0);
    } catch (error) {
      throw new ListFetchError(`network error while reading the body: ${describe(error, options.timeoutMs)}`);
    }
    return bytes && { bytes, contentType: response.headers.get("content-type"), url };
  }
}

function describe(error: unknown, timeoutMs: number): string {
  const name = (error as Error)?.name;
  return name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : ((error as Error)?.message ?? String(error));
}

function fetchFailure(error: unknown, url: URL, timeoutMs: number): ListFetchError {
  if (error instanceof ListFetchError) return error;
  if (error instanceof BlockedError)
    return new ListFetchError(`refused by the private-address guard: ${url.href.slice(0, 200)}: ${error.message}`);
  return new ListFetchError(`network error: ${describe(error, timeoutMs)}`);
}

/** A promise that also rejects when the signal aborts (a DNS lookup cannot be cancelled). */
function abortable(promise: Promise<ResolvedAddress[]>, signal: AbortSignal): Promise<ResolvedAddress[]> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Downloads a list and parses it, following the `next` links of a paged FHIR Bundle; `sha256`
 * is the hash of every page's bytes in order. Every page,
 * redirect and `next` link must be http(s) and pass the private-address guard; all pages together
 * may hold at most `maxBytes`; a `next` link back to a page already read, or more than 200 pages,
 * fails it too. Any breach fails the whole list (ListFetchError, ListTooLargeError).
 */
export async function fetchAndParseList(
  list: ListDefinition,
  url: string,
  options: ListFetchOptions,
): Promise<ParseResult> {
  const seen = new Set<string>();
  const pages: ParseResult[] = [];
  const hasher = new Bun.CryptoHasher("sha256");
  let used = 0;
  let next: URL | null = httpUrl(url, undefined, "list URL");
  while (next !== null) {
    // A list that pages on and on, or whose `next` links come back to a page already read, has
    // no end we can trust: it fails like any other failed download, nothing is changed.
    if (seen.size >= MAX_PAGES) throw new ListFetchError(`more than ${MAX_PAGES} pages (next links)`);
    seen.add(next.href);
    const page = await fetchPage(next, options, options.maxBytes - used);
    if (page === null) throw new ListTooLargeError(`the list at ${url}`, options.maxBytes);
    used += page.bytes.byteLength;
    hasher.update(page.bytes);
    const parsed: ParseResult = parseList(decodeListBody(page.bytes, page.contentType), list.columns);
    pages.push(parsed);
    const link: URL | null = parsed.nextPageUrl ? httpUrl(parsed.nextPageUrl, page.url.href, "next link") : null;
    if (link !== null && seen.has(link.href))
      throw new ListFetchError(`next links loop: page ${pages.length} links back to ${link.href.slice(0, 200)}`);
    next = link;
  }
  const [first, ...rest] = pages as [ParseResult, ...ParseResult[]];
  const sha256 = hasher.digest("hex");
  if (rest.length === 0) return { ...first, sha256 };
  return {
    format: first.format,
    entries: pages.flatMap((p) => p.entries),
    skipped: pages.reduce((sum, p) => sum + p.skipped, 0),
    sha256,
  };
}
