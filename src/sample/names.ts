import type { Rng as Prng } from "../generate/prng";

const FIRST = [
  "James",
  "Maria",
  "Robert",
  "Linda",
  "Michael",
  "Patricia",
  "David",
  "Jennifer",
  "William",
  "Elizabeth",
  "Richard",
  "Susan",
  "Joseph",
  "Jessica",
  "Thomas",
  "Sarah",
  "Carlos",
  "Karen",
  "Daniel",
  "Nancy",
  "Matthew",
  "Lisa",
  "Anthony",
  "Betty",
  "Mark",
  "Sandra",
  "Steven",
  "Ashley",
  "Andrew",
  "Kimberly",
  "José",
  "Zoë",
  "Renée",
  "André",
  "Björn",
  "Amélie",
  "Nguyễn",
  "Priya",
  "Wei",
  "Fatima",
  "Oscar",
  "Grace",
  "Samuel",
  "Hannah",
  "Omar",
  "Leila",
  "Ivan",
  "Chloé",
  "Raúl",
  "Aisha",
] as const;

const LAST = [
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Garcia",
  "Miller",
  "Davis",
  "Rodriguez",
  "Martinez",
  "Hernandez",
  "Lopez",
  "Gonzalez",
  "Wilson",
  "Anderson",
  "Thomas",
  "Taylor",
  "Moore",
  "Jackson",
  "Martin",
  "Lee",
  "Perez",
  "Thompson",
  "White",
  "Harris",
  "Sanchez",
  "Clark",
  "Ramirez",
  "Lewis",
  "Robinson",
  "O'Brien",
  "O'Connor",
  "McDonald",
  "Muñoz",
  "Peña",
  "Núñez",
  "Müller",
  "D'Angelo",
  "St. Clair",
  "Van der Berg",
  "Nakamura",
  "Patel",
  "Kim",
  "Nguyen",
  "Cohen",
  "Kowalski",
  "Okafor",
  "Haddad",
  "Rossi",
  "Schäfer",
] as const;

const PLACE_WORDS = [
  "Riverside",
  "Lakeview",
  "Hillcrest",
  "Valley",
  "Summit",
  "Bayside",
  "Northside",
  "Southern",
  "Eastern",
  "Westside",
  "Pinecrest",
  "Cedar Ridge",
  "Oak Park",
  "Maple Grove",
  "Harbor",
  "Mountain View",
  "Prairie",
  "Coastal",
  "Heartland",
  "Gateway",
  "Sunrise",
  "Clearwater",
  "Brookside",
  "Fairview",
  "Greenfield",
  "Highland",
  "Meadowbrook",
  "Redwood",
  "Silver Lake",
  "Willow Creek",
  "Blue Ridge",
  "Golden Valley",
] as const;

const SPECIALTIES = [
  "Family Medicine",
  "Pediatrics",
  "Internal Medicine",
  "Cardiology",
  "Orthopedics",
  "Dermatology",
  "Women's Health",
  "Obstetrics & Gynecology",
  "Gastroenterology",
  "Neurology",
  "Oncology",
  "Urology",
  "Ophthalmology",
  "Eye Care",
  "Primary Care",
  "Behavioral Health",
  "Pulmonology",
  "Rheumatology",
  "Endocrinology",
  "Allergy & Asthma",
  "Sports Medicine",
  "Pain Management",
  "Podiatry",
  "ENT",
  "Urgent Care",
  "Geriatrics",
  "Nephrology",
  "Physical Therapy",
  "Chiropractic",
  "Wound Care",
] as const;

const PRACTICE_SUFFIXES = [
  "Associates",
  "Group",
  "Clinic",
  "Center",
  "Partners",
  "Specialists",
  "PC",
  "PLLC",
  "LLC",
  "PA",
  "Associates, P.C.",
  "Medical Group",
  "Health",
  "Care",
  "Institute",
] as const;

