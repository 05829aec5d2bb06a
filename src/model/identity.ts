/** Scheme and host lowercased, no trailing slash (docs/api.md, "Identifiers"). */
export function canonicalUrl(raw: string): string {
  const trimmed = raw.trim();
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(trimmed);
  if (!match) return trimmed.replace(/\/+$/, "");
  const [, scheme, host, rest] = match;
  return `${scheme!.toLowerCase()}://${host!.toLowerCase()}${rest!.replace(/\/+$/, "")}`;
}

/** 64 lowercase hex: SHA-256 of `vendorId \n canonicalUrl \n orgKey`. */
export function entryId(vendorId: string, url: string, npi: string | null, organizationName: string | null): string {
  const orgKey = npi ?? organizationName?.toLowerCase() ?? "";
  return new Bun.CryptoHasher("sha256").update(`${vendorId}\n${url}\n${orgKey}`).digest("hex");
}
