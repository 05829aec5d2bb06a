const utf8 = new TextDecoder("utf-8", { fatal: true });
const windows1252 = new TextDecoder("windows-1252");

/** The charset a Content-Type names, lowercased; null when none. */
function declaredCharset(contentType: string | null | undefined): string | null {
  return /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase() ?? null;
}

function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]);
  } catch {
    return null;
  }
}

/**
 * The text of a list body. A UTF-16 byte-order mark, or a charset other than UTF-8 named by the
 * server, is honoured. Otherwise the body is UTF-8 when its bytes are valid UTF-8, and else
 * Windows-1252, the encoding spreadsheets and older systems save (ISO-8859-1 is a subset): a
 * Latin-1 "Clínica Señor" stays "Clínica Señor", not "Cl�nica Se�or". A UTF-8 BOM is dropped.
 */
export function decodeListBody(bytes: Uint8Array, contentType?: string | null): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  const charset = declaredCharset(contentType);
  const declared = charset && charset !== "utf-8" && charset !== "utf8" ? decoderFor(charset) : null;
  if (declared && declared.encoding !== "utf-8") return declared.decode(bytes);
  try {
    return utf8.decode(bytes);
  } catch {
    return windows1252.decode(bytes);
  }
}
