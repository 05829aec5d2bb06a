import { WORK } from "../model/request-caps";
import { type Bitset, countBits, createBitset, hasBit, setBit } from "./bitset";
import { fold } from "./text";

/**
 * A trigram index of a string table (organization names, URLs, cities, ZIP codes), so that
 * "which strings contain this text" reads a few posting lists instead of testing every string.
 *
 * Each string is folded (`fold`: lowercased, accents removed), mapped to 6-bit codes (letters,
 * digits and common punctuation have their own; anything else shares one, OTHER), padded as
 * `0 s 0 0`, and every trigram of that is a key (64³ keys). A key's postings are the table
 * indexes of the strings having it, ascending, each once, written as LEB128 deltas. The folded
 * strings are kept as UTF-8 in one buffer, where candidates are checked in index order. About
 * 2.5 bytes per character of the table in all. Because of the padding every substring of one or
 * two characters starts some trigram, the start of a string is the trigram `0 c0 c1` and its end
 * `c 0 0`:
 *
 * - one character: a bitset per code of the strings having it (64 bitsets of the table's size),
 *   and one of the strings having a word that starts with it (for the word rule);
 * - two characters: the union of the keys starting with them (a range), exact unless a
 *   character is OTHER (also one character at the start: the keys `0 c *`);
 * - longer, or anchored: the key with the fewest postings among the value's trigrams (with its
 *   padding when anchored), each candidate then checked.
 */
const BITS = 6;
const KEYS = 1 << (3 * BITS);
const MASK = KEYS - 1;
const OTHER = 63;
/** Code of each ASCII character; 0 is the padding. */
const CODES = new Uint8Array(128).fill(OTHER);
{
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 .-/:_&',()?=#%+@;!*$~[]\"|";
  for (let i = 0; i < alphabet.length; i++) CODES[alphabet.charCodeAt(i)] = i + 1;
}
const codeOf = (ch: number) => (ch < 128 ? CODES[ch]! : OTHER);
/**
 * The codes a character before the start of a word can have: the padding (the string's start),
 * the punctuation of the alphabet, and OTHER (which may also be a letter: candidates are checked).
 */
const BEFORE_WORD = [0, ...Array.from({ length: OTHER - 37 + 1 }, (_, i) => 37 + i)];

/** Strings handled between two yields of the build (5–10 ms of CPU for organization names at 1M entries). */
const CHUNK = 2_048;

