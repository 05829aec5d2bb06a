import { describe, expect, test } from "bun:test";
import { enrichEntry } from "../../../src/pipeline/ingest/enrich";
import { placeOfName } from "../../../src/pipeline/ingest/enrich/name-place";
import { normalisedEntry } from "./helpers";

// Names as the bundled national lists publish them (db/national/), unless said otherwise.
describe("the place an organization name states", () => {
  test.each([
    ["Makam Medical 1120 W La Palma Ave Ste 14, Anaheim CA 92801", "CA", "Anaheim", "92801"],
    // The name misspells Warren: the city is the ZIP table's for the ZIP.
    ["28401 Hoover Road Waren, MI 48093", "MI", "Warren", "48093"],
    ["Laurel Pediatrics, Laurel, MD 20707", "MD", "Laurel", "20707"],
  ] as const)("an address ending the name: %p → %s, %s %s", (name, state, city, zipCode) => {
    expect(placeOfName(name)).toEqual({ state, city, zipCode });
  });

  test.each([
    ["1960 Eye Surgeons, P.A. - Houston, TX", "TX", "Houston"],
    ["AFC Sedalia MO", "MO", "Sedalia"],
    ["AFC South Plainfield, NJ", "NJ", "South Plainfield"],
    ["AFC Portland, OR", "OR", "Portland"],
    ["Riverside Health System (Newport News, VA)", "VA", "Newport News"],
    ["Rocky Mountain Vein Clinics, PC - Great Falls MT", "MT", "Great Falls"],
    ["OBGYN Specialists of Lima OH", "OH", "Lima"],
  ] as const)("a city the ZIP table has in the state right after it: %p → %s, %s", (name, state, city) => {
    expect(placeOfName(name)).toEqual({ state, city, zipCode: null });
  });

  test.each([
    ["MetroHealth - OH", "OH"],
    ["Lakeland Regional Health (FL)", "FL"],
    ["Cardiology Consultants of MI", "MI"],
    ["Urology Associates of Southeastern NC", "NC"],
    ["South FL Vascular Associates", "FL"],
    ["Eleanor Health TX", "TX"],
    ["Arete Network of GA, LLC", "GA"],
    ["Valley Health System NJ (EXPANSE)", "NJ"],
    // `PA` after a name is a professional association; `FL` ends it.
    ["Bayer and Associates DO PA FL", "FL"],
    ["Julia Barriga MD PA FL", "FL"],
    // Clinic is no town of Ohio: the state only.
    ["Cleveland Clinic, OH", "OH"],
    // Center is a town of Texas, but not inside a longer name.
    ["Family Medicine Center, TX", "TX"],
  ] as const)("one state code where names put one: %p → %s", (name, state) => {
    expect(placeOfName(name)).toEqual({ state, city: null, zipCode: null });
  });

  test.each([
    // A city or state named alone is no address.
    "Augusta Gastrointestinal",
    "Austin Psychological Testing Center",
    "Hawaii Nephrologists",
    "Texas Children's Hospital",
    "Indiana Regional Medical Center",
    "Virginia Mason Franciscan Health",
    // Credentials and company forms.
    "Dev Mishra MD",
    "Kenneth Henschel, MD LLC",
    "Peter Laurel, MD",
    "Frederick Smith, PA",
    "Wall Chiropractic Center, DC",
    "Sue Jones, MS",
    "Ann Lee, ND",
    "Smith Clinic, SC",
    "Anne Arundel Urology, PA",
    // Numbers that are not ZIP codes: customer numbers, licences, a street number.
    "Associates in Urology of Worcester, P.C. - 27741",
    "Dennis L Ortiz, DO - 31780",
    "Jennifer Malone, MFT #42564",
    "Dr. Pedro Garcia MD 10273 dm 10094-1",
    "10135 Colvin Run Rd",
    "John Smith MD 20814",
    // A ZIP of another state than the one written.
    "Somewhere Clinic, Dallas TX 10001",
    // Two states named: neither is the place.
    "Mercy Health - OH, KY",
    "The C.L.I.N.I.C. NY NJ",
    // Codes that are words or other abbreviations here.
    "Shah Clinic of NE Alabama",
    "OC ID Specialist, Inc.",
    "ENT LA MSO, LLC",
    "Eleanor Health LA",
    "Durham VA",
    "UT Southwestern Medical Center",
    "Medical Center VI",
    "Advanced Imaging CT",
    "Associates In Dermatology",
    "Demo For ME",
    // All capitals: GREATER WA is Greater Washington, NV not Nevada.
    "MD - HEBREW HOME OF GREATER WA",
    "VIRGINIA NW (VAB) NV",
    "RELYMD VIRTUAL HEALTH GA",
    // Not state codes.
    "Cook Hospital - CS",
    "Patient Website - UK",
    "Unio Specialty Care - GI",
    "CA-107-C",
    "OB-GYN Associates Womens Health, Inc.",
    "Healthy Blue MO Medicaid",
  ])("%p states no place", (name) => {
    expect(placeOfName(name)).toBeNull();
  });
});

describe("enrichment from the name", () => {
  test("fills state, city and ZIP when the list gives no place, as name-place; the name and id stay", () => {
    const name = "Makam Medical 1120 W La Palma Ave Ste 14, Anaheim CA 92801";
    expect(enrichEntry(normalisedEntry({ organizationName: name }), null)).toMatchObject({
      id: "x",
      organizationName: name,
      state: "CA",
      city: "Anaheim",
      zipCode: "92801",
      stateEvidence: "name-place",
    });
    expect(enrichEntry(normalisedEntry({ organizationName: "AFC Temple, TX" }), null)).toMatchObject({
      state: "TX",
      city: "Temple",
      zipCode: null,
      stateEvidence: "name-place",
    });
    expect(enrichEntry(normalisedEntry({ organizationName: "Augusta Gastrointestinal" }), null)).toMatchObject({
      state: null,
      city: null,
      stateEvidence: null,
    });
  });

  test("any place the list gives wins, and the name is then not read: its state, its ZIP, its city", () => {
    expect(enrichEntry(normalisedEntry({ organizationName: "AFC Temple, TX", state: "OK" }), null)).toMatchObject({
      state: "OK",
      city: null,
      stateEvidence: null,
    });
    expect(enrichEntry(normalisedEntry({ organizationName: "AFC Temple, TX", zipCode: "02114" }), null)).toMatchObject({
      state: "MA",
      city: "Boston",
      stateEvidence: "zip",
    });
    // A ZIP nothing places, or a city without a state: the list's place stands alone.
    expect(enrichEntry(normalisedEntry({ organizationName: "AFC Temple, TX", zipCode: "81909" }), null)).toMatchObject({
      state: null,
      city: null,
      zipCode: "81909",
    });
    expect(enrichEntry(normalisedEntry({ organizationName: "AFC Temple, TX", city: "Belton" }), null)).toMatchObject({
      state: null,
      city: "Belton",
    });
    expect(enrichEntry(normalisedEntry({ organizationName: "NC - Clinic of Houston, TX" }), null)).toMatchObject({
      state: "NC",
      city: null,
      stateEvidence: "name",
    });
  });
});
