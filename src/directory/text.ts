const COMBINING_MARKS = /[\u0300-\u036f]/g;
const NON_WORD = /[^\p{L}\p{N}]+/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range starts at NUL
const ASCII = /^[\x00-\x7f]*$/;
const NON_ASCII_WORD = /[^a-z0-9]+/;

/**
 * Lowercased, accents removed, compatibility forms read as the letters they stand for (NFKD:
 * the `ﬁ` ligature is `fi`, fullwidth `ＦＩ` is `FI`): the form both names (when the index is
 * built) and queries are compared in.
 */
export function foldText(text: string): string {
  return text.normalize("NFKD").replace(COMBINING_MARKS, "").toLowerCase();
}

/** `foldText`, with plain ASCII only lowercased (the same result, far faster). */
export const fold = (text: string): string => (ASCII.test(text) ? text.toLowerCase() : foldText(text));

/** Distinct words of a text, split on anything that is not a letter or a digit. */
export function words(text: string): string[] {
  // Most names are plain ASCII: skip Unicode normalisation for them (same result, far faster).
  const parts = ASCII.test(text) ? text.toLowerCase().split(NON_ASCII_WORD) : foldText(text).split(NON_WORD);
  const out: string[] = [];
  for (const word of parts) if (word !== "" && !out.includes(word)) out.push(word);
  return out;
}
