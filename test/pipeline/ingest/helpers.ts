import { createHash } from "node:crypto";
import { join } from "node:path";

const REPO_ROOT = join(import.meta.dir, "../..", "..");
const FIXTURES = join(REPO_ROOT, "test", "fixtures", "ingest");

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** The entry id as docs/api.md ("Identifiers") defines it, computed here without the code under test. */
export function expectedId(vendorId: string, url: string, npi: string | null, organizationName: string | null): string {
  const orgKey = npi ?? organizationName?.toLowerCase() ?? "";
  return createHash("sha256").update(`${vendorId}\n${url}\n${orgKey}`).digest("hex");
}
