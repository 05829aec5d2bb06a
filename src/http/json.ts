export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export function jsonResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": JSON_CONTENT_TYPE, ...headers } });
}

export function errorBody(code: string, message: string): string {
  return JSON.stringify({ success: false, error: { code, message } });
}

export function errorResponse(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, errorBody(code, message), headers);
}
