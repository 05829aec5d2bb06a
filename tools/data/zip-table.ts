/**
 * bun run data:zip-table — writes src/model/zip-places.tsv.gz from the `zipcodes` npm
 * package (a dev dependency): one `ZIP<TAB>state<TAB>city<TAB>latitude<TAB>longitude` line per US ZIP
 * code whose state is a USPS state, district or territory, sorted by ZIP, gzip-compressed
 * (coordinates in degrees, 4 decimals: about 11 m). Ingest reads the places and the list's `near`
 * filter the coordinates from that file (no network, no package load at run time).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args";
import { US_STATES } from "../../src/model/us-states";

parseCli({
  command: "bun run data:zip-table",
  synopsis: [""],
  description:
    "Writes src/model/zip-places.tsv.gz (tracked) from the zipcodes package: one ZIP<TAB>state<TAB>city<TAB>latitude<TAB>longitude line per US ZIP code, sorted, gzip-compressed.",
  options: {},
  optionHelp: [],
});
// Loaded after the arguments are read: the package is large, and --help needs none of it.
const { codes } = await import("zipcodes");

const lines = Object.values(codes)
  .filter((row) => row !== undefined && row.country === "US" && /^\d{5}$/.test(row.zip) && row.state in US_STATES)
  .map(
    (row) =>
      `${row!.zip}\t${row!.state}\t${row!.city.replace(/\s+/g, " ").trim()}\t${row!.latitude.toFixed(4)}\t${row!.longitude.toFixed(4)}`,
  )
  .sort();
const out = join(import.meta.dir, "../../src/model/zip-places.tsv.gz");
const bytes = Bun.gzipSync(Buffer.from(`${lines.join("\n")}\n`), { level: 9 });
writeFileSync(out, bytes);
console.log(`${out}: ${lines.length} ZIP codes, ${bytes.length} bytes`);
