import { Elysia } from "elysia";
import { negotiateEncoding } from "../http/compression";
import { matchesIfNoneMatch } from "../http/conditional";
import { type Exchange, exchanges, headersFor } from "../http/exchange";
import { errorResponse } from "../http/json";
import { routeOptions } from "../http/route-options";
import { type Asset, buildWebBundle, type WebBundle } from "./page-bundle";

/**
 * The page may load only its own script, stylesheet and API answers: no inline script or
 * style, no other origin, no plugins, no framing. Untrusted text in the data can therefore
 * never run, even if some code wrote it as HTML.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The page names its assets by content hash: it must be revalidated, they never change. */
const PAGE_HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "referrer-policy": "same-origin",
};
const ASSET_HEADERS = { "cache-control": "public, max-age=31536000, immutable" };

let building: Promise<WebBundle> | undefined;

/** The bundle, built once per process on first use (a failed build is retried on the next request). */
function webBundle(): Promise<WebBundle> {
  building ??= buildWebBundle().catch((error) => {
    building = undefined;
    throw error;
  });
  return building;
}

function serve(exchange: Exchange, asset: Asset, extra: Record<string, string>): Response {
  const request = exchange.request;
  const headers = headersFor(exchange, undefined, { ...extra, etag: asset.etag, vary: "Accept-Encoding" });
  if (matchesIfNoneMatch(request, asset.etag)) return new Response(null, { status: 304, headers });
  const encoding = negotiateEncoding(request);
  headers.set("content-type", asset.contentType);
  if (encoding) headers.set("content-encoding", encoding);
  return new Response(encoding ? asset.encoded[encoding] : asset.plain, { headers });
}

/**
 * The search page at `/` and its assets at `/assets/<name>-<hash>.<ext>`, bundled from
 * `src/server/web/client` in memory when the server starts. Neither is rate limited.
 */
export const webPage = () =>
  new Elysia({ name: "web-page" })
    .use(routeOptions)
    .use(exchanges)
    .onStart(() => {
      // Warm the bundle while the server starts rather than on the first visitor's request.
      webBundle().catch(() => {});
    })
    .get("/", async ({ exchange }) => serve(exchange, (await webBundle()).page, PAGE_HEADERS), {
      rateLimit: false,
      detail: { hide: true },
    })
    .get(
      "/assets/:file",
      async ({ params, exchange }) => {
        const asset = (await webBundle()).assets.get(params.file);
        if (!asset) return errorResponse(exchange, 404, "NOT_FOUND", "No such route; see /docs");
        return serve(exchange, asset, ASSET_HEADERS);
      },
      { rateLimit: false, detail: { hide: true } },
    );
