import { createHash } from "node:crypto";
import { join } from "node:path";
import type { NormalisedEntry } from "../../../src/pipeline/ingest/types";

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

/** A normalised entry with every field empty but `more`, as enrichment receives one. */
export const normalisedEntry = (more: Partial<NormalisedEntry>): NormalisedEntry => ({
  id: "x",
  url: "https://a.example",
  organizationName: null,
  npi: null,
  tenantId: null,
  city: null,
  state: null,
  zipCode: null,
  listFhirVersion: "UNKNOWN",
  versionEvidence: null,
  stateEvidence: null,
  urlEvidence: "published",
  urlPublished: null,
  unusable: null,
  unusableDetail: null,
  ...more,
});
