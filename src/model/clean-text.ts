/**
 * Text from outside (vendor lists, probed servers) as the directory keeps it: no control
 * characters, no bidi overrides, whitespace collapsed.
 */

/** Control characters other than line breaks and tabs, and bidi embedding/override/isolate controls. */
const CONTROL = /(?![\t\n\v\f\r\u0085])[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/** Control characters (NUL, ESC, BEL, U+202E…) removed, trimmed, inner whitespace collapsed; empty → null. */
export function cleanText(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const text = raw
    .replace(CONTROL, "")
    .replace(/[\s\u0085]+/g, " ")
    .trim();
  return text === "" ? null : text;
}

/** `text` cut to at most `max` UTF-16 code units, ending in `…` when cut (never half a surrogate pair). */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
