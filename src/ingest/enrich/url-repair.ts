/**
 * Published URLs repaired where the intent is unambiguous: junk before the scheme
 * (`": https://host/fhir"` → `https://host/fhir`), a missing scheme on what is plainly a host
 * name and path (`fhir.example.com/cgc` → `https://fhir.example.com/cgc`), and tabs or spaces
 * pasted inside a URL right beside a `/`, `:`, `?` or `#` (`https://host.com\t/API/R4` →
 * `https://host.com/API/R4`). Whitespace between two letters or digits is left alone: dropping it
 * would join two words into a different name (`https://127.0.0.1\tclinic.example.com`).
 * Anything else is left as published, for validation to accept or skip.
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

/** Tabs or spaces with a URL delimiter on at least one side. */
const WHITESPACE_BY_DELIMITER = /(?<=[/:?#])[ \t]+|[ \t]+(?=[/:?#])/g;

export function repairPublishedUrl(raw: string): RepairedUrl {
  const trimmed = raw.trim();
  const squeezed = trimmed.replace(WHITESPACE_BY_DELIMITER, "");
  const text = /[ \t]/.test(squeezed) ? trimmed : squeezed;
  const inner = text !== trimmed;
  const repaired = repairStart(text);
  return inner && !repaired.repaired ? { url: text, repaired: true } : repaired;
}

function repairStart(text: string): RepairedUrl {
  const at = text.search(SCHEME);
  if (at > 0 && JUNK_PREFIX.test(text.slice(0, at))) return { url: text.slice(at), repaired: true };
  if (at === -1 && !/^[a-z][a-z0-9+.-]*:/i.test(text) && BARE_HOST.test(text))
    return { url: `https://${text}`, repaired: true };
  return { url: text, repaired: false };
}
