import { US_STATES } from "../../model/us-states";

/** Lowercased, letters only: "U.S. Virgin Islands" → "usvirginislands". */
function key(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, "");
}

const BY_NAME = new Map<string, string>();
for (const [code, name] of Object.entries(US_STATES)) BY_NAME.set(key(name), code);
const ALIASES: Record<string, string> = {
  washingtondc: "DC",
  districtofcolumbiadc: "DC",
  virginislands: "VI",
  unitedstatesvirginislands: "VI",
  commonwealthofpuertorico: "PR",
  northernmarianas: "MP",
  micronesia: "FM",
};
for (const [alias, code] of Object.entries(ALIASES)) BY_NAME.set(alias, code);

/** A state code or name as published → its USPS code, or null when it names no state. */
export function stateCode(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = raw.trim();
  if (/^[A-Za-z]{2}$/.test(text)) {
    const code = text.toUpperCase();
    return code in US_STATES ? code : null;
  }
  return BY_NAME.get(key(text)) ?? null;
}
