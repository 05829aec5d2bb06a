import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";
import { processAlive } from "../db/build-file";
import { beginRead, closeReader, type Db, openReader } from "../db/client";
import { readDatabaseId, readDatasetVersion } from "../db/dataset-meta";
import { countEntries, maxEntryRowId } from "../db/describe";
import { readStoredIndex } from "../db/stored-index";
import { indexFileName, VERSION_MOVED } from "./build-cli";
import { buildDirectoryData } from "./build-data";
import { DamagedIndexError, parseDataBytes, readDataFile, readDataFileSync } from "./data-file";
import { DATA_FORMAT, type DirectoryData } from "./directory-data";
import { EntryLookups } from "./lookups";
import { keepHistoryOf } from "./report-cards";
import { DatasetSnapshot } from "./snapshot";

export interface DirectoryOptions {
  /** Where built index files are kept, one per dataset version (default `<database>.index/`). */
  indexDir?: string;
  /** Datasets with at least this many entries are indexed by a child process and the result kept on disk. */
  buildInProcessBelow?: number;
  /** Told once about each index file or stored copy found damaged, which is then rebuilt from the tables. */
  onDamagedIndex?: (source: string, reason: string) => void;
}

export const defaultIndexDir = (databasePath: string) => `${databasePath}.index`;

const BUILD_CLI = join(import.meta.dir, "build-cli.ts");
const CHILD_OUTPUT = { stdout: "inherit", stderr: "inherit" } as const;
const KEEP_FILES = 2;

/** What the plan read of the version it pinned, which index data must match. */
interface Pinned {
  version: number;
  databaseId: string;
  entries: number;
}

interface Plan {
  sqlite: Database;
  /** Set unless the data was built in process. */
  pinned?: Pinned;
  /** Set when the data was built in process. */
  snapshot?: DatasetSnapshot;
  file?: string;
  /** The index kept in the database, verified, when there is no file (a copy of the database alone). */
  stored?: DirectoryData;
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
  private readonly onDamaged: (source: string, reason: string) => void;

