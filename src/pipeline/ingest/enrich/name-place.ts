import { cityKey } from "../../../directory/lookups";
import { US_STATES } from "../../../model/us-states";
import { zipPlaces } from "../../../model/zip-places";
import { placeOfZip } from "./place";

/** A place an organization name states: a state, and the city and ZIP code when it writes them. */
export interface NamedPlace {
  state: string;
  city: string | null;
  zipCode: string | null;
}

/**
 * USPS codes that are also credentials or company forms after a name (`Dev Mishra MD`, `… PA`
 * for a professional association, `DC` a chiropractor, `MS`/`MA` degrees, `ND` a naturopath,
 * `SC` a Wisconsin service corporation): never read as a state from a name, except before a ZIP
 * code of that state (`Laurel, MD 20707`).
 */
const CREDENTIALS = new Set(["MD", "PA", "DC", "MS", "MA", "ND", "SC"]);

/**
 * USPS codes that are also words or common abbreviations in names (`IN`, `OR`, `ME`, `OK`, `HI`,
 * `DE`; `ID` infectious disease, `LA` Los Angeles, `CT` a scan, `CO` company, `NE` northeast, `UT`
 * the University of Texas, `VA` Veterans Affairs, `VI` a roman six, `PR`, `MT`, `AS`, `GU`, `MP`):
 * read as a state only right after a city of that state (`AFC Portland, OR`).
 */
const WORD_CODES = new Set([
  "IN",
  "OR",
  "ME",
  "OK",
  "HI",
  "ID",
  "LA",
  "CT",
  "CO",
  "NE",
  "DE",
  "MT",
  "UT",
  "VA",
  "VI",
  "PR",
  "AS",
  "GU",
  "MP",
]);

/** Words of organization names that are also the names of small towns (`Center, TX`): not read as a city inside a longer name. */
const ORGANIZATION_WORDS = new Set([
  "care",
  "center",
  "clinic",
  "comfort",
  "commerce",
  "enterprise",
  "friendship",
  "harmony",
  "health",
  "hope",
  "industry",
  "liberty",
  "medical",
  "paradise",
  "progress",
  "union",
  "unity",
  "victory",
  "welcome",
]);

/** Words that may stand between `of` and a state (`of Southeastern NC`), or right before one (`South FL`). */
const REGION =
  "(?:North|South|East|West|Central|Northern|Southern|Eastern|Western|North(?:east|west)(?:ern)?|South(?:east|west)(?:ern)?|Middle|Upstate|Coastal|N|S|E|W|NW|SE|SW)";
const OF_REGION = new RegExp(`\\bof\\s+(?:${REGION}\\s+)?$`, "i");
const REGION_BEFORE = new RegExp(`(?:^|\\s)${REGION}\\s+$`);
/** What may follow a state that ends a name: company forms and one parenthesis (`Valley Health System NJ (EXPANSE)`). */
const NAME_END = /^(?:,?\s*(?:LLC|L\.L\.C\.|Inc\.?|PLLC|PC|P\.C\.|LLP|PLC|PSC|Corp\.?|Ltd\.?))*\s*(?:\([^()]*\))?\s*$/;
/** A two-letter upper-case token standing alone (not part of `M.D.`, `A&M`, `CC210_X`, `OB-GYN`). */
const TOKEN = /(?<![\p{L}\p{N}.'’&_-])([A-Z]{2})(?![\p{L}\p{N}.'’&_-])/gu;
/** `<state> <ZIP>` ending a name, the ZIP five digits or ZIP+4. */
const ADDRESS_END = /(,)?\s+([A-Z]{2})\.?,?\s+(\d{5}(?:-\d{4})?)\s*$/;
/** `City, ST` or `City ST` with the state ending the name, a clause or a parenthesis. */
const CITY_STATE = /(?:,\s*|\s+)([A-Z]{2})(?=\s*$|\s*[),]|\s+[-–]\s|\s+\()/g;

let cities: Map<string, string> | null = null;

/** The ZIP table's cities: `folded city\tST` → the table's spelling (computed once). */
function tableCities(): Map<string, string> {
  if (cities) return cities;
  cities = new Map();
  for (const place of zipPlaces().values()) {
    const key = `${cityKey(place.city)}\t${place.state}`;
    if (!cities.has(key)) cities.set(key, place.city);
  }
  return cities;
}

