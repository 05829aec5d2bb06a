import type { Rng } from "./prng";

/**
 * Word lists for organization names: health systems, hospitals, group practices and solo
 * physicians, with the accents, apostrophes, ampersands and dashes that real lists carry.
 * Words appear with very different frequencies, so `query` meets both broad and rare words.
 */
export const FIRST_NAMES = [
  "James", "Maria", "Robert", "Linda", "Michael", "Patricia", "David", "Jennifer", "William", "Elizabeth",
  "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Carlos", "Karen", "Daniel", "Nancy",
  "Matthew", "Lisa", "Anthony", "Betty", "Mark", "Sandra", "Steven", "Ashley", "Andrew", "Kimberly",
  "José", "Zoë", "Renée", "André", "Björn", "Amélie", "Priya", "Wei", "Fatima", "Chloé",
  "Oscar", "Grace", "Samuel", "Hannah", "Omar", "Leila", "Ivan", "Raúl", "Aisha", "Noémie",
  "Rajesh", "Mei", "Hiroshi", "Olga", "Kwame", "Ana", "Luis", "Sofía", "Héctor", "Inés",
  "Benjamin", "Emily", "Jonathan", "Rachel", "Nathan", "Megan", "Ethan", "Laura", "Aaron", "Julia",
] as const;

export const LAST_NAMES = [
  "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
  "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
  "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
  "O'Brien", "O'Connor", "McDonald", "Muñoz", "Peña", "Núñez", "Müller", "D'Angelo", "Van der Berg", "Schäfer",
  "Nakamura", "Patel", "Kim", "Nguyen", "Cohen", "Kowalski", "Okafor", "Haddad", "Rossi", "Ibáñez",
  "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Hill", "Flores", "Green",
  "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Gómez",
  "Phillips", "Evans", "Turner", "Díaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes", "Stewart",
  "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutiérrez", "Ortiz", "Morgan", "Cooper", "Peterson",
  "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Cox", "Ward", "Richardson", "Watson", "Brooks",
  "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes", "Price", "Alvarez",
  "Castillo", "Sanders", "Shah", "Myers", "Long", "Ross", "Foster", "Jiménez", "Singh", "Chen",
  "Wang", "Zhang", "Liu", "Yamamoto", "Tanaka", "Suzuki", "Sato", "Ivanov", "Novak", "Horvath",
  "Fischer", "Weber", "Becker", "Hoffmann", "Koch", "Richter", "Klein", "Wolf", "Schröder", "Neumann",
  "Dubois", "Lefèvre", "Moreau", "Laurent", "Fontaine", "Bélanger", "Côté", "Gagné", "Lévesque", "Bouchard",
] as const;

export const CREDENTIALS = ["MD", "DO", "MD, PA", "DO, PC", "MD, PLLC", "MD, FACP", "DPM", "NP", "DC", "PA-C"] as const;

export const PLACE_WORDS = [
  "Riverside", "Lakeview", "Hillcrest", "Valley", "Summit", "Bayside", "Northside", "Southern", "Eastern",
  "Westside", "Pinecrest", "Cedar Ridge", "Oak Park", "Maple Grove", "Harbor", "Mountain View", "Prairie",
  "Coastal", "Heartland", "Gateway", "Sunrise", "Clearwater", "Brookside", "Fairview", "Greenfield",
  "Highland", "Meadowbrook", "Redwood", "Silver Lake", "Willow Creek", "Blue Ridge", "Golden Valley",
  "Piedmont", "Tidewater", "Lakeshore", "Crossroads", "Evergreen", "Magnolia", "Sagebrush", "Bluebonnet",
  "Cypress", "Aspen", "Sequoia", "Palmetto", "Sunflower", "Keystone", "Granite", "Twin Rivers", "Three Rivers", "Canyon",
] as const;

/** Skewed: early specialties are much more common than late ones. */
export const SPECIALTIES = [
  "Family Medicine", "Primary Care", "Internal Medicine", "Pediatrics", "Medical", "Orthopedics", "Cardiology",
  "Women's Health", "Obstetrics & Gynecology", "Dermatology", "Behavioral Health", "Urgent Care",
  "Gastroenterology", "Neurology", "Oncology", "Urology", "Ophthalmology", "Eye Care", "Pulmonology",
  "Rheumatology", "Endocrinology", "Allergy & Asthma", "Sports Medicine", "Pain Management", "Podiatry", "ENT",
  "Geriatrics", "Nephrology", "Physical Therapy", "Chiropractic", "Wound Care", "Sleep Medicine", "Vascular Surgery",
  "Plastic Surgery", "Infectious Disease", "Hematology", "Audiology", "Otolaryngology", "Psychiatry", "Dental Surgery",
] as const;

