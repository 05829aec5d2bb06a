import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Db, openDatabase } from "./client";

let builds = 0;

function removeDatabaseFiles(path: string) {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
}

/** True while process `pid` exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const tempPrefix = (path: string) => `.${basename(path)}.building-`;

/**
 * Holds an exclusive SQLite lock on `path` (created) for as long as the returned connection is
 * open: the system drops it when the process dies, however it dies.
 */
function holdLock(path: string): Database {
  const lock = new Database(path, { create: true });
  lock.exec("PRAGMA busy_timeout = 5000");
  lock.exec("BEGIN EXCLUSIVE");
  return lock;
}

/** Whether nobody holds the lock of `path` (taken and let go at once). */
function lockIsFree(path: string): boolean {
  let probe: Database | undefined;
  try {
    probe = new Database(path, { readwrite: true });
    probe.exec("PRAGMA busy_timeout = 0");
    probe.exec("BEGIN EXCLUSIVE");
    probe.exec("ROLLBACK");
    return true;
  } catch {
    return false;
  } finally {
    probe?.close();
  }
}

/**
 * Removes the temporary files of builds of `path` whose process is gone (killed mid-build, e.g.
 * `kill -9` during a first start). A build holds a lock on its own `<temp>.lock` for its whole
 * life, so a build whose lock is free is dead even when its pid (in the files' names) now
 * belongs to another live process: in a container a restarted server often gets the pid the
 * killed one had, or a neighbour (the refresh it starts) does. Files of a build without a lock file (an
 * older version's) are judged by their pid alone. A live builder's files stay.
 */
export function removeDeadBuilds(path: string) {
  const dir = dirname(path);
  if (!existsSync(dir)) return;
  const prefix = tempPrefix(path);
  const builds = new Map<string, string[]>();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const stem = /^\d+-\d+/.exec(name.slice(prefix.length))?.[0];
    if (stem) builds.set(stem, [...(builds.get(stem) ?? []), name]);
  }
  for (const [stem, names] of builds) {
    const lock = join(dir, `${prefix}${stem}.lock`);
    const pid = Number(stem.split("-")[0]);
    const dead = existsSync(lock) ? lockIsFree(lock) : pid !== process.pid && !processAlive(pid);
    if (!dead) continue;
    // The lock file last: until it goes, another start sees the build as one to judge by its lock.
    for (const name of names.filter((n) => !n.endsWith(".lock"))) rmSync(join(dir, name), { force: true });
    rmSync(lock, { force: true });
  }
}

/**
 * Builds a database file at `path` all at once: `fill` writes a new, migrated database in a
 * temporary file beside `path`, which is then made one self-contained file (no WAL beside it)
 * and renamed into place. When `fill` throws, the temporary file is removed and `path` is left
 * as it was: a failed build leaves nothing half-written.
 */
export async function buildDatabaseFile<T>(path: string, fill: (db: Db) => Promise<T>): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  removeDeadBuilds(path);
  const temp = join(dirname(path), `${tempPrefix(path)}${process.pid}-${++builds}`);
  removeDatabaseFiles(temp);
  // Held for the build's whole life, so that a start can tell it from a dead one (removeDeadBuilds).
  const alive = holdLock(`${temp}.lock`);
  try {
    const db = openDatabase(temp);
    let result: T;
    try {
      result = await fill(db);
      db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.sqlite.exec("PRAGMA journal_mode = DELETE");
    } finally {
      db.sqlite.close();
    }
    // A WAL or shared-memory file left by an earlier database at `path` must not meet the new one.
    for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
    renameSync(temp, path);
    return result;
  } catch (error) {
    removeDatabaseFiles(temp);
    throw error;
  } finally {
    alive.close();
    removeDatabaseFiles(`${temp}.lock`);
  }
}

/** How long a start waits for another process's first-start build (the national build takes minutes). */
const BUILD_WAIT_MS = 30 * 60_000;

/**
 * Builds `path` with `build` unless it exists, under a lock shared by every process starting on
 * the same path: an exclusive SQLite lock on `.<name>.build-lock` beside it (the system drops it
 * when its holder dies, so a killed builder's lock is taken over at once). The first process
 * builds; the others wait for the lock, find the file and open it. Returns whether this process
 * built it. The existing database and its `-wal`/`-shm` are never touched.
 */
export async function buildDatabaseOnce(
  path: string,
  build: () => Promise<unknown>,
  onWait: () => void = () => {},
): Promise<boolean> {
  if (existsSync(path)) return false;
  mkdirSync(dirname(path), { recursive: true });
  const lockPath = join(dirname(path), `.${basename(path)}.build-lock`);
  // Something else at the lock's path (a directory, a file that is not SQLite) is left as it
  // is, and named: the start stops until it is moved away.
  const unusable = (error: unknown) =>
    new Error(
      `the build lock ${lockPath} cannot be used (${(error as Error).message}): it must be an SQLite file or absent; move it away and start again`,
    );
  let lock: Database;
  try {
    lock = new Database(lockPath, { create: true });
  } catch (error) {
    throw unusable(error);
  }
  try {
    let locked: boolean;
    try {
      lock.exec("PRAGMA busy_timeout = 0");
      locked = tryLock(lock);
    } catch (error) {
      throw unusable(error);
    }
    if (!locked) {
      onWait();
      lock.exec(`PRAGMA busy_timeout = ${BUILD_WAIT_MS}`);
      lock.exec("BEGIN EXCLUSIVE");
    }
    // Holding the lock: a process that held it before may have built the file meanwhile.
    if (existsSync(path)) return false;
    removeDeadBuilds(path);
    await build();
    return true;
  } finally {
    lock.close();
  }
}

function tryLock(lock: Database): boolean {
  try {
    lock.exec("BEGIN EXCLUSIVE");
    return true;
  } catch (error) {
    if (/locked|busy/i.test((error as Error).message)) return false;
    throw error;
  }
}
