import { writeFileSync } from "node:fs";
import type { ListDefinition, VendorDefinition } from "../../src/pipeline/ingest/types";

/** A list of the test developer: for no audience and naming no FHIR version unless the test says so. */
type AcmeList = Pick<ListDefinition, "id" | "url" | "format"> & Partial<ListDefinition>;

/** Acme EHR, the developer the ingest tests register, with the lists a test gives it. */
export function acmeRegistry(lists: AcmeList[], vendor: Partial<VendorDefinition> = {}): VendorDefinition[] {
  return [
    {
      id: "acme",
      name: "Acme EHR",
      endpointListUrl: "https://acme.example/developers/endpoints",
      ...vendor,
      lists: lists.map((list) => ({ audience: null, fhirVersion: null, ...list })),
    },
  ];
}

/** A registry file (`{"vendors": […]}`) at `path` with acme's `lists` and any other vendors; `path`. */
export function writeAcmeRegistry(path: string, lists: AcmeList[], otherVendors: object[] = []): string {
  writeFileSync(path, JSON.stringify({ vendors: [...acmeRegistry(lists), ...otherVendors] }));
  return path;
}
