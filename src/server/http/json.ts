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
