import { describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { fixtureApp, get } from "../../support/fixture";
import { reportMeasurement } from "../../support/measurements";
import { requestLog } from "../../support/request-log";

/** The page's total size budget, compressed: HTML, script and stylesheet together. */
const BUDGET_BYTES = 60 * 1024;

type App = ReturnType<typeof fixtureApp>["app"];

const fetchRaw = (app: App, path: string, init?: RequestInit) =>
  app.handle(new Request(`http://localhost${path}`, init));

async function assetPaths(app: App): Promise<string[]> {
  const html = await (await fetchRaw(app, "/")).text();
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe("serving the search page", () => {
  test("GET / is the HTML page with a strict Content-Security-Policy and no inline script or style", async () => {
    const { app } = fixtureApp();
    const response = await fetchRaw(app, "/?query=mercy&state=OH&page=2");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const csp = response.headers.get("content-security-policy") ?? "";
    const directives = Object.fromEntries(
      csp.split(";").map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(" ")];
      }),
    );
    expect(directives["default-src"]).toBe("'self'");
    expect(directives["script-src"]).toBe("'self'");
    expect(directives["style-src"]).toBe("'self'");
    expect(directives["connect-src"]).toBe("'self'");
    expect(directives["object-src"]).toBe("'none'");
    expect(directives["frame-ancestors"]).toBe("'none'");
    expect(directives["base-uri"]).toBe("'none'");
    expect(csp).not.toContain("unsafe");
    expect(csp).not.toMatch(/https?:|\*/);

    const html = await response.text();
    expect(html).toStartWith("<!doctype html>");
    // Every script has a src, there is no <style>, no style attribute, no on* handler, no other origin.
    for (const script of html.match(/<script[^>]*>/g) ?? []) expect(script).toMatch(/ src="\/assets\//);
    expect(html.match(/<script/g)?.length).toBe(1);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    // Every control has a label.
    const ids = [...html.matchAll(/<(?:input|select)[^>]* id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.length).toBe(12); // the search box, ten filters, the sort
    for (const id of ids) expect(html).toContain(`<label for="${id}">`);
  });

  test("assets have content hashes in their names and immutable cache headers; the page is revalidated", async () => {
    const { app } = fixtureApp();
    const paths = await assetPaths(app);
    expect(paths.length).toBe(2);
    expect(paths.some((p) => /^\/assets\/main-[a-z0-9]+\.js$/.test(p))).toBe(true);
    expect(paths.some((p) => /^\/assets\/main-[a-z0-9]+\.css$/.test(p))).toBe(true);
    for (const path of paths) {
      const response = await fetchRaw(app, path);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("content-type")).toBe(
        path.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
      );
    }
    // Conditional requests: the page answers 304 to its own ETag.
    const page = await fetchRaw(app, "/");
    const etag = page.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"/);
    const again = await fetchRaw(app, "/", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  test("the script is the real bundle of src/server/web/client: it carries the page's own messages", async () => {
    const { app } = fixtureApp();
    const script = (await assetPaths(app)).find((p) => p.endsWith(".js"))!;
    const text = await (await fetchRaw(app, script)).text();
    expect(text).toContain("Too many requests from this address");
    expect(text).toContain("/api/v1/endpoints");
    // No HTML parsing of data anywhere in the page's code.
    expect(text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  test(`the whole page is at most ${BUDGET_BYTES / 1024} KB compressed (brotli and gzip), and decompresses to the same bytes`, async () => {
    const { app } = fixtureApp();
    const sizes = { br: 0, gzip: 0 };
    for (const path of ["/", ...(await assetPaths(app))]) {
      const plain = new Uint8Array(await (await fetchRaw(app, path)).arrayBuffer());
      const br = await fetchRaw(app, path, { headers: { "accept-encoding": "br" } });
      expect(br.headers.get("content-encoding")).toBe("br");
      expect(br.headers.get("vary")).toBe("Accept-Encoding");
      const brBytes = new Uint8Array(await br.arrayBuffer());
      expect(new Uint8Array(brotliDecompressSync(brBytes))).toEqual(plain);
      const gzip = await fetchRaw(app, path, { headers: { "accept-encoding": "gzip" } });
      expect(gzip.headers.get("content-encoding")).toBe("gzip");
      const gzipBytes = new Uint8Array(await gzip.arrayBuffer());
      expect(new Uint8Array(gunzipSync(gzipBytes))).toEqual(plain);
      sizes.br += brBytes.length;
      sizes.gzip += gzipBytes.length;
    }
    reportMeasurement(`search page, compressed in all: ${sizes.br} bytes brotli, ${sizes.gzip} bytes gzip`);
    expect(sizes.br).toBeLessThanOrEqual(BUDGET_BYTES);
    expect(sizes.gzip).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  test("the page and its assets are not rate limited; the API still is", async () => {
    const { app } = fixtureApp({ RATE_LIMIT_MAX: "1" });
    const paths = ["/", ...(await assetPaths(app))];
    for (let i = 0; i < 3; i++)
      for (const path of paths) {
        const response = await fetchRaw(app, path);
        expect(response.status).toBe(200);
        expect(response.headers.get("ratelimit-limit")).toBeNull();
      }
    expect((await get(app, "/api/v1/stats")).status).toBe(200);
    expect((await get(app, "/api/v1/stats")).status).toBe(429);
  });

  test("an unknown asset is a 404 envelope, another method a 405; /health, /docs and the API are unchanged", async () => {
    const { log, loggedWhere } = requestLog();
    const { app } = fixtureApp({}, undefined, log);
    const missing = await get(app, "/assets/main-00000000.js");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: { code: "NOT_FOUND", message: "No such route; see /docs" } });
    for (const path of ["/assets/constructor", "/assets/__proto__", "/assets/..%2Fplugin.ts"])
      expect((await get(app, path)).status).toBe(404);
    const post = await get(app, "/", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect((await get(app, "/health")).body.data.status).toBe("ok");
    expect((await fetchRaw(app, "/docs")).status).toBe(200);
    const stats = await get(app, "/api/v1/stats");
    expect(stats.status).toBe(200);
    expect(stats.response.headers.get("content-security-policy")).toBeNull();
    await fetchRaw(app, "/");
    // Observations are recorded after the response is sent: wait for the last one.
    await loggedWhere((line) => line.path === "/" && line.method === "GET");
    const metrics = await (await fetchRaw(app, "/metrics")).text();
    expect(metrics).toContain('http_requests_total{route="/",method="GET",status="200"} 1');
    expect(metrics).toContain('http_requests_total{route="/assets/:file",method="GET",status="404"}');
  });
});