/** Calls `emit` with every trigram key of a folded string (padded `0 s 0 0`). */
function trigrams(folded: string, emit: (key: number) => void) {
  const n = folded.length;
  if (n === 0) return;
  let key = codeOf(folded.charCodeAt(0));
  for (let j = 1; j <= n + 1; j++) {
    key = ((key << BITS) | (j < n ? codeOf(folded.charCodeAt(j)) : 0)) & MASK;
    emit(key);
  }
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
/** Whether a character is part of a word (a letter or a digit, as `words` splits). */
const isWordCode = (ch: number) =>
  ch < 128 ? (ch >= 97 && ch <= 122) || (ch >= 48 && ch <= 57) : WORD_CHARACTER.test(String.fromCodePoint(ch));

const varintLength = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

const utf8 = new TextEncoder();

/**
 * Units of testing one candidate against a value of `bytes` (UTF-8): a search of the whole string
 * anywhere (WORK.check), or at its start or as the whole of it a length test and a compare of at
 * most the value's bytes (WORK.anchoredBytesPerUnit).
 */
const checkUnits = (placement: Placement, bytes: number) =>
  placement === "anywhere" ? WORK.check : 1 + Math.ceil(bytes / WORK.anchoredBytesPerUnit);

/** How a value must sit in a string: anywhere, at its start, or as the whole of it. */
export type Placement = "anywhere" | "start" | "whole";

export class SubstringIndex {
  private constructor(
    /** The folded strings as UTF-8, string i at `text[starts[i] .. starts[i + 1])`. */
    private readonly text: Uint8Array,
    private readonly starts: Uint32Array,
    /** Key k's postings are `postings[offsets[k] .. offsets[k + 1])`. */
    private readonly offsets: Uint32Array,
    private readonly postings: Uint8Array,
    /** Per code: the strings having a character of that code. */
    private readonly characters: Bitset[],
    /** Per code: the strings having a word that starts with a character of that code. */
    private readonly wordStarts: Bitset[],
  ) {
    this.characterCounts = characters.map(countBits);
  }

  /** Per code: how many strings have a character of it (the bits of `characters`). */
  private readonly characterCounts: number[];

  /**
   * Work units (src/model/request-caps.ts, WORK) spent by `mark` and `markWords` since this
   * index was built, counted as the work is done: postings read, candidates checked, bitset
   * words combined. Never more than `markCost` and `markWordsCost` said beforehand.
   */
  work = 0;

  /** Bitset words of the table, in work units. */
  private get bitsetWork(): number {
    return Math.ceil(((this.starts.length + 30) >>> 5) / WORK.bitsetWordsPerUnit);
  }

  /** Postings of keys [from, to): their bytes, which is at least their number. */
  private postingBytes(from: number, to: number): number {
    return this.offsets[to]! - this.offsets[from]!;
  }

  /** Builds the index of `table` in steps of CHUNK strings, yielding between them. */
  static *build(table: readonly string[]): Generator<void, SubstringIndex> {
    const size = table.length;
    const folded: string[] = [];
    const starts = new Uint32Array(size + 1);
    const last = new Int32Array(KEYS).fill(-1);
    const lengths = new Uint32Array(KEYS);
    const characters = Array.from({ length: 1 << BITS }, () => createBitset(size));
    const wordStarts = Array.from({ length: 1 << BITS }, () => createBitset(size));
    let i = 0;
    const count = (key: number) => {
      if (last[key] === i) return;
      // Every character starts a trigram of its own.
      const first = key >>> (2 * BITS);
      if (first !== 0) setBit(characters[first]!, i);
      lengths[key]! += varintLength(i - last[key]!);
      last[key] = i;
    };
    for (let from = 0; from < size; from += CHUNK) {
      for (i = from; i < Math.min(size, from + CHUNK); i++) {
        const text = fold(table[i]!);
        folded.push(text);
        starts[i + 1] = starts[i]! + Buffer.byteLength(text, "utf8");
        trigrams(text, count);
        let previous = 0;
        for (const ch of text) {
          const code = ch.codePointAt(0)!;
          if (isWordCode(code) && (previous === 0 || !isWordCode(previous))) setBit(wordStarts[codeOf(code)]!, i);
          previous = code;
        }
      }
      yield;
    }
    const text = new Uint8Array(starts[size]!);
    const offsets = new Uint32Array(KEYS + 1);
    for (let k = 0; k < KEYS; k++) offsets[k + 1] = offsets[k]! + lengths[k]!;
    const postings = new Uint8Array(offsets[KEYS]!);
    const cursor = offsets.slice(0, KEYS);
    last.fill(-1);
    const write = (key: number) => {
      if (last[key] === i) return;
      let delta = i - last[key]!;
      last[key] = i;
      let at = cursor[key]!;
      while (delta >= 0x80) {
        postings[at++] = (delta & 0x7f) | 0x80;
        delta >>>= 7;
      }
      postings[at++] = delta;
      cursor[key] = at;
    };
    for (let from = 0; from < size; from += CHUNK) {
      for (i = from; i < Math.min(size, from + CHUNK); i++) {
        trigrams(folded[i]!, write);
        utf8.encodeInto(folded[i]!, text.subarray(starts[i]!, starts[i + 1]!));
      }
      yield;
    }
    return new SubstringIndex(text, starts, offsets, postings, characters, wordStarts);
  }

  /** Calls `visit` with every table index in the postings of keys [from, to); each costs `unit` work units. */
  private each(from: number, to: number, unit: number, visit: (i: number) => void) {
    const { postings, offsets } = this;
    let read = 0;
    for (let k = from; k < to; k++) {
      let id = -1;
      let at = offsets[k]!;
      const end = offsets[k + 1]!;
      while (at < end) {
        let delta = 0;
        let shift = 0;
        let byte: number;
        do {
          byte = postings[at++]!;
          delta |= (byte & 0x7f) << shift;
          shift += 7;
        } while (byte >= 0x80);
        id += delta;
        read++;
        visit(id);
      }
    }
    this.work += read * unit;
  }

  /** Where `value` (UTF-8) occurs in string i at or after byte `from` of it, as a byte offset into it; -1 if nowhere. */
  private find(i: number, value: Uint8Array, from: number): number {
    const { text } = this;
    const start = this.starts[i]!;
    const last = this.starts[i + 1]! - value.length;
    const head = value[0]!;
    for (let at = start + from; at <= last; at++) {
      if (text[at] !== head) continue;
      let k = 1;
      while (k < value.length && text[at + k] === value[k]) k++;
      if (k === value.length) return at - start;
    }
    return -1;
  }

  /** The character ending just before byte `at` of string i (decoding UTF-8 backwards); 0 at its start. */
  private characterBefore(i: number, at: number): number {
    const { text } = this;
    const start = this.starts[i]!;
    let p = start + at - 1;
    if (p < start) return 0;
    if (text[p]! < 0x80) return text[p]!;
    while (p > start && (text[p]! & 0xc0) === 0x80) p--;
    return new TextDecoder().decode(text.subarray(p, start + at)).codePointAt(0) ?? 0;
  }

  /** Whether string i has `value` (UTF-8, letters and digits) at the start of one of its words. */
  private startsWord(i: number, value: Uint8Array): boolean {
    for (let at = this.find(i, value, 0); at !== -1; at = this.find(i, value, at + 1))
      if (!isWordCode(this.characterBefore(i, at))) return true;
    return false;
  }

  /**
   * How `mark` finds a value: the bitset of a character (`from` -1), a range of keys, or the
   * key with the fewest postings among the value's trigrams (with its padding when anchored);
   * `whole` when those are the value's matches, unless a character is OTHER (else each
   * candidate is checked).
   */
  private planOf(value: string, placement: Placement): { codes: number[]; from: number; to: number; whole: boolean } {
    const n = value.length;
    // UTF-16 units, as `trigrams` reads them.
    const codes: number[] = [];
    for (let j = 0; j < n; j++) codes.push(codeOf(value.charCodeAt(j)));
    if (placement === "anywhere" && n === 1) return { codes, from: -1, to: -1, whole: true };
    if (placement === "anywhere" && n === 2) {
      const from = ((codes[0]! << BITS) | codes[1]!) << BITS;
      return { codes, from, to: from + (1 << BITS), whole: true };
    }
    if (placement === "start" && n === 1) {
      const from = codes[0]! << BITS;
      return { codes, from, to: from + (1 << BITS), whole: true };
    }
    const padded = [...(placement === "anywhere" ? [] : [0]), ...codes, ...(placement === "whole" ? [0, 0] : [])];
    let best = -1;
    let bestSize = Number.POSITIVE_INFINITY;
    for (let j = 0; j + 2 < padded.length; j++) {
      const key = (((padded[j]! << BITS) | padded[j + 1]!) << BITS) | padded[j + 2]!;
      const size = this.postingBytes(key, key + 1);
      if (size < bestSize) [best, bestSize] = [key, size];
    }
    return { codes, from: best, to: best + 1, whole: false };
  }

  /**
   * The work units (src/model/request-caps.ts, WORK) `mark` spends on `value` at most, from the
   * sizes of the postings it would read, before reading them; `alsoUnits` is what `also`
   * costs per candidate (0 without one).
   */
  markCost(value: string, placement: Placement, alsoUnits = 0): number {
    if (value.length === 0) return 0;
    const plan = this.planOf(value, placement);
    const exact = plan.whole && alsoUnits === 0 && !plan.codes.includes(OTHER);
    const unit = exact ? 1 : 1 + checkUnits(placement, Buffer.byteLength(value, "utf8")) + alsoUnits;
    if (plan.from === -1) return this.bitsetWork + (exact ? 0 : this.characterCounts[plan.codes[0]!]! * unit);
    return this.postingBytes(plan.from, plan.to) * unit;
  }

  /**
   * Sets in `bits` (over the table) every string whose folded form holds `value` (folded) as
   * `placement` says and passes `also` (given: a stricter test of the string, such as equality
   * with the value as given, costing `alsoUnits` per candidate). Reads the postings of the
   * value's trigrams, never the whole table.
   */
  mark(
    value: string,
    placement: Placement,
    bits: Bitset,
    also?: (i: number) => boolean,
    alsoUnits: number = WORK.check,
  ) {
    if (value.length === 0) return;
    const plan = this.planOf(value, placement);
    const bytes = utf8.encode(value);
    const { starts, text } = this;
    const holds =
      placement === "anywhere"
        ? (i: number) => this.find(i, bytes, 0) !== -1
        : (i: number) => {
            const at = starts[i]!;
            if (placement === "whole" && starts[i + 1]! - at !== bytes.length) return false;
            if (starts[i + 1]! - at < bytes.length) return false;
            for (let k = 0; k < bytes.length; k++) if (text[at + k] !== bytes[k]) return false;
            return true;
          };
    const check = (i: number) => {
      if (!hasBit(bits, i) && holds(i) && (also === undefined || also(i))) setBit(bits, i);
    };
    const exact = plan.whole && !plan.codes.includes(OTHER) && also === undefined;
    const unit = exact ? 1 : 1 + checkUnits(placement, bytes.length) + (also === undefined ? 0 : alsoUnits);
    if (plan.from === -1) {
      const having = this.characters[plan.codes[0]!]!;
      this.work += this.bitsetWork;
      if (exact) for (let w = 0; w < bits.length; w++) bits[w]! |= having[w]!;
      else {
        let read = 0;
        for (let w = 0; w < having.length; w++)
          for (let word = having[w]!; word !== 0; word &= word - 1) {
            read++;
            check((w << 5) | (31 - Math.clz32(word & -word)));
          }
        this.work += read * unit;
      }
      return;
    }
    this.each(plan.from, plan.to, unit, exact ? (i) => setBit(bits, i) : check);
  }

  /**
   * How `markWords` finds its strings: the bitset of the strings having a word starting with
   * each one-character word (exact), and for the other words, the candidates of the longest:
   * the keys of its first two characters after the start of a word (a padding or punctuation
   * code), or where a character is OTHER, `mark` of it anywhere.
   */
  private wordsPlan(wanted: string[]) {
    const singles: number[] = [];
    const longer: string[] = [];
    for (const word of wanted) {
      const code = codeOf(word.charCodeAt(0));
      if (word.length === 1 && code !== OTHER) singles.push(code);
      else longer.push(word);
    }
    if (longer.length === 0) return { singles, longer, longest: null, keys: null };
    const longest = longer.reduce((a, b) => (b.length > a.length ? b : a));
    const c0 = codeOf(longest.charCodeAt(0));
    const c1 = longest.length < 2 ? OTHER : codeOf(longest.charCodeAt(1));
    const keys = c0 === OTHER || c1 === OTHER ? null : BEFORE_WORD.map((x) => (((x << BITS) | c0) << BITS) | c1);
    return { singles, longer, longest, keys };
  }

  /** The work units `markWords` spends on `wanted` at most, before doing it (see `markCost`). */
  markWordsCost(wanted: string[]): number {
    const { singles, longer, longest, keys } = this.wordsPlan(wanted);
    const filter = singles.length * this.bitsetWork;
    if (longest === null) return filter + this.bitsetWork;
    if (keys === null) return filter + this.markCost(longest, "anywhere", WORK.wordCheck * longer.length);
    // Each candidate: read, then tested for every longer word (a lone two-character word: read only).
    const exact = longer.length === 1 && longest.length === 2;
    return (
      filter +
      keys.reduce((sum, key) => {
        const sure = exact && key >>> (2 * BITS) !== OTHER;
        return sum + this.postingBytes(key, key + 1) * (sure ? 1 : 1 + WORK.wordCheck * longer.length);
      }, 0)
    );
  }

  /**
   * Sets in `bits` (over the table) every string whose folded form has a word starting with each
   * of `wanted` (folded words: the string rule of FHIR search). One-character words are answered
   * by their bitsets of word starts, so `1 2 3` reads three bitsets, not every string holding a
   * 1; the longest other word's candidates are those with its first two characters at a word's
   * start, each checked.
   */
  markWords(wanted: string[], bits: Bitset) {
    const { singles, longer, longest, keys } = this.wordsPlan(wanted);
    let all: Bitset | null = null;
    if (singles.length > 0) {
      all = Uint32Array.from(this.wordStarts[singles[0]!]!);
      for (let k = 1; k < singles.length; k++) {
        const starting = this.wordStarts[singles[k]!]!;
        for (let w = 0; w < all.length; w++) all[w]! &= starting[w]!;
      }
      this.work += singles.length * this.bitsetWork;
    }
    if (longest === null) {
      for (let w = 0; w < bits.length; w++) bits[w]! |= all![w]!;
      this.work += this.bitsetWork;
      return;
    }
    const encoded = longer.map((word) => utf8.encode(word));
    const also = (i: number) => (all === null || hasBit(all, i)) && encoded.every((word) => this.startsWord(i, word));
    if (keys === null) {
      this.mark(longest, "anywhere", bits, also, WORK.wordCheck * longer.length);
      return;
    }
    // A lone two-character word is found exactly by a key whose first code is not OTHER.
    const exact = longer.length === 1 && longest.length === 2;
    for (const key of keys) {
      const sure = exact && key >>> (2 * BITS) !== OTHER;
      this.each(key, key + 1, sure ? 1 : 1 + WORK.wordCheck * longer.length, (i) => {
        if (!hasBit(bits, i) && (sure ? all === null || hasBit(all, i) : also(i))) setBit(bits, i);
      });
    }
  }
}
