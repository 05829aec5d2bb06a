/**
 * What result rows and a record say, as pure functions of the API's answers (no DOM): the page
 * (views.ts, main.ts) and its unit tests share them.
 */

/** FHIR versions, newest first (an unknown one last): the order one organization's servers are shown in. */
const VERSION_RANK = ["R5", "R4B", "R4", "STU3", "DSTU2"];
const versionRank = (version: string) => {
  const rank = VERSION_RANK.indexOf(version);
  return rank === -1 ? VERSION_RANK.length : rank;
};

/**
 * A page's records with each organization's servers (the same vendor and name, next to each other
 * in the list's order) newest FHIR version first, so its first row, and that row's Copy, is the
 * URL an app wants; `index` maps each shown row back to its place in the answer (its `meta`).
 */
export function newestFirst<T extends { vendorId: string; organizationName: string | null; fhirVersion: string }>(
  records: T[],
): { record: T; index: number }[] {
  const rows = records.map((record, index) => ({ record, index }));
  const out: typeof rows = [];
  for (let start = 0; start < rows.length; ) {
    const { vendorId, organizationName } = rows[start]!.record;
    let end = start + 1;
    while (
      end < rows.length &&
      organizationName !== null &&
      rows[end]!.record.vendorId === vendorId &&
      rows[end]!.record.organizationName === organizationName
    )
      end++;
    out.push(
      ...rows
        .slice(start, end)
        .sort((a, b) => versionRank(a.record.fhirVersion) - versionRank(b.record.fhirVersion) || a.index - b.index),
    );
    start = end;
  }
  return out;
}

/** Fewer probes than this in all, and an uptime is said as the probes it rests on, not a percentage. */
const FEW_PROBES = 3;

/** A window's uptime: a percentage, or, from fewer than a few probes, "1 probe, up" and the like. */
export function uptimeText(value: number | null, recent: { outcome: string }[]): string {
  if (value === null || recent.length >= FEW_PROBES)
    return value === null ? "no probes" : `${(value * 100).toFixed(2)} %`;
  const up = recent.filter((p) => p.outcome === "success").length;
  if (recent.length === 1) return `1 probe, ${up === 1 ? "up" : "down"}`;
  return `${recent.length} probes, ${up} up`;
}
