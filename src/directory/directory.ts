import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openReader } from "../db/client";
import { readDatasetVersion } from "../db/dataset-meta";
import { VERSION_MOVED } from "./build-cli";
import { buildDirectoryData } from "./build-data";
import { readDataFile, readDataFileSync } from "./data-file";
import { DatasetSnapshot } from "./snapshot";

export interface DirectoryOptions {
  /** Where built index files are kept, one per dataset version (default `<database>.index/`). */
  indexDir?: string;
  /** Datasets with at least this many entries are indexed by a child process and the result kept on disk. */
  buildInProcessBelow?: number;
}

const BUILD_CLI = join(import.meta.dir, "build-cli.ts");
const KEEP_FILES = 2;

/**
 * The dataset the API serves: the newest complete snapshot. A refresh builds the next snapshot
 * beside the current one and swaps them in one step, so no request ever sees a mix.
 */
export class Directory {
  private snapshot: DatasetSnapshot;
  private timer: ReturnType<typeof setInterval> | undefined;
  private building: Promise<boolean> | null = null;
  private readonly indexDir: string;
  private readonly inProcessBelow: number;

  constructor(
    private readonly path: string,
    private readonly watcher: Database,
    options: DirectoryOptions = {},
  ) {
    this.indexDir = options.indexDir ?? `${path}.index`;
    this.inProcessBelow = options.buildInProcessBelow ?? 50_000;
    this.snapshot = this.openSync();
  }

  get current(): DatasetSnapshot {
    return this.snapshot;
  }

  /** Loads the newest dataset version if it differs from the one served; true when it swapped. */
  refreshIfChanged(): Promise<boolean> {
    if (readDatasetVersion(this.watcher) === this.snapshot.version) return Promise.resolve(false);
    this.building ??= this.openAsync()
      .then((next) => {
        const previous = this.snapshot;
        this.snapshot = next;
        previous.close();
        return true;
      })
      .finally(() => {
        this.building = null;
      });
    return this.building;
  }

  watch(intervalMs: number, onError: (error: unknown) => void) {
    this.timer = setInterval(() => this.refreshIfChanged().catch(onError), intervalMs);
    this.timer.unref?.();
  }

  close() {
    clearInterval(this.timer);
    this.snapshot.close();
  }

  /** A connection holding a read transaction: everything read through it is one version. */
  private pin(): { sqlite: Database; version: number; size: number } {
    const sqlite = openReader(this.path);
    sqlite.exec("BEGIN");
    const version = readDatasetVersion(sqlite);
    const size = (sqlite.prepare("SELECT COUNT(*) FROM entries").values()[0] as [number])[0];
    return { sqlite, version, size };
  }

  private fileFor(version: number) {
    return join(this.indexDir, `v${version}.bin`);
  }

  private openSync(): DatasetSnapshot {
    for (;;) {
      const pinned = this.pin();
      try {
        const file = this.fileFor(pinned.version);
        if (pinned.size < this.inProcessBelow) return new DatasetSnapshot(pinned.sqlite, buildDirectoryData(pinned.sqlite));
        if (!existsSync(file)) {
          const { exitCode } = Bun.spawnSync([process.execPath, BUILD_CLI, this.path, this.prepareFile(file), String(pinned.version)], { stdout: "inherit", stderr: "inherit" });
          if (exitCode === VERSION_MOVED) {
            pinned.sqlite.close();
            continue;
          }
          if (exitCode !== 0) throw new Error(`index build failed with exit code ${exitCode}`);
        }
        return this.snapshotFromFile(pinned.sqlite, file, readDataFileSync(file));
      } catch (error) {
        pinned.sqlite.close();
        throw error;
      }
    }
  }

  private async openAsync(): Promise<DatasetSnapshot> {
    for (;;) {
      const pinned = this.pin();
      try {
        const file = this.fileFor(pinned.version);
        if (pinned.size < this.inProcessBelow) return new DatasetSnapshot(pinned.sqlite, buildDirectoryData(pinned.sqlite));
        if (!existsSync(file)) {
          const child = Bun.spawn([process.execPath, BUILD_CLI, this.path, this.prepareFile(file), String(pinned.version)], { stdout: "inherit", stderr: "inherit" });
          const exitCode = await child.exited;
          if (exitCode === VERSION_MOVED) {
            pinned.sqlite.close();
            continue;
          }
          if (exitCode !== 0) throw new Error(`index build failed with exit code ${exitCode}`);
        }
        return this.snapshotFromFile(pinned.sqlite, file, await readDataFile(file));
      } catch (error) {
        pinned.sqlite.close();
        throw error;
      }
    }
  }

  private prepareFile(file: string): string {
    mkdirSync(this.indexDir, { recursive: true });
    return file;
  }

  private snapshotFromFile(sqlite: Database, file: string, data: Awaited<ReturnType<typeof readDataFile>>): DatasetSnapshot {
    if (data.version !== readDatasetVersion(sqlite)) throw new Error(`${file} holds version ${data.version}, not the pinned one`);
    this.removeOldFiles(data.version);
    return new DatasetSnapshot(sqlite, data);
  }

  private removeOldFiles(current: number) {
    const versions = readdirSync(this.indexDir)
      .map((name) => /^v(\d+)\.bin$/.exec(name)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number)
      .sort((a, b) => b - a);
    for (const version of versions.slice(KEEP_FILES)) if (version !== current) rmSync(this.fileFor(version), { force: true });
  }
}
