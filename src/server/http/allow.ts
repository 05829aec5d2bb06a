/** The `Allow` header of a 405 and of a CORS preflight: a route's methods, OPTIONS last. */
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const methodRank = (method: string) => {
  const rank = METHOD_ORDER.indexOf(method);
  return rank === -1 ? METHOD_ORDER.length : rank;
};

/** The Allow header for a set of methods: in the usual order, OPTIONS last. */
export function allowHeader(methods: Iterable<string>): string {
  const sorted = [...new Set(methods)].filter((m) => m !== "OPTIONS");
  sorted.sort((a, b) => methodRank(a) - methodRank(b) || a.localeCompare(b));
  return [...sorted, "OPTIONS"].join(", ");
}
