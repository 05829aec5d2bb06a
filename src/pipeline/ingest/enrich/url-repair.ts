/**
 * Published URLs repaired where the intent is unambiguous: junk before the scheme
 * (`": https://host/fhir"` → `https://host/fhir`) and a missing scheme on what is plainly a host
 * name and path (`fhir.example.com/cgc` → `https://fhir.example.com/cgc`). Anything else is left
 * as published, for validation to accept or skip.
 */
export interface RepairedUrl {
  url: string;
  repaired: boolean;
}

const SCHEME = /https?:\/\//i;
/** Only punctuation and spaces before the scheme: a stray label separator or quote. */
const JUNK_PREFIX = /^[\s:;,'"`<>([{|*-]+$/;
/** A bare DNS name (at least one dot, a letter-only last label), optional port, then a path or nothing. */
const BARE_HOST =
  /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,}(?::\d{1,5})?(?:[/?#]\S*)?$/i;

export function repairPublishedUrl(raw: string): RepairedUrl {
  const text = raw.trim();
  const at = text.search(SCHEME);
  if (at > 0 && JUNK_PREFIX.test(text.slice(0, at))) return { url: text.slice(at), repaired: true };
  if (at === -1 && !/^[a-z][a-z0-9+.-]*:/i.test(text) && BARE_HOST.test(text))
    return { url: `https://${text}`, repaired: true };
  return { url: raw, repaired: false };
}
