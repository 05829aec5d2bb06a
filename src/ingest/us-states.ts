/**
 * USPS codes of the 50 states, DC, the territories and the freely associated states, with the
 * names vendors write instead of the code. Same code set as the API's `state` filter.
 */
const STATES: Record<string, string> = {
  AL: "Alabama", AK: "Alaska", AZ: "Arizona", AR: "Arkansas", CA: "California", CO: "Colorado",
  CT: "Connecticut", DE: "Delaware", FL: "Florida", GA: "Georgia", HI: "Hawaii", ID: "Idaho",
  IL: "Illinois", IN: "Indiana", IA: "Iowa", KS: "Kansas", KY: "Kentucky", LA: "Louisiana",
  ME: "Maine", MD: "Maryland", MA: "Massachusetts", MI: "Michigan", MN: "Minnesota",
  MS: "Mississippi", MO: "Missouri", MT: "Montana", NE: "Nebraska", NV: "Nevada",
  NH: "New Hampshire", NJ: "New Jersey", NM: "New Mexico", NY: "New York", NC: "North Carolina",
  ND: "North Dakota", OH: "Ohio", OK: "Oklahoma", OR: "Oregon", PA: "Pennsylvania",
  RI: "Rhode Island", SC: "South Carolina", SD: "South Dakota", TN: "Tennessee", TX: "Texas",
  UT: "Utah", VT: "Vermont", VA: "Virginia", WA: "Washington", WV: "West Virginia",
  WI: "Wisconsin", WY: "Wyoming", DC: "District of Columbia", AS: "American Samoa", GU: "Guam",
  MP: "Northern Mariana Islands", PR: "Puerto Rico", VI: "U.S. Virgin Islands",
  UM: "U.S. Minor Outlying Islands", FM: "Federated States of Micronesia", MH: "Marshall Islands",
  PW: "Palau",
};

/** Lowercased, letters only: "U.S. Virgin Islands" → "usvirginislands". */
function key(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, "");
}

const BY_NAME = new Map<string, string>();
for (const [code, name] of Object.entries(STATES)) BY_NAME.set(key(name), code);
const ALIASES: Record<string, string> = {
  washingtondc: "DC", districtofcolumbiadc: "DC", virginislands: "VI", unitedstatesvirginislands: "VI",
  commonwealthofpuertorico: "PR", northernmarianas: "MP", micronesia: "FM",
};
for (const [alias, code] of Object.entries(ALIASES)) BY_NAME.set(alias, code);

/** A state code or name as published → its USPS code, or null when it names no state. */
export function stateCode(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = raw.trim();
  if (/^[A-Za-z]{2}$/.test(text)) {
    const code = text.toUpperCase();
    return code in STATES ? code : null;
  }
  return BY_NAME.get(key(text)) ?? null;
}
