/**
 * Organization names a list published damaged, repaired where what is wrong is plain (docs/api.md,
 * "Enrichment"): the entry's id stays that of the name as published, so ids hold; only the
 * served name changes. Each repair has a kind, which the ingest summary and `data:audit` count.
 *
 * - `quote-cut`: a name cut at a quote mark by the list's own export (Altera publishes `"Northwell`,
 *   `"Columbia`, `"Syracuse`: a field that began with a quote and lost the rest). The rest is not
 *   in the list, so it is not guessed; the stray quote is dropped (`Northwell`).
 * - `template`: a template fragment left after a real name (MEDITECH's "Bradley County Med Ctr
 *   MaaS Pod XXX XX", a MEDITECH-as-a-Service pod number never filled in) is cut.
 * - `url`: a name that is only a URL names no organization: served as no name (null).
 */
export const NAME_REPAIRS = ["quote-cut", "template", "url"] as const;
export type NameRepairKind = (typeof NAME_REPAIRS)[number];

/** An unmatched quote before one word, and nothing else: the field was cut at a quote mark. */
const QUOTE_CUT = /^"([^"\s]+)$/;
/** MEDITECH's unfilled pod template at the end of a name. */
const TEMPLATE = /\s+MaaS\s+Pod\s+X+(?:\s+X+)*\s*$/i;
/** A URL alone (a scheme, or www., then no whitespace). */
const URL_ONLY = /^(?:https?:\/\/|www\.)\S+$/i;

/** The repaired name (null: no name) and the kind of repair, or null when the name stands as published. */
export function repairName(name: string | null): { name: string | null; kind: NameRepairKind } | null {
  if (name === null) return null;
  const cut = QUOTE_CUT.exec(name);
  if (cut) return { name: cut[1]!, kind: "quote-cut" };
  if (TEMPLATE.test(name)) {
    const kept = name.replace(TEMPLATE, "");
    return kept === "" ? null : { name: kept, kind: "template" };
  }
  if (URL_ONLY.test(name)) return { name: null, kind: "url" };
  return null;
}
