import { join } from "node:path";
import type { Audience, ProbeStatus } from "../../src/model/types";

/** db/sample/: the committed sample lists, recorded answers and manifest. */
export const SAMPLE_DIR = join(import.meta.dir, "..", "..", "db", "sample");

/** One step of the build, run in manifest order. */
export type ManifestStep =
  | {
      action: "ingest";
      vendorId: string;
      listId: string;
      file: string;
      access?: Audience;
      now: string;
      force?: boolean;
      note?: string;
    }
  | { action: "probe"; now: string; note?: string };

/** What the answer server sends for one request: a status and, when given, a file's bytes. */
export interface ManifestResponse {
  status: number;
  /** Path under db/sample/. */
  file?: string;
  contentType?: string;
}

/** How a sample server behaves: its two answers, or nothing at all (connection refused). */
export type ManifestProfile =
  | { expect: Exclude<ProbeStatus, "unchecked">; metadata: ManifestResponse; smart: ManifestResponse }
  | { expect: "failed"; unreachable: true };

export interface SampleManifest {
  about: string;
  steps: ManifestStep[];
  profiles: Record<string, ManifestProfile>;
  /** `host/path` of a base URL (no scheme, no trailing slash) → profile name. Absent: never probed. */
  servers: Record<string, string>;
}

/** The `servers` key of a base URL. */
export function serverKey(url: string | URL): string {
  const parsed = typeof url === "string" ? new URL(url) : url;
  return `${parsed.host}${parsed.pathname}`.replace(/\/+$/, "");
}

export async function loadManifest(dir: string = SAMPLE_DIR): Promise<SampleManifest> {
  return (await Bun.file(join(dir, "manifest.json")).json()) as SampleManifest;
}
