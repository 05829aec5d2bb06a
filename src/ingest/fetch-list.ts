import { parseList } from "./parsers";
import type { ListDefinition, ParseResult } from "./types";

/** The list could not be downloaded: network error, time-out or a non-2xx answer. */
export class ListFetchError extends Error {
  override name = "ListFetchError";
}

const MAX_PAGES = 200;

async function fetchText(url: string, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: {
        accept: "application/fhir+json, application/json;q=0.9, text/csv;q=0.8, */*;q=0.1",
        "user-agent": "endpoint-directory-ingest",
      },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "follow",
    });
  } catch (error) {
    const reason =
      (error as Error).name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : (error as Error).message;
    throw new ListFetchError(`network error: ${reason}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new ListFetchError(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  }
  try {
    return await response.text();
  } catch (error) {
    throw new ListFetchError(`network error while reading the body: ${(error as Error).message}`);
  }
}

/** Downloads a list and parses it, following the `next` links of a paged FHIR Bundle. */
export async function fetchAndParseList(list: ListDefinition, url: string, timeoutMs: number): Promise<ParseResult> {
  const seen = new Set<string>();
  const pages: ParseResult[] = [];
  let next: string | null = url;
  while (next !== null && seen.size < MAX_PAGES) {
    seen.add(next);
    const page: ParseResult = parseList(await fetchText(next, timeoutMs), list.columns);
    pages.push(page);
    const link: string | null = page.nextPageUrl ? new URL(page.nextPageUrl, next).href : null;
    next = link !== null && !seen.has(link) ? link : null;
  }
  const [first, ...rest] = pages as [ParseResult, ...ParseResult[]];
  if (rest.length === 0) return first;
  return {
    format: first.format,
    entries: pages.flatMap((p) => p.entries),
    skipped: pages.reduce((sum, p) => sum + p.skipped, 0),
  };
}