/** `Makam Medical 1120 W La Palma Ave Ste 14, Anaheim CA 92801`: the ZIP, when the table puts it in that state. */
function addressAtEnd(name: string): NamedPlace | null {
  const match = ADDRESS_END.exec(name);
  if (!match || match.index === 0) return null;
  const [, comma, state, zip] = match as unknown as [string, string | undefined, string, string];
  if (!(state in US_STATES) || (CREDENTIALS.has(state) && comma === undefined)) return null;
  const place = placeOfZip(zip);
  return place?.state === state ? { state, city: place.city, zipCode: zip } : null;
}

/**
 * `1960 Eye Surgeons, P.A. - Houston, TX`, `AFC Sedalia MO`, `(Newport News, VA)`: the city
 * right before the state is one the ZIP table has in that state (up to four words, the longest
 * first; a word of organization names only as the whole clause). Every such pair must agree.
 */
function cityAndState(name: string): NamedPlace | null {
  const found = new Map<string, string>();
  for (const match of name.matchAll(CITY_STATE)) {
    const state = match[1]!;
    if (!(state in US_STATES) || CREDENTIALS.has(state)) continue;
    const clause = name
      .slice(0, match.index)
      .split(/\s+[-–]\s+|[(),/&]/)
      .at(-1)!
      .trim();
    const words = clause.split(/\s+/).filter((word) => word !== "");
    for (let n = Math.min(4, words.length); n >= 1; n--) {
      const city = words.slice(-n);
      if (!city.every((word) => /^\p{Lu}/u.test(word))) continue;
      if (n < words.length && n === 1 && ORGANIZATION_WORDS.has(city[0]!.toLowerCase())) continue;
      const known = tableCities().get(`${cityKey(city.join(" "))}\t${state}`);
      if (known === undefined) continue;
      found.set(state, known);
      break;
    }
  }
  if (found.size !== 1) return null;
  const [state, city] = [...found][0]!;
  return { state, city, zipCode: null };
}

/**
 * `Cardiology Consultants of MI`, `Eleanor Health FL`, `MetroHealth - OH`, `Lakeland Regional
 * Health (FL)`, `South FL Vascular Associates`: one state code, upper case, in a name that is not
 * all capitals (where `WA` may be `GREATER WA`shington), ending the name (before company forms),
 * in parentheses, or after `of` or a region word. A name with two such codes (`Mercy Health - OH,
 * KY`) states none.
 */
function stateToken(name: string): NamedPlace | null {
  if (!/\p{Ll}/u.test(name)) return null;
  const mentioned = new Set<string>();
  const stated = new Set<string>();
  for (const match of name.matchAll(TOKEN)) {
    const state = match[1]!;
    if (!(state in US_STATES) || CREDENTIALS.has(state) || WORD_CODES.has(state)) continue;
    mentioned.add(state);
    const before = name.slice(0, match.index);
    const after = name.slice(match.index + 2);
    const ends = /\S/.test(before) && NAME_END.test(after);
    const enclosed = /\(\s*$/.test(before) && /^\s*\)/.test(after);
    if (ends || enclosed || OF_REGION.test(before) || REGION_BEFORE.test(before)) stated.add(state);
  }
  return mentioned.size === 1 && stated.size === 1 ? { state: [...stated][0]!, city: null, zipCode: null } : null;
}

/**
 * The place an organization name states, when it states one plainly (docs/api.md, "Enrichment at
 * ingest"): an address ending the name (`…, Anaheim CA 92801`: the ZIP, its state and city when
 * the ZIP is in that state), else a city and its state (`… - Houston, TX`: a city the ZIP table
 * has in that state), else one state code where names put one. Nothing is read from a city or
 * state named alone (`Augusta Gastrointestinal`, `Austin Psychological Testing Center`, `Texas
 * Children's`), from a credential (`Dev Mishra MD`), or from a number that only looks like a ZIP
 * (`Urology Associates - 27741`, a customer number). Null when the name states no place.
 */
export function placeOfName(name: string | null): NamedPlace | null {
  if (name === null) return null;
  return addressAtEnd(name) ?? cityAndState(name) ?? stateToken(name);
}
