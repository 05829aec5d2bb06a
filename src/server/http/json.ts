import type { ErrorCode } from "./api-error";
import { headersFor, headerTemplate } from "./request-context";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

const JSON_HEADERS = headerTemplate({ "content-type": JSON_CONTENT_TYPE });

export function jsonResponse(request: Request, status: number, body: string, extra?: Record<string, string>): Response {
  return new Response(body, { status, headers: headersFor(request, JSON_HEADERS, extra) });
}

function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ success: false, error: { code, message } });
}

export function errorResponse(
  request: Request,
  status: number,
  code: ErrorCode,
  message: string,
  extra?: Record<string, string>,
): Response {
  return jsonResponse(request, status, errorBody(code, message), extra);
}
