/**
 * Bounds on the JSON the directory parses from servers (probe bodies, and those bodies read back
 * from the database), checked by one pass over the text before JSON.parse builds anything. A
 * hostile server's 5 MB of `[[[[…` or of `{},{},…` would otherwise cost hundreds of megabytes
 * as a parsed tree. The largest real statements (test/fixtures/real/real-capabilities, up to 900 KB)
 * have at most 25,355 values, 10 levels, 68 distinct keys and strings of 2,558 characters.
 */
export const JSON_BOUNDS = {
  /** Arrays and objects nested inside each other. */
  depth: 64,
  /** Values in all (counted as the separators and openings that can precede one: an upper bound). */
  values: 200_000,
  /** Distinct object keys (as written, escapes not decoded). */
  distinctKeys: 2_000,
  /** Characters of one string, key or value (as written). */
  stringLength: 100_000,
} as const;

/**
 * Why `text` exceeds JSON_BOUNDS, or null when it does not (or is not JSON at all: JSON.parse
 * says so). Never throws; allocates only the distinct keys it counts, at most JSON_BOUNDS of them.
 */
export function jsonOverBounds(text: string): string | null {
  const { depth: maxDepth, values: maxValues, distinctKeys: maxKeys, stringLength: maxString } = JSON_BOUNDS;
  const keys = new Set<string>();
  // Per open container: is it an object (1) or an array (0); a key is expected after `{` or `,` in an object.
  const inObject: number[] = [];
  let expectKey = false;
  let values = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: find its end, skipping escapes.
      const start = i + 1;
      let j = start;
      while (j < text.length) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) j += 2;
        else if (d === 0x22) break;
        else j++;
      }
      if (j - start > maxString) return `a string of more than ${maxString} characters`;
      if (expectKey) {
        if (keys.size < maxKeys + 1) keys.add(text.slice(start, j));
        if (keys.size > maxKeys) return `more than ${maxKeys} distinct keys`;
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      inObject.push(c === 0x7b ? 1 : 0);
      if (inObject.length > maxDepth) return `nested more than ${maxDepth} deep`;
      expectKey = c === 0x7b;
      if (++values > maxValues) return `more than ${maxValues} values`;
    } else if (c === 0x7d || c === 0x5d) {
      inObject.pop();
      expectKey = false;
    } else if (c === 0x2c || c === 0x3a) {
      expectKey = c === 0x2c && inObject[inObject.length - 1] === 1;
      if (++values > maxValues) return `more than ${maxValues} values`;
    }
  }
  return null;
}

/** The parsed object of `text` when it is a JSON object within JSON_BOUNDS; else null. Never throws. */
export function parseBoundedObject(text: string | null): Record<string, unknown> | null {
  if (text === null || jsonOverBounds(text) !== null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
