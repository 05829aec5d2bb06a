import {
  PLACE_WORDS as ALL_PLACE_WORDS,
  PRACTICE_SUFFIXES as ALL_PRACTICE_SUFFIXES,
  SAINTS as ALL_SAINTS,
  SPECIALTIES as ALL_SPECIALTIES,
  SYSTEM_FORMS as ALL_SYSTEM_FORMS,
  FIRST_NAMES,
  LAST_NAMES,
} from "../generate/names";
import type { Rng as Prng } from "../generate/prng";

/**
 * The sample draws its words from the word lists of tools/generate/names.ts, in the selection and
 * order the committed sample under db/sample/ was generated with (picks are by position, so the
 * order is part of the output): an index, an inclusive range of indices, or a name of its own.
 */
function selection(words: readonly string[], ...parts: (number | [number, number] | string)[]): readonly string[] {
  return parts.flatMap((part) => {
    if (typeof part === "string") return [part];
    const [from, to] = typeof part === "number" ? [part, part] : part;
    return words.slice(from, to + 1);
  });
}

const FIRST = selection(FIRST_NAMES, [0, 35], "Nguyễn", [36, 38], [40, 46], 39, [47, 48]);
const LAST = selection(LAST_NAMES, [0, 37], "St. Clair", 38, [40, 48], 39);
const PLACE_WORDS = ALL_PLACE_WORDS.slice(0, 32);
const SPECIALTIES = selection(ALL_SPECIALTIES, 0, 3, 2, 6, 5, 9, [7, 8], [12, 17], 1, 10, [18, 25], 11, [26, 30]);
const PRACTICE_SUFFIXES = ALL_PRACTICE_SUFFIXES.slice(0, 15);
const SAINTS = ALL_SAINTS.slice(0, 10);
const SYSTEM_FORMS = ALL_SYSTEM_FORMS.slice(0, 15);

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
