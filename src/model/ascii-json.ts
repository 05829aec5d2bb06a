/**
 * JSON text of `value` in ASCII alone: every character past U+007E written as a \u escape (a
 * character past U+FFFF as its two surrogates), so that the text means what JSON.stringify's does.
 * A string of ASCII characters is stored one byte a character, and so is every string parsed from
 * it that needs no escape; JSON.stringify's own text holds a character past U+00FF as it is, and
 * is then stored two bytes a character throughout.
 */
export const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
