import type { ListDefinition, VendorDefinition } from "../../ingest/types";
import { lanternRawUrl } from "../lantern";
import { displayName, vendorSlug } from "../registry-generator";

/**
 * The health plans' lists ONC Lantern keeps beside the certified developers' ones, every one of
 * them bundled (db/national/payers/): the Medicare Advantage organizations and where each
 * publishes (MEDICARE_LIST, with one endpoint file for some), where each large payer documents
 * its API (PAYER_PAGES, newer), the state Medicaid programs' servers (a JSON and a newer CSV),
 * and 1upHealth's health plans by parent organization and brand (ONEUP_PLANS).
 */
export const MEDICARE_LIST = "MedicareStateEndpointResourcesList.json";
const PAYER_PAGES = "payer-patient-access.csv";
const MEDICAID_JSON = "MedicaidState_EndpointSources.json";
const MEDICAID_CSV = "medicaid-state-endpoints.csv";
const ONEUP_PLANS = "oneupdata.csv";

/** Where a person opens one of Lantern's files (the lists without a page of their own). */
const lanternPage = (file: string) =>
  `https://github.com/onc-healthit/lantern-back-end/blob/HEAD/resources/prod_resources/${encodeURIComponent(file)}`;

/** `[{FormatType, URL, EndpointName, FileName}]`: a Medicare Advantage organization's page and endpoint file. */
interface MedicareListItem {
  URL: string;
  EndpointName: string;
  FileName: string;
}

/** Letters and digits, lowercased: `ElevanceHealth(Anthem)` and `Elevance Health (Anthem)` meet. */
const nameKey = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** payer-patient-access.csv's rows (`developer,source`): name key → [display name, page]. */
function payerPages(csv: string): Map<string, [string, string]> {
  const pages = new Map<string, [string, string]>();
  for (const line of csv.split(/\r?\n/).slice(1)) {
    const [developer, source] = line.split(",").map((cell) => cell.trim());
    if (developer && source && /^https?:\/\//.test(source)) pages.set(nameKey(developer), [developer, source]);
  }
  return pages;
}

/** The list of a Patient Access API list file; its items are the patients' servers of the plan. */
function patientList(id: string, file: string, extra: Partial<ListDefinition> = {}): ListDefinition {
  return {
    id,
    url: lanternRawUrl(file),
    format: file.endsWith(".csv") ? "csv" : "lantern-json",
    audience: "patient",
    fhirVersion: null,
    source: "lantern",
    bundledFile: file,
    ...extra,
  };
}

/**
 * The payer vendors of the registry (kind `payer`), from the bundled payer files: one per
 * Medicare Advantage organization (its list when Lantern has its endpoint file; the items that
 * name no organization are the organization's own server), one for the state Medicaid programs
 * (both lists), one for 1upHealth's health plans (a plan's brand, else its parent organization).
 * Deterministic, ordered by id.
 */
export function generatePayerRegistry(files: Map<string, string>): VendorDefinition[] {
  const read = (file: string) => {
    const text = files.get(file);
    if (text === undefined) throw new Error(`${file} missing from the payer files`);
    return text;
  };
  const pages = payerPages(read(PAYER_PAGES));
  const vendors: VendorDefinition[] = [];
  for (const item of JSON.parse(read(MEDICARE_LIST)) as MedicareListItem[]) {
    const page = pages.get(nameKey(item.EndpointName));
    const name = displayName(page?.[0] ?? item.EndpointName);
    const id = vendorSlug(name);
    const lists = files.has(item.FileName)
      ? [patientList(`${id}-lantern`, item.FileName, { publishedUrl: item.URL, organizationName: name })]
      : [];
    vendors.push({ id, name, kind: "payer", endpointListUrl: page?.[1] ?? item.URL, lists });
  }
  read(MEDICAID_JSON);
  read(MEDICAID_CSV);
  read(ONEUP_PLANS);
  vendors.push(
    {
      id: "state-medicaid",
      name: "State Medicaid programs",
      kind: "payer",
      endpointListUrl: lanternPage(MEDICAID_CSV),
      lists: [
        patientList("state-medicaid-lantern", MEDICAID_JSON),
        patientList("state-medicaid-lantern-csv", MEDICAID_CSV, {
          columns: { url: "endpoint", organizationName: "State", state: "State" },
        }),
      ],
    },
    {
      id: "1uphealth-health-plans",
      name: "1upHealth health plans",
      kind: "payer",
      endpointListUrl: lanternPage(ONEUP_PLANS),
      lists: [
        patientList("1uphealth-health-plans-lantern", ONEUP_PLANS, {
          columns: {
            url: "Prod FHIR URL (Resource URL)",
            organizationName: "Brand Name(s) (displayed in auth app, recognizable by members)",
            organizationFallback: "Parent Organization Name",
          },
        }),
      ],
    },
  );
  const ids = new Set(vendors.map((v) => v.id));
  if (ids.size !== vendors.length) throw new Error("two payers make the same vendor id");
  return vendors.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The payer files to bundle: every file the payer vendors read, and the two that name them. */
export function payerFiles(vendors: VendorDefinition[]): string[] {
  const listed = vendors.flatMap((v) => v.lists.flatMap((l) => (l.bundledFile ? [l.bundledFile] : [])));
  return [...new Set([MEDICARE_LIST, PAYER_PAGES, ...listed])].sort();
}
