import type { Server } from "bun";
import type { TrustProxy } from "../config";

/** The client address rate limits count against; forwarded headers only when TRUST_PROXY says so. */
export function clientIp(request: Request, server: Server<unknown> | null, trustProxy: TrustProxy): string {
  if (trustProxy === "fly") {
    const fly = request.headers.get("fly-client-ip")?.trim();
    if (fly) return fly;
  } else if (trustProxy === "true") {
    const first = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (first) return first;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}
