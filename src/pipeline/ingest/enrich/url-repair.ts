import { isIP } from "node:net";
import type { UrlEvidence } from "../../../model/evidence";
import { blockedAddressReason } from "../../probe/ip";

/**
 * Published URLs repaired where the intent is unambiguous: junk before the scheme
 * (`": https://host/fhir"` → `https://host/fhir`), a missing scheme on what is plainly a host
 * name and path (`fhir.example.com/cgc` → `https://fhir.example.com/cgc`), tabs or spaces
 * pasted inside a URL right beside a `/`, `:`, `?` or `#` (`https://host.com\t/API/R4` →
 * `https://host.com/API/R4`), and a loopback or private address left before the real host name
 * (`https://127.0.0.1\tclinic.example.com/API` → `https://clinic.example.com/API`: such an address
 * is never the public server, and what follows it is a whole host name and path). Other
 * whitespace between two letters or digits is left alone: dropping it would join two words into
 * a different name. Anything else is left as published, for validation to accept or skip; a
 * relative path needs the rest of the list (relative-url.ts).
 */
export interface RepairedUrl {
  url: string;
  /** What was repaired, in words (the ingest report says it), or null: as published. */
  repair: string | null;
  /** The kind of repair (URL_EVIDENCE), `published` when none. */
  kind: UrlEvidence;
}

const SCHEME = /https?:\/\//i;
/** Only punctuation and spaces before the scheme: a stray label separator or quote. */
const JUNK_PREFIX = /^[\s:;,'"`<>([{|*-]+$/;
/** A bare DNS name (at least one dot, a letter-only last label), optional port, then a path or nothing. */
const BARE_HOST =
  /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,}(?::\d{1,5})?(?:[/?#]\S*)?$/i;

/** Tabs or spaces with a URL delimiter on at least one side. */
const WHITESPACE_BY_DELIMITER = /(?<=[/:?#])[ \t]+|[ \t]+(?=[/:?#])/g;
/** `scheme://<first>` whitespace `<rest>`: two hosts, the first one to be judged. */
const TWO_HOSTS = /^(https?:\/\/)([^\s/?#]+)[ \t]+(\S+)$/i;

export function repairPublishedUrl(raw: string): RepairedUrl {
  const trimmed = raw.trim();
  // Whitespace is judged from the scheme on: what precedes it is junk or not (repairStart).
  const at = Math.max(0, trimmed.search(SCHEME));
  const body = trimmed.slice(at);
  const squeezed = body.replace(WHITESPACE_BY_DELIMITER, "");
  const text = trimmed.slice(0, at) + (/[ \t]/.test(squeezed) ? body : squeezed);
  const inner = text !== trimmed ? "whitespace inside the URL removed" : null;
  const addressFirst = withoutAddressBeforeHost(text);
  if (addressFirst !== null) return addressFirst;
  const start = repairStart(text);
  if (inner === null) return start;
  return {
    url: start.url,
    repair: start.repair === null ? inner : `${inner}; ${start.repair}`,
    kind: start.kind === "published" ? "cleaned" : start.kind,
  };
}

/** `https://127.0.0.1<TAB>clinic.example.com/API` → `https://clinic.example.com/API`, else null. */
function withoutAddressBeforeHost(text: string): RepairedUrl | null {
  const match = TWO_HOSTS.exec(text);
  if (!match) return null;
  const [, scheme, first, rest] = match as unknown as [string, string, string, string];
  const address = first.replace(/:\d+$/, "");
  const bare = address.replace(/^\[|\]$/g, "");
  const blocked = bare.toLowerCase() === "localhost" || (isIP(bare) !== 0 && blockedAddressReason(bare) !== null);
  if (!blocked || !BARE_HOST.test(rest)) return null;
  return {
    url: `${scheme}${rest}`,
    repair: `${address}, a non-public address, removed before the host name`,
    kind: "cleaned",
  };
}

function repairStart(text: string): RepairedUrl {
  const at = text.search(SCHEME);
  if (at > 0 && JUNK_PREFIX.test(text.slice(0, at)))
    return {
      url: text.slice(at),
      repair: `${JSON.stringify(text.slice(0, at))} before the scheme removed`,
      kind: "cleaned",
    };
  if (at === -1 && !/^[a-z][a-z0-9+.-]*:/i.test(text) && BARE_HOST.test(text))
    return { url: `https://${text}`, repair: "https:// added before a host name", kind: "scheme-assumed" };
  return { url: text, repair: null, kind: "published" };
}
