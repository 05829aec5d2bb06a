/**
 * Availability history size: `bun bench/history-size.ts [--urls 1000] [--days 431]`.
 *
 * Writes one probe a day per URL through the probe store's own history path (append + roll-up
 * in daily transactions, URLs in random order as a run interleaves hosts) for `--days` days on
 * a fake clock, then reads the table's bytes on disk (SQLite's dbstat) and extrapolates to
 * 500,000 URLs. After 431 days a row holds its steady state: 31 days of raw records and 400 of
 * daily figures. Target: under 2 GB at 500,000 URLs probed daily.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../src/cli/args";
import type { ProbeRecord } from "../src/pipeline/probe/record";

const { values, fail } = parseCli({
  command: "bun run bench:history-size",
  synopsis: ["[--urls <n>] [--days <n>]"],
  description:
    "Writes one probe a day per URL through the probe store's history path for --days days on a fake clock, then measures the table on disk and extrapolates to 500,000 URLs. Target: under 2 GB.",
  options: { urls: { type: "string", default: "1000" }, days: { type: "string", default: "431" } },
  optionHelp: [
    ["--urls <n>", "URLs probed (default 1000)"],
    ["--days <n>", "days of probes (default 431: 31 days of records and 400 of daily figures)"],
  ],
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { openDatabase } = await import("../src/db/client");
const { DAY_MS } = await import("../src/db/history-format");
const { recordHistory } = await import("../src/pipeline/probe/history");
const urls = Number(values.urls);
const days = Number(values.days);
if (!Number.isInteger(urls) || urls < 1 || !Number.isInteger(days) || days < 1)
  fail("--urls and --days must be whole numbers ≥ 1");

const dir = mkdtempSync(join(tmpdir(), "history-size-"));
try {
  const db = openDatabase(join(dir, "history.sqlite"));
  const start = Date.parse("2026-01-01T04:00:00.000Z");
  let seed = 1;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const result = (up: boolean, ms: number): ProbeRecord["result"] => ({
    probeStatus: up ? "success" : "failed",
    entryStatus: null,
    errorKind: up ? null : "timeout",
    durationMs: ms,
    summary: {
      fhirVersion: "R4",
      softwareName: null,
      softwareVersion: null,
      supportedResourceCount: 0,
      supportedResources: [],
      smartSupported: false,
      smartCapabilities: [],
      grantTypes: [],
    },
    access: null,
    metadata: { ok: up, httpStatus: up ? 200 : null, body: null, errorKind: up ? null : "timeout", durationMs: ms },
    smart: { ok: up, httpStatus: up ? 200 : null, body: null },
  });
  const started = performance.now();
  const order = Array.from({ length: urls }, (_, i) => i);
  for (let day = 0; day < days; day++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const at = new Date(start + day * DAY_MS + Math.floor(random() * 3_600_000)).toISOString();
    const batch = order.map((i) => ({
      url: `https://fhir${i}.example.org/api/FHIR/R4/tenant-${i}`,
      result: result(random() > 0.03, 80 + Math.floor(random() * 900)),
    }));
    db.sqlite.transaction(() => {
      for (let k = 0; k < batch.length; k += 50) recordHistory(db.sqlite, batch.slice(k, k + 50), at);
    })();
  }
  const seconds = (performance.now() - started) / 1000;
  const stat = db.sqlite
    .prepare(
      "SELECT name, SUM(pgsize) AS bytes, SUM(payload) AS payload FROM dbstat WHERE name LIKE 'probe_history%' GROUP BY name",
    )
    .all() as { name: string; bytes: number; payload: number }[];
  const bytes = stat.reduce((sum, row) => sum + row.bytes, 0);
  const payload = stat.reduce((sum, row) => sum + row.payload, 0);
  const rows = db.sqlite
    .prepare("SELECT AVG(length(records)) AS records, AVG(length(days)) AS days FROM probe_history")
    .get() as { records: number; days: number };
  const perUrl = bytes / urls;
  console.log(
    JSON.stringify(
      {
        urls,
        days,
        writeSeconds: Math.round(seconds * 10) / 10,
        averageRecordsBytes: Math.round(rows.records),
        averageDaysBytes: Math.round(rows.days),
        payloadBytesPerUrl: Math.round(payload / urls),
        diskBytesPerUrl: Math.round(perUrl),
        tables: stat,
        at500kUrlsGB: Math.round((perUrl * 500_000) / 1e7) / 100,
      },
      null,
      2,
    ),
  );
  const ok = perUrl * 500_000 < 2e9;
  console.log(ok ? "PASS: under 2 GB at 500,000 URLs" : "FAIL: 2 GB or more at 500,000 URLs");
  db.sqlite.close();
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
