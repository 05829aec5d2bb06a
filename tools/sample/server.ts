import { join } from "node:path";
import { type ManifestProfile, type ManifestResponse, type SampleManifest, serverKey } from "./manifest";

const METADATA = "/metadata";
const SMART = "/.well-known/smart-configuration";

/**
 * A local HTTP server that answers the probe as the sample servers would, from the recorded
 * answers of the manifest. The probe reaches it through `connectTo`, which keeps the original
 * host and path in the local path: https://host/r4/abc/metadata → http://127.0.0.1:PORT/host/r4/abc/metadata.
 */
export interface AnswerServer {
  port: number;
  connectTo: (url: URL) => URL;
  /** Requests answered so far. */
  requests: () => number;
  stop: () => Promise<void>;
}

/** The base URL key and which document a request asks for, or null for any other path. */
function parseTarget(hostAndPath: string): { key: string; document: "metadata" | "smart" } | null {
  const path = hostAndPath.replace(/\/+$/, "");
  if (path.endsWith(METADATA))
    return { key: path.slice(0, -METADATA.length).replace(/\/+$/, ""), document: "metadata" };
  if (path.endsWith(SMART)) return { key: path.slice(0, -SMART.length).replace(/\/+$/, ""), document: "smart" };
  return null;
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

export async function startAnswerServer(manifest: SampleManifest, sampleDir: string): Promise<AnswerServer> {
  const bodies = new Map<string, Uint8Array>();
  for (const profile of Object.values(manifest.profiles)) {
    if ("unreachable" in profile) continue;
    for (const response of [profile.metadata, profile.smart]) {
      if (response.file && !bodies.has(response.file))
        bodies.set(response.file, await Bun.file(join(sampleDir, response.file)).bytes());
    }
  }
  const profileOf = (key: string): ManifestProfile | null => {
    const name = manifest.servers[key];
    return name === undefined ? null : (manifest.profiles[name] ?? null);
  };
  const respond = (answer: ManifestResponse) => {
    const body = answer.file ? bodies.get(answer.file)! : null;
    const headers: Record<string, string> = {};
    if (answer.contentType) headers["content-type"] = answer.contentType;
    return new Response(body, { status: answer.status, headers });
  };

  let served = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      served++;
      const target = parseTarget(decodeURIComponent(new URL(request.url).pathname.slice(1)));
      const profile = target ? profileOf(target.key) : null;
      if (!target || !profile || "unreachable" in profile)
        return new Response("Not Found", { status: 404, headers: { "content-type": "text/plain" } });
      return respond(target.document === "metadata" ? profile.metadata : profile.smart);
    },
  });
  const port = server.port!;
  const refused = await closedPort();

  return {
    port,
    connectTo(url: URL): URL {
      const target = parseTarget(serverKey(url));
      const profile = target ? profileOf(target.key) : null;
      const local = profile && "unreachable" in profile ? refused : port;
      return new URL(`http://127.0.0.1:${local}/${url.host}${url.pathname}${url.search}`);
    },
    requests: () => served,
    stop: () => server.stop(true),
  };
}