export const PRACTICE_SUFFIXES = [
  "Associates", "Group", "Clinic", "Center", "Partners", "Specialists", "PC", "PLLC", "LLC", "PA",
  "Associates, P.C.", "Medical Group", "Health", "Care", "Institute", "Consultants", "Physicians",
] as const;

export const SAINTS = [
  "St. Mary's", "St. Joseph's", "St. Luke's", "St. Francis", "St. Vincent's", "Sacred Heart", "Good Samaritan",
  "Mercy", "Providence", "Holy Cross", "St. Elizabeth", "St. Anthony's", "St. John's", "Our Lady of Lourdes",
  "Baptist", "Methodist", "Presbyterian", "Adventist", "Lutheran", "St. Thérèse",
] as const;

export const SYSTEM_FORMS = [
  "{place} Regional Medical Center", "{place} Health System", "{place} Community Hospital", "{saint} Hospital",
  "{saint} Medical Center", "{saint} Health", "{city} General Hospital", "{city} Children's Hospital",
  "University of {stateName} Health", "{place} Memorial Hospital", "{city} Medical Center", "{place} Healthcare",
  "{saint} Regional Health – {city}", "{place} Health Partners", "{city} Cancer Institute", "{saint} Clinic {city}",
  "{place} Rehabilitation Hospital", "{city} Surgical Hospital", "{place} Behavioral Health Center", "{city} VA Clinic",
] as const;

export const SPANISH_FORMS = [
  "Clínica {saintEs}", "Centro Médico {placeEs}", "Clínica Familiar {last}", "Centro de Salud {placeEs}",
  "Consultorio Médico {last}", "Clínica Pediátrica {placeEs}", "Hospital {saintEs}",
] as const;

export const SAINTS_ES = ["San José", "Santa María", "San Martín de Porres", "Nuestra Señora", "Santa Teresa", "San Lucas", "Señor de los Milagros", "San Rafael"] as const;
export const PLACES_ES = ["del Valle", "La Peña", "Río Grande", "Los Ángeles", "El Paraíso", "Buena Vista", "La Montaña", "Mayagüez", "Bayamón", "Las Américas"] as const;

export interface NameContext {
  city: string;
  stateName: string;
}

/** Skew toward the start of a list: index = floor(n * r^power). */
export function skewed<T>(rng: Rng, items: readonly T[], power = 2): T {
  return items[Math.floor(items.length * Math.pow(rng.next(), power))]!;
}

function fill(form: string, rng: Rng, ctx: NameContext): string {
  return form.replace(/\{(\w+)\}/g, (_, key: string) => {
    switch (key) {
      case "place":
        return rng.pick(PLACE_WORDS);
      case "saint":
        return rng.pick(SAINTS);
      case "city":
        return ctx.city;
      case "stateName":
        return ctx.stateName;
      case "saintEs":
        return rng.pick(SAINTS_ES);
      case "placeEs":
        return rng.pick(PLACES_ES);
      case "last":
        return rng.pick(LAST_NAMES);
      default:
        return key;
    }
  });
}

/** A health system or hospital name. */
export function systemName(rng: Rng, ctx: NameContext): string {
  return fill(rng.pick(SYSTEM_FORMS), rng, ctx);
}

/** A practice, clinic or physician name: most entries of most vendors. */
export function practiceName(rng: Rng, ctx: NameContext): string {
  const r = rng.next();
  if (r < 0.22) return `${rng.pick(LAST_NAMES)} ${skewed(rng, SPECIALTIES)} ${rng.pick(PRACTICE_SUFFIXES)}`;
  if (r < 0.4) return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}, ${rng.pick(CREDENTIALS)}`;
  if (r < 0.56) return `${rng.pick(PLACE_WORDS)} ${skewed(rng, SPECIALTIES)} ${rng.pick(PRACTICE_SUFFIXES)}`;
  if (r < 0.68) return `${ctx.city} ${skewed(rng, SPECIALTIES)} ${rng.pick(PRACTICE_SUFFIXES)}`;
  if (r < 0.76) return `${rng.pick(LAST_NAMES)} & ${rng.pick(LAST_NAMES)} ${skewed(rng, SPECIALTIES)}`;
  if (r < 0.83) return `${rng.pick(PLACE_WORDS)} ${skewed(rng, SPECIALTIES)} of ${ctx.city}`;
  if (r < 0.89) return fill(rng.pick(SPANISH_FORMS), rng, ctx);
  if (r < 0.95) return `Dr. ${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)} ${skewed(rng, SPECIALTIES)}`;
  return `${rng.pick(SAINTS)} ${skewed(rng, SPECIALTIES)} ${rng.pick(PRACTICE_SUFFIXES)}`;
}