  constructor(
    private readonly path: string,
    private readonly watcher: Database,
    options: DirectoryOptions = {},
  ) {
    this.indexDir = options.indexDir ?? defaultIndexDir(path);
    this.inProcessBelow = options.buildInProcessBelow ?? 20_000;
    this.onDamaged = options.onDamagedIndex ?? (() => {});
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
   * from its index file or the copy kept in the database, built first by a child process when
   * there is neither (or the copy is damaged).
   */
  private plan(): Plan {
    const sqlite = openReader(this.path);
    try {
      beginRead(sqlite);
      const version = readDatasetVersion(sqlite);
      const entries = countEntries(sqlite);
      if (entries < this.inProcessBelow) {
        const data = buildDirectoryData(sqlite);
        keepHistoryOf(this.path, data.reportCards);
        return { sqlite, snapshot: new DatasetSnapshot(sqlite, data) };
      }
      const pinned = { version, databaseId: readDatabaseId(sqlite), entries };
      const file = join(this.indexDir, indexFileName(version));
      if (existsSync(file)) return { sqlite, pinned, file };
      const bytes = readStoredIndex(sqlite, DATA_FORMAT, version, pinned.databaseId);
      if (bytes) {
        const source = `${this.path} (table directory_index)`;
        const stored = this.sound(sqlite, pinned, source, () => parseDataBytes(source, bytes));
        if (stored) return { sqlite, pinned, file, stored };
      }
      mkdirSync(this.indexDir, { recursive: true });
      return { sqlite, pinned, file, builder: [process.execPath, BUILD_CLI, this.path, file, String(version)] };
    } catch (error) {
      closeReader(sqlite);
      throw error;
    }
  }

  private openSync(): DatasetSnapshot {
    for (;;) {
      const plan = this.plan();
      if (plan.snapshot) return plan.snapshot;
      if (plan.stored) return this.fromFile(plan, plan.stored);
      const exitCode = plan.builder ? Bun.spawnSync(plan.builder, CHILD_OUTPUT).exitCode : 0;
      if (!this.built(plan, exitCode)) continue;
      const data = this.fileData(plan, () => readDataFileSync(plan.file!));
      if (data) return this.fromFile(plan, data);
    }
  }

  /**
   * The next version, opened while the current one is served: the index file is read without
   * blocking, and its lookup indexes are built in steps before the snapshot is made, so requests
   * keep being answered until the swap.
   */
  private async openAsync(): Promise<DatasetSnapshot> {
    for (;;) {
      const plan = this.plan();
      if (plan.snapshot) return plan.snapshot;
      if (plan.stored) return this.fromFile(plan, plan.stored, await this.lookupsInSteps(plan, plan.stored));
      const exitCode = plan.builder ? await Bun.spawn(plan.builder, CHILD_OUTPUT).exited : 0;
      if (!this.built(plan, exitCode)) continue;
      const read = await readDataFile(plan.file!).then(
        (data) => () => data,
        (error) => () => {
          throw error;
        },
      );
      const data = this.fileData(plan, read);
      if (data) return this.fromFile(plan, data, await this.lookupsInSteps(plan, data));
    }
  }

  /** The lookup indexes of `data`, built a step per turn; the plan's connection closed if the build fails. */
  private lookupsInSteps(plan: Plan, data: DirectoryData): Promise<EntryLookups> {
    return EntryLookups.buildInSteps(data).catch((error) => this.abandon(plan, error));
  }

  /** False when the database moved on before the child process pinned it (plan again). */
  private built(plan: Plan, exitCode: number | null): boolean {
    if (exitCode === VERSION_MOVED) {
      closeReader(plan.sqlite);
      return false;
    }
    if (exitCode !== 0) this.abandon(plan, new Error(`index build failed with exit code ${exitCode}`));
    return true;
  }

  /**
   * The plan's index file, read by `read` and sound (see `sound`), or null when it must be built
   * again: it is removed and the version planned again. A file the child process has just built
   * that fails is an error. A file built from another database (one that lived at this path
   * before, or from before files carried an identity) is replaced without a word.
   */
  private fileData(plan: Plan, read: () => DirectoryData): DirectoryData | null {
    const data = this.sound(plan.sqlite, plan.pinned!, plan.file!, read, plan.builder === undefined);
    if (data) return data;
    if (plan.builder) this.abandon(plan, new Error(`${plan.file}, just built, cannot be served`));
    rmSync(plan.file!, { force: true });
    closeReader(plan.sqlite);
    return null;
  }

  /**
   * The data `read` gives, if it can be served for the version `sqlite` pins: whole and sound
   * (data-file.ts), of that version, database and entry count (`pinned`: what the plan read in
   * the same read transaction), its row ids within the table's. Otherwise null, the reason told
   * to onDamaged (unless `quiet` and the data is only another database's) or thrown when it is
   * not damage (a read error).
   */
  private sound(
    sqlite: Database,
    { version, databaseId, entries }: Pinned,
    source: string,
    read: () => DirectoryData,
    quiet = false,
  ): DirectoryData | null {
    let data: DirectoryData;
    try {
      data = read();
    } catch (error) {
      if (!(error instanceof DamagedIndexError)) throw error;
      this.onDamaged(source, error.reason);
      return null;
    }
    const maxRowId = maxEntryRowId(sqlite);
    let reason: string | null = null;
    if (data.databaseId !== databaseId) {
      if (quiet) return null;
      reason = "it was built from another database";
    } else if (data.version !== version) reason = `it holds version ${data.version}, not ${version}`;
    else if (data.size !== entries) reason = `it holds ${data.size} entries, the database ${entries}`;
    else if (data.columns.rowId.some((rowId) => rowId > maxRowId)) reason = "its row ids run past the table's";
    if (reason === null) return data;
    this.onDamaged(source, reason);
    return null;
  }

  /** Removes the temporary files of index builds whose process is gone (killed mid-write). */
  private removeDeadTemps() {
    if (!existsSync(this.indexDir)) return;
    for (const name of readdirSync(this.indexDir)) {
      const pid = Number(/\.(\d+)\.tmp$/.exec(name)?.[1]);
      if (pid && !processAlive(pid)) rmSync(join(this.indexDir, name), { force: true });
    }
  }

  private abandon(plan: Plan, error: unknown): never {
    closeReader(plan.sqlite);
    throw error;
  }

  private fromFile(plan: Plan, data: DirectoryData, lookups?: EntryLookups): DatasetSnapshot {
    this.removeOldFiles(data.version);
    return new DatasetSnapshot(plan.sqlite, data, lookups);
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
export function openDirectory(
  db: Db,
  config: Pick<Config, "indexDir" | "indexInProcessBelow">,
  onDamagedIndex?: DirectoryOptions["onDamagedIndex"],
): Directory {
  return new Directory(db.path, db.sqlite, {
    indexDir: config.indexDir ?? undefined,
    buildInProcessBelow: config.indexInProcessBelow,
    onDamagedIndex,
  });
}