const SAINTS = [
  "St. Mary's",
  "St. Joseph's",
  "St. Luke's",
  "St. Francis",
  "St. Vincent's",
  "Sacred Heart",
  "Good Samaritan",
  "Mercy",
  "Providence",
  "Holy Cross",
] as const;

const SYSTEM_FORMS = [
  "{place} Regional Medical Center",
  "{place} Health System",
  "{place} Community Hospital",
  "{saint} Hospital",
  "{saint} Medical Center",
  "{saint} Health",
  "{city} General Hospital",
  "{city} Children's Hospital",
  "University of {stateName} Health",
  "{place} Memorial Hospital",
  "{city} Medical Center",
  "{place} Healthcare",
  "{saint} Regional Health – {city}",
  "{place} Health Partners",
  "{city} Cancer Institute",
] as const;

/**
 * Organization names a real directory holds: accents, apostrophes, ampersands, dashes. Each of
 * these appears somewhere in the sample so that search and sorting meet them.
 */
export const SPECIAL_NAMES = [
  "Clínica Señor de los Milagros",
  "St. Mary's Regional Medical Center",
  "O'Brien & Sons Family Practice",
  "Café Salud – Clínica Familiar",
  "Hôpital Sainte-Thérèse Pediatrics",
  "Dr. Zoë Müller-Schmidt, D.O.",
  "Peña & Núñez Internal Medicine, P.A.",
  "Children's Hospital of the King's Daughters",
  "A+ Urgent Care (Walk-ins Welcome!)",
  "100% Kids Pediatrics",
  "María José Gutiérrez, MD",
  "Smith, Jones & Associates",
  "Ångström Eye Institute",
  'Bayside "Family" Health',
  "The Women's Center @ Riverside",
] as const;

export interface NameContext {
  city: string;
  stateName: string;
}

/** Hands out organization names, never the same one twice within one namer. */
export class OrgNamer {
  private readonly used = new Set<string>();

  constructor(private readonly prng: Prng) {}

  private unique(make: () => string): string {
    for (let attempt = 0; attempt < 50; attempt++) {
      const name = make();
      if (!this.used.has(name.toLowerCase())) {
        this.used.add(name.toLowerCase());
        return name;
      }
    }
    // Fallback that cannot collide: number the last candidate.
    for (let n = 2; ; n++) {
      const name = `${make()} ${n}`;
      if (!this.used.has(name.toLowerCase())) {
        this.used.add(name.toLowerCase());
        return name;
      }
    }
  }

  /** Marks a name as taken (for fixed names placed by hand). */
  take(name: string): string {
    this.used.add(name.toLowerCase());
    return name;
  }

  /** A hospital or health system (Epic, Oracle Health, MEDITECH customers). */
  system(ctx: NameContext): string {
    const p = this.prng;
    return this.unique(() =>
      p
        .pick(SYSTEM_FORMS)
        .replace("{place}", p.pick(PLACE_WORDS))
        .replace("{saint}", p.pick(SAINTS))
        .replace("{city}", ctx.city)
        .replace("{stateName}", ctx.stateName),
    );
  }

  /** An ambulatory practice or a single physician (eClinicalWorks, athenahealth, NextGen...). */
  practice(ctx: NameContext): string {
    const p = this.prng;
    return this.unique(() => {
      switch (p.int(6)) {
        case 0:
          return `${p.pick(FIRST)} ${p.pick(LAST)}, ${p.pick(["MD", "DO", "MD PC", "M.D.", "NP", "DPM"])}`;
        case 1:
          return `${p.pick(LAST)} & ${p.pick(LAST)} ${p.pick(SPECIALTIES)}`;
        case 2:
          return `${ctx.city} ${p.pick(SPECIALTIES)} ${p.pick(PRACTICE_SUFFIXES)}`;
        case 3:
          return `${p.pick(LAST)} ${p.pick(SPECIALTIES)}`;
        default:
          return `${p.pick(PLACE_WORDS)} ${p.pick(SPECIALTIES)} ${p.pick(PRACTICE_SUFFIXES)}`;
      }
    });
  }
}
