import { readFileSync } from "node:fs";
import { loadConfig } from "../../config";
import { AUDIENCES, FHIR_VERSIONS } from "../../model/types";
import { VENDOR_KINDS } from "../../model/vendors";
import { LIST_FORMATS, LIST_SOURCES, type ListDefinition, type VendorDefinition } from "./types";

export { DEFAULT_REGISTRY_PATH } from "../../config";

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function checkList(fail: (message: string) => never, vendorId: string, list: ListDefinition) {
  const where = `vendor ${vendorId}, list ${list.id}`;
  if (typeof list.id !== "string" || !SLUG.test(list.id)) fail(`${where}: id must be a lowercase slug`);
  if (typeof list.url !== "string" || !/^https?:\/\//.test(list.url)) fail(`${where}: url must be http(s)`);
  if (!LIST_FORMATS.includes(list.format)) fail(`${where}: format must be one of ${LIST_FORMATS.join(", ")}`);
  if (list.audience !== null && !AUDIENCES.includes(list.audience))
    fail(`${where}: audience must be patient, provider or null`);
  if (list.fhirVersion !== null && !FHIR_VERSIONS.includes(list.fhirVersion)) fail(`${where}: unknown fhirVersion`);
  if (list.source !== undefined && !LIST_SOURCES.includes(list.source))
    fail(`${where}: source must be one of ${LIST_SOURCES.join(", ")}`);
  if (list.publishedUrl !== undefined && !/^https?:\/\//.test(list.publishedUrl))
    fail(`${where}: publishedUrl must be http(s)`);
  if (list.bundledFile !== undefined && !/^[A-Za-z0-9_().-]+\.(json|csv)$/.test(list.bundledFile))
    fail(`${where}: bundledFile must be a plain .json or .csv file name`);
  if (
    list.organizationName !== undefined &&
    (typeof list.organizationName !== "string" || list.organizationName === "")
  )
    fail(`${where}: organizationName must be a non-empty string when present`);
  if (list.certificationWithdrawn !== undefined && list.certificationWithdrawn !== true)
    fail(`${where}: certificationWithdrawn must be true when present`);
}

const isCertification = (p: NonNullable<VendorDefinition["certifications"]>[number]) =>
  typeof p === "object" &&
  p !== null &&
  typeof p.chplProductNumber === "string" &&
  typeof p.product === "string" &&
  typeof p.version === "string" &&
  (p.certificationDate === null || typeof p.certificationDate === "string") &&
  typeof p.status === "string" &&
  typeof p.standardizedApi === "boolean";

/**
 * The vendors and their lists from the registry file, validated; list ids are unique across vendors.
 * The file is `--registry` of the CLIs, else the configured one (`INGEST_REGISTRY`, default db/vendors.json).
 */
export function loadRegistry(path = loadConfig().registryPath): VendorDefinition[] {
  const fail: (message: string) => never = (message) => {
    throw new Error(`vendor registry ${path}: ${message}`);
  };
  const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
  const vendors = (parsed as { vendors?: unknown }).vendors;
  if (!Array.isArray(vendors)) fail('expected { "vendors": [...] }');
  const listIds = new Set<string>();
  const vendorIds = new Set<string>();
  for (const vendor of vendors as VendorDefinition[]) {
    if (typeof vendor.id !== "string" || !SLUG.test(vendor.id))
      fail(`vendor id ${String(vendor.id)} must be a lowercase slug`);
    if (vendorIds.has(vendor.id)) fail(`vendor ${vendor.id} twice`);
    vendorIds.add(vendor.id);
    if (typeof vendor.name !== "string" || vendor.name === "") fail(`vendor ${vendor.id}: name missing`);
    if (vendor.kind !== undefined && !VENDOR_KINDS.includes(vendor.kind))
      fail(`vendor ${vendor.id}: kind must be ${VENDOR_KINDS.join(" or ")} when present`);
    if (typeof vendor.endpointListUrl !== "string") fail(`vendor ${vendor.id}: endpointListUrl missing`);
    if (!Array.isArray(vendor.lists)) fail(`vendor ${vendor.id}: lists missing`);
    const fallback = vendor.defaultFhirVersion;
    if (fallback !== undefined && fallback !== null && !FHIR_VERSIONS.includes(fallback))
      fail(`vendor ${vendor.id}: unknown defaultFhirVersion`);
    if (vendor.certifications !== undefined && !vendor.certifications.every(isCertification))
      fail(
        `vendor ${vendor.id}: certifications must be {chplProductNumber, product, version, certificationDate, status, standardizedApi}`,
      );
    for (const list of vendor.lists) {
      checkList(fail, vendor.id, list);
      if (listIds.has(list.id)) fail(`list id ${list.id} used twice`);
      listIds.add(list.id);
    }
  }
  return vendors as VendorDefinition[];
}

export function findVendor(registry: VendorDefinition[], vendorId: string): VendorDefinition {
  const vendor = registry.find((v) => v.id === vendorId);
  if (!vendor) throw new Error(`unknown vendor "${vendorId}"; known: ${registry.map((v) => v.id).join(", ")}`);
  return vendor;
}
