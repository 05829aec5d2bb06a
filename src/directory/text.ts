const COMBINING_MARKS = /[\u0300-\u036f]/g;
const NON_WORD = /[^\p{L}\p{N}]+/u;

/** Lowercased, accents removed: the form both names and queries are compared in. */
export function foldText(text: string): string {
  return text.normalize("NFD").replace(COMBINING_MARKS, "").toLowerCase();
}

/** Distinct words of a text, split on anything that is not a letter or a digit. */
export function words(text: string): string[] {
  const out = new Set<string>();
  for (const word of foldText(text).split(NON_WORD)) if (word !== "") out.add(word);
  return [...out];
}
