/** ONC Lantern's maintained copies of the certified developers' published endpoint lists. */
const LANTERN_REPOSITORY = "onc-healthit/lantern-back-end";
const LANTERN_PATH = "resources/prod_resources";
/**
 * The ref `refresh` reads Lantern's copies at (raw files over HTTPS): `HEAD`, which GitHub's raw
 * file host resolves to the repository's default branch, so the maintained copy is always read.
 */
const LANTERN_BRANCH = "HEAD";

export const lanternRawUrl = (fileName: string) =>
  `https://raw.githubusercontent.com/${LANTERN_REPOSITORY}/${LANTERN_BRANCH}/${LANTERN_PATH}/${encodeURIComponent(fileName)}`;

/** `[{FormatType, URL, EndpointName, FileName}]`: each certified developer's list URL (CHPLEndpointResourcesList.json). */
export interface ChplListItem {
  FormatType: string;
  URL: string;
  EndpointName: string;
  FileName: string;
}

/** CHPLProductsInfo.json: per list URL, the developer's certified products. */
export interface ChplProductsItem {
  listSourceURL: string;
  softwareProducts:
    | {
        chplProductNumber?: string;
        developer: { id: number; name: string };
        product?: { name: string };
        version?: { name: string };
        certificationDate?: string;
        certificationStatus: { name: string };
        criteriaMet: { number: string }[];
      }[]
    | null;
}

/**
 * Files that are not one EHR developer's list: an aggregator's compiled list (1Up), payers'
 * patient-access APIs (Medicare_…, MedicaidState…).
 */
export function isAggregatorOrPayer(fileName: string): boolean {
  return /^(1Up|Medicare_|MedicaidState)/.test(fileName);
}
