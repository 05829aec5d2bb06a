import { asciiJson } from "../../model/ascii-json";
import type { ErrorCode } from "./api-error";
import { type Exchange, headersFor, headerTemplate } from "./exchange";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

const JSON_HEADERS = headerTemplate({ "content-type": JSON_CONTENT_TYPE });

export function jsonResponse(
  exchange: Exchange,
  status: number,
  body: string,
  extra?: Record<string, string>,
): Response {
  return new Response(body, { status, headers: headersFor(exchange, JSON_HEADERS, extra) });
}

function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ success: false, error: { code, message } });
}

export function errorResponse(
  exchange: Exchange,
  status: number,
  code: ErrorCode,
  message: string,
  extra?: Record<string, string>,
): Response {
  return jsonResponse(exchange, status, errorBody(code, message), extra);
}

/**
 * The text of `{ success: true, data, meta }`, the JSON that JSON.stringify writes for it. The
 * records that hold a character past U+00FF (`wide`) are written apart, in ASCII (`asciiJson`):
 * one such name would otherwise make the whole page's text two bytes a character, which
 * JSON.stringify writes on its slow path and the response then re-encodes (a page with one,
 * about a fifth dearer). A page without one is JSON.stringify's own text.
 */
export function dataPageText(data: readonly unknown[], wide: readonly boolean[], meta: unknown): string {
  if (!wide.includes(true)) return JSON.stringify({ success: true, data, meta });
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i <= data.length; i++) {
    if (i < data.length && !wide[i]) continue;
    if (i > from) parts.push(JSON.stringify(data.slice(from, i)).slice(1, -1));
    // Read back as Latin-1, the escaped text is stored one byte a character (the replacement left it two).
    if (i < data.length) parts.push(Buffer.from(asciiJson(data[i]), "latin1").toString("latin1"));
    from = i + 1;
  }
  return `{"success":true,"data":[${parts.join(",")}],"meta":${JSON.stringify(meta)}}`;
}
