import type { Server } from "bun";
import type { TrustProxy } from "../../config";
import { originalOf } from "./routes";

/**
 * The client address rate limits count against; forwarded headers only when TRUST_PROXY says so.
 * `true`: the LAST X-Forwarded-For hop, the address our proxy appended (every earlier hop is
 * whatever the client wrote). `fly`: Fly-Client-IP, which Fly's proxy sets.
 */
export function clientIp(request: Request, server: Server<unknown> | null, trustProxy: TrustProxy): string {
  if (trustProxy === "fly") {
    const fly = request.headers.get("fly-client-ip")?.trim();
    if (fly) return fly;
  } else if (trustProxy === "true") {
    const forwarded = request.headers.get("x-forwarded-for");
    if (forwarded !== null) {
      const last = forwarded.slice(forwarded.lastIndexOf(",") + 1).trim();
      if (last) return last;
    }
  }
  return server?.requestIP(originalOf(request))?.address ?? "unknown";
}
