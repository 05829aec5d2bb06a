import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { compress, type Encoding } from "../http/compression";
import { pageHtml } from "./page-html";

const CLIENT_ENTRY = join(import.meta.dir, "client", "main.ts");

/** One file the page needs, kept in memory with its compressed forms. */
export interface Asset {
  /** The name in the URL: `<name>-<content hash>.<ext>`. */
  name: string;
  contentType: string;
  etag: string;
  plain: Uint8Array<ArrayBuffer>;
  encoded: Record<Encoding, Uint8Array<ArrayBuffer>>;
}

export interface WebBundle {
  /** The page at `/`, referring to the assets by their hashed names. */
  page: Asset;
  /** The script and stylesheet by hashed name. */
  assets: Map<string, Asset>;
}

async function asset(name: string, contentType: string, body: Uint8Array<ArrayBuffer>): Promise<Asset> {
  const encoded = {
    br: new Uint8Array(await compress(body, "br").arrayBuffer()),
    gzip: new Uint8Array(gzipSync(body, { level: 9 })),
  };
  const etag = `W/"${Bun.hash.wyhash(body).toString(36)}"`;
  return { name, contentType, etag, plain: body, encoded };
}

/**
 * Bundles the page's TypeScript and CSS with Bun's bundler into memory (about 50 ms), then
 * writes the page that names them. Nothing is written to disk, so a fresh clone serves the
 * page with no build step and the page can never refer to a stale file.
 */
export async function buildWebBundle(): Promise<WebBundle> {
  const result = await Bun.build({
    entrypoints: [CLIENT_ENTRY],
    target: "browser",
    format: "esm",
    minify: true,
    sourcemap: "none",
    naming: { entry: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
  });
  if (!result.success) throw new AggregateError(result.logs, "the search page's bundle did not build");
  const assets = new Map<string, Asset>();
  let script: string | undefined;
  let stylesheet: string | undefined;
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    const body = new Uint8Array(await output.arrayBuffer());
    const type = name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    assets.set(name, await asset(name, type, body));
    if (output.kind === "entry-point") script = name;
    else if (name.endsWith(".css")) stylesheet = name;
  }
  if (!script || !stylesheet) throw new Error("the search page's bundle lacks its script or stylesheet");
  const html = new TextEncoder().encode(pageHtml({ script: `/assets/${script}`, stylesheet: `/assets/${stylesheet}` }));
  return { page: await asset("index.html", "text/html; charset=utf-8", html), assets };
}
