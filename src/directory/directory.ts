import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";
import { processAlive } from "../db/build-file";
import { beginRead, type Db, openReader } from "../db/client";
import { readDatabaseId, readDatasetVersion } from "../db/dataset-meta";
import { countEntries } from "../db/describe";
import { readStoredIndex } from "../db/stored-index";
import { indexFileName, VERSION_MOVED } from "./build-cli";
import { buildDirectoryData } from "./build-data";
import { parseDataBytes, readDataFile, readDataFileSync } from "./data-file";
import { DATA_FORMAT, type DirectoryData } from "./directory-data";
import { DatasetSnapshot } from "./snapshot";

export interface DirectoryOptions {
  /** Where built index files are kept, one per dataset version (default `<database>.index/`). */
  indexDir?: string;
  /** Datasets with at least this many entries are indexed by a child process and the result kept on disk. */
  buildInProcessBelow?: number;
}

export const defaultIndexDir = (databasePath: string) => `${databasePath}.index`;

const BUILD_CLI = join(import.meta.dir, "build-cli.ts");
const CHILD_OUTPUT = { stdout: "inherit", stderr: "inherit" } as const;
const KEEP_FILES = 2;

interface Plan {
  sqlite: Database;
  /** Set when the data was built in process. */
  snapshot?: DatasetSnapshot;
  file?: string;
  /** The index kept in the database, when there is no file (a copy of the database alone). */
  stored?: Uint8Array;
  /** The child process to run first, when the file does not exist yet. */
  builder?: string[];
}

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
    this.indexDir = options.indexDir ?? defaultIndexDir(path);
    this.inProcessBelow = options.buildInProcessBelow ?? 20_000;
    this.removeDeadTemps();
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

  /**
   * Pins the newest version (a connection holding a read transaction: everything read through
   * it is that version) and decides how to get its data: built here for small datasets, else
   * from its index file, built first by a child process when missing.
   */
  private plan(): Plan {
    const sqlite = openReader(this.path);
    try {
      beginRead(sqlite);
      const version = readDatasetVersion(sqlite);
      const size = countEntries(sqlite);
      if (size < this.inProcessBelow)
        return { sqlite, snapshot: new DatasetSnapshot(sqlite, buildDirectoryData(sqlite)) };
      const file = join(this.indexDir, indexFileName(version));
      if (existsSync(file)) return { sqlite, file };
      const stored = readStoredIndex(sqlite, DATA_FORMAT, version, readDatabaseId(sqlite));
      if (stored) return { sqlite, file, stored };
      mkdirSync(this.indexDir, { recursive: true });
      return { sqlite, file, builder: [process.execPath, BUILD_CLI, this.path, file, String(version)] };
    } catch (error) {
      sqlite.close();
      throw error;
    }
  }

  private openSync(): DatasetSnapshot {
    for (;;) {
      const plan = this.plan();
      if (plan.snapshot) return plan.snapshot;
      if (plan.stored) return this.fromFile(plan, this.parseStored(plan));
      const exitCode = plan.builder ? Bun.spawnSync(plan.builder, CHILD_OUTPUT).exitCode : 0;
      if (!this.built(plan, exitCode)) continue;
      let data: DirectoryData;
      try {
        data = readDataFileSync(plan.file!);
      } catch (error) {
        this.abandon(plan, error);
      }
      if (this.foreign(plan, data)) continue;
      return this.fromFile(plan, data);
    }
  }

  private async openAsync(): Promise<DatasetSnapshot> {
    for (;;) {
      const plan = this.plan();
      if (plan.snapshot) return plan.snapshot;
      if (plan.stored) return this.fromFile(plan, this.parseStored(plan));
      const exitCode = plan.builder ? await Bun.spawn(plan.builder, CHILD_OUTPUT).exited : 0;
      if (!this.built(plan, exitCode)) continue;
      const data = await readDataFile(plan.file!).catch((error) => this.abandon(plan, error));
      if (this.foreign(plan, data)) continue;
      return this.fromFile(plan, data);
    }
  }

  /** False when the database moved on before the child process pinned it (plan again). */
  private built(plan: Plan, exitCode: number | null): boolean {
    if (exitCode === VERSION_MOVED) {
      plan.sqlite.close();
      return false;
    }
    if (exitCode !== 0) this.abandon(plan, new Error(`index build failed with exit code ${exitCode}`));
    return true;
  }

  /**
   * True when the file was built from another database (one that lived at this path before, or
   * a file from before index files carried an identity): it is removed and the version planned
   * again, which builds it afresh. A file just built that does not match is an error.
   */
  private foreign(plan: Plan, data: DirectoryData): boolean {
    if (data.databaseId === readDatabaseId(plan.sqlite)) return false;
    if (plan.builder) this.abandon(plan, new Error(`${plan.file} was built from another database`));
    rmSync(plan.file!, { force: true });
    plan.sqlite.close();
    return true;
  }

  /** Removes the temporary files of index builds whose process is gone (killed mid-write). */
  private removeDeadTemps() {
    if (!existsSync(this.indexDir)) return;
    for (const name of readdirSync(this.indexDir)) {
      const pid = Number(/\.(\d+)\.tmp$/.exec(name)?.[1]);
      if (pid && !processAlive(pid)) rmSync(join(this.indexDir, name), { force: true });
    }
  }

  private parseStored(plan: Plan): DirectoryData {
    try {
      return parseDataBytes(`${this.path} (table directory_index)`, plan.stored!);
    } catch (error) {
      this.abandon(plan, error);
    }
  }

  private abandon(plan: Plan, error: unknown): never {
    plan.sqlite.close();
    throw error;
  }

  private fromFile(plan: Plan, data: DirectoryData): DatasetSnapshot {
    if (data.version !== readDatasetVersion(plan.sqlite))
      this.abandon(plan, new Error(`${plan.file} holds version ${data.version}, not the pinned one`));
    this.removeOldFiles(data.version);
    return new DatasetSnapshot(plan.sqlite, data);
  }

  /** Keeps the newest files of the current format; older versions and other formats go. */
  private removeOldFiles(current: number) {
    if (!existsSync(this.indexDir)) return;
    const files = readdirSync(this.indexDir).filter((name) => name.endsWith(".bin"));
    const versions = files
      .map((name) => Number(/^v(\d+)-/.exec(name)?.[1]))
      .filter((version, i) => files[i] === indexFileName(version))
      .sort((a, b) => b - a);
    const keep = new Set([current, ...versions.slice(0, KEEP_FILES)].map(indexFileName));
    for (const name of files) if (!keep.has(name)) rmSync(join(this.indexDir, name), { force: true });
  }
}

/** The Directory of a database, as configured: src/index.ts builds it and hands it to createApp. */
export function openDirectory(db: Db, config: Pick<Config, "indexDir" | "indexInProcessBelow">): Directory {
  return new Directory(db.path, db.sqlite, {
    indexDir: config.indexDir ?? undefined,
    buildInProcessBelow: config.indexInProcessBelow,
  });
}
