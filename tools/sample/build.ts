import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildDatabaseFile } from "../../src/db/build-file";
import { markGenerated } from "../../src/db/dataset-meta";
import { ingestFile, syncVendorRegistry } from "../../src/pipeline/ingest";
import { loadRegistry } from "../../src/pipeline/ingest/registry";
import { probeDue } from "../../src/pipeline/probe";
import { generateDemoHistory } from "./history";
import { loadManifest, SAMPLE_DIR } from "./manifest";
import { startAnswerServer } from "./server";

export interface BuildSampleOptions {
  log?: (line: string) => void;
  /** Where the lists, answers and manifest are (default db/sample/). */
  sampleDir?: string;
}

/**
 * Builds the bundled sample dataset into `path` with the real pipeline, offline: the vendor
 * registry, every sample list through ingest (in manifest order, each with its fixed `now`), and
 * the probe against a local server replaying the recorded answers. The database is built in a
 * temporary file next to `path` and renamed into place only when complete.
 */
export async function buildSampleDatabase(path: string, opts: BuildSampleOptions = {}): Promise<void> {
  const log = opts.log ?? (() => {});
  const sampleDir = opts.sampleDir ?? SAMPLE_DIR;
  const manifest = await loadManifest(sampleDir);
  // The demo keeps the registry it was recorded with (db/sample/vendors.json), not the national one.
  const registry = loadRegistry(join(sampleDir, "vendors.json"));
  await buildDatabaseFile(path, async (db) => {
    await syncVendorRegistry(db, registry);
    // Invented hosts answered by a local replay: the server never refreshes this dataset.
    markGenerated(db.sqlite, "data:sample");
    const server = await startAnswerServer(manifest, sampleDir);
    try {
      for (const step of manifest.steps) {
        if (step.action === "ingest") {
          const summary = await ingestFile(db, {
            vendorId: step.vendorId,
            listId: step.listId,
            file: join(sampleDir, step.file),
            access: step.access,
            force: step.force,
            now: step.now,
            registry,
          });
          if (!summary.ok)
            throw new Error(
              `sample list ${step.file} (${step.vendorId} / ${step.listId}) was not ingested: ${summary.error}`,
            );
          const { added, updated, unchanged, removed, skipped } = summary;
          log(
            `sample: ${step.file}: ${added} added, ${updated} updated, ${unchanged} unchanged, ${removed} removed, ${skipped} skipped`,
          );
        } else {
          const at = new Date(step.now);
          const summary = await probeDue(db, {
            connectTo: server.connectTo,
            allowPrivate: true,
            timeoutMs: 5_000,
            concurrency: 32,
            now: () => at,
            // One transaction for the whole probe, so the demo's dataset versions (and the change
            // feed's version numbers) are the same on every build, not as many as answers arrived in.
            batchSize: Number.MAX_SAFE_INTEGER,
            flushIntervalMs: 24 * 3600_000,
          });
          log(
            `sample: probed ${summary.probed} URLs: ${summary.success} success, ${summary.partial} partial, ${summary.failed} failed (${summary.unresponsive} unresponsive)`,
          );
        }
      }
    } finally {
      await server.stop();
    }
  });
  if (!existsSync(path)) throw new Error(`sample database was not written to ${path}`);
  log(`sample: ${generateDemoHistory(path)} report-card history points generated (a year, marked generated)`);
}
