import { ApiError } from "../http/api-error";
import { acceptsGzip } from "../http/compression";
import type { DownloadFile, DownloadFiles } from "./files";

/** The variant a client gets: gzip when it accepts gzip, else the file as it is. */
export const variantFor = (files: DownloadFiles, request: Request): DownloadFile =>
  acceptsGzip(request) ? files.gzip : files.identity;

/** Ranges longer than this header text are not ours to parse: the whole file is sent. */
const LONGEST_RANGE = 100;

/**
 * The byte range to send of a file of `size` bytes (RFC 9110 §14): null for the whole file (no
 * Range, several ranges, a Range we do not read, or an If-Range naming another version of the
 * file), the first and last byte of the one range asked for, or ApiError 416 when it starts past
 * the end.
 */
function wantedRange(request: Request, file: DownloadFile): [number, number] | null {
  const header = request.headers.get("range");
  if (header === null || header.length > LONGEST_RANGE) return null;
  const ifRange = request.headers.get("if-range");
  // If-Range: the strong ETag of this very file, else the whole file. Not a date: Last-Modified
  // names the dataset version, which the file and its gzip copy share.
  if (ifRange !== null && ifRange.trim() !== file.etag) return null;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (match === null || (match[1] === "" && match[2] === "")) return null;
  const size = file.size;
  let first: number;
  let last: number;
  if (match[1] === "") {
    // The last N bytes.
    const suffix = Number(match[2]);
    if (suffix === 0) throw unsatisfiable(size);
    first = Math.max(0, size - suffix);
    last = size - 1;
  } else {
    first = Number(match[1]);
    last = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== "" && Number(match[2]) < first) return null;
  }
  if (first >= size) throw unsatisfiable(size);
  return [first, last];
}

const unsatisfiable = (size: number) =>
  new ApiError(416, "RANGE_NOT_SATISFIABLE", `Range: the file has ${size} bytes`, {
    "content-range": `bytes */${size}`,
  });

/** The 200 or 206 of a download file: its bytes from disk (sent by the runtime, no copy in memory), with Content-Length. */
export function downloadResponse(request: Request, file: DownloadFile, headers: Headers): Response {
  headers.set("etag", file.etag);
  headers.set("accept-ranges", "bytes");
  if (file.encoding !== null) headers.set("content-encoding", file.encoding);
  const range = wantedRange(request, file);
  const body = Bun.file(file.path);
  if (range === null) {
    headers.set("content-length", String(file.size));
    return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
  }
  const [first, last] = range;
  headers.set("content-range", `bytes ${first}-${last}/${file.size}`);
  headers.set("content-length", String(last - first + 1));
  return new Response(request.method === "HEAD" ? null : body.slice(first, last + 1), { status: 206, headers });
}
