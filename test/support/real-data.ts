import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Public documents published by others, copied verbatim into test/fixtures/real so that a plain
 * clone runs every test that reads them; test/fixtures/real/README.md says where each came from.
 */
const REAL_DATA = join(import.meta.dir, "..", "fixtures", "real");

/** CapabilityStatements and SMART configurations from ONC Lantern's own test data. */
export const LANTERN_TEST_CAPABILITIES = join(REAL_DATA, "capabilities");
/** /metadata documents (`metadata/`) and SMART configurations (`smart/`) of live servers, 2019–2026. */
export const SERVER_CAPABILITIES = join(REAL_DATA, "real-capabilities");
/** Endpoint lists as vendors (and Lantern) publish them. */
export const VENDOR_LISTS = join(REAL_DATA, "vendor-lists");
/** ONC Lantern's national lists: MANIFEST.json here, the lists packed in prod_resources.json.zst. */
export const LANTERN = join(REAL_DATA, "lantern");

/**
 * The folder of Lantern's lists (`prod_resources`, 158 files, 14 MB), unpacked from the committed
 * zstd archive (a JSON object of file name → text) once per archive content into the system's
 * temporary folder, and shared read-only by every test file of a run (and later runs). Unpacked
 * into a folder of its own, then renamed: parallel test processes never see half a folder.
 */
export function lanternFiles(): string {
  const archive = readFileSync(join(LANTERN, "prod_resources.json.zst"));
  const hash = new Bun.CryptoHasher("sha256").update(archive).digest("hex").slice(0, 16);
  const dir = join(tmpdir(), `endpoint-directory-lantern-${hash}`);
  if (existsSync(dir)) return dir;
  mkdirSync(tmpdir(), { recursive: true });
  const partial = mkdtempSync(`${dir}.partial-`);
  const files = JSON.parse(Bun.zstdDecompressSync(archive).toString("utf8")) as Record<string, string>;
  for (const [name, text] of Object.entries(files)) writeFileSync(join(partial, name), text);
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another test process unpacked the same archive first: use its folder.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}
