import type { Ready } from "../../../model/capability-rules";
/** A failed request, as the page explains it. */
export interface Problem {
  kind: "bad-request" | "not-found" | "rate-limited" | "server" | "offline";
  status: number | null;
  code: string | null;
  /** The API's own message, when it sent one. */
  detail: string | null;
  /** Seconds to wait, from Retry-After (429 only). */
  retryAfter: number | null;
}

/** What the page reads of an answer's `meta`: the list's totals, bases and readiness, a by-id answer's `unusable`. */
interface Meta {
  total?: number;
  fhirVersionBasis?: string[];
  ready?: Ready[][];
  unusable?: { reason: string; detail: string | null };
}

export type Answer<T> = { ok: true; data: T; meta: Meta | null } | { ok: false; problem: Problem };

/** Seconds from a Retry-After header: whole seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  if (/^\s*\d+\s*$/.test(header)) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export function problemOf(status: number, body: unknown, retryAfter: string | null): Problem {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === "string" ? error.code : null;
  const detail = typeof error?.message === "string" ? error.message : null;
  const kind: Problem["kind"] =
    status === 429 ? "rate-limited" : status === 404 ? "not-found" : status >= 500 ? "server" : "bad-request";
  return { kind, status, code, detail, retryAfter: status === 429 ? retryAfterSeconds(retryAfter) : null };
}

const OFFLINE: Problem = { kind: "offline", status: null, code: null, detail: null, retryAfter: null };

/** The plain sentence the page shows for a problem. */
export function messageFor(problem: Problem, subject: "search" | "endpoint" | "overview"): string {
  switch (problem.kind) {
    case "offline":
      return "The server cannot be reached. Check your connection; the page tries again when you are back online.";
    case "rate-limited": {
      const wait =
        problem.retryAfter === null ? "a minute" : `${problem.retryAfter} second${problem.retryAfter === 1 ? "" : "s"}`;
      return `Too many requests from this address for now. Please wait ${wait}; the page tries again then.`;
    }
    case "not-found":
      return subject === "endpoint"
        ? "No endpoint has this id. The link may be mistyped, or the endpoint is no longer in the directory."
        : `Not found${problem.detail ? `: ${problem.detail}` : "."}`;
    case "server":
      return `The server could not answer (error ${problem.status}). Please try again in a moment.`;
    case "bad-request":
      return `The server did not accept this ${subject === "search" ? "search" : "request"}${problem.detail ? `: ${problem.detail}` : "."}`;
  }
}

/** GETs an API path; every outcome, network failure included, comes back as a value. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { accept: "application/json" }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    return { ok: false, problem: OFFLINE };
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // A proxy's HTML error page or a cut-off body: judged by the status alone.
  }
  const envelope = body as { success?: unknown; data?: unknown; meta?: unknown } | null;
  if (response.ok && envelope?.success === true)
    return { ok: true, data: envelope.data as T, meta: (envelope.meta as Meta) ?? null };
  return {
    ok: false,
    problem: problemOf(response.ok ? 502 : response.status, body, response.headers.get("retry-after")),
  };
}
