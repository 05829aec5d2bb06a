import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";

const REPO_ROOT = join(import.meta.dir, "../..", "..");
const FIXTURES = join(REPO_ROOT, "test", "fixtures", "ingest");
/** Real vendor lists, present next to the repository in development only. */
export const SHARED_LISTS = join(import.meta.dir, "../../../../shared/data/vendor-lists");
export const hasSharedLists = existsSync(SHARED_LISTS);

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** The entry id as docs/api.md ("Identifiers") defines it, computed here without the code under test. */
export function expectedId(vendorId: string, url: string, npi: string | null, organizationName: string | null): string {
  const orgKey = npi ?? organizationName?.toLowerCase() ?? "";
  return createHash("sha256").update(`${vendorId}\n${url}\n${orgKey}`).digest("hex");
}
