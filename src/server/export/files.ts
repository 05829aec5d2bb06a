import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { processAlive } from "../../db/build-file";
import type { EndpointFilter } from "../../directory/search";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { ByteBuffer } from "../http/byte-buffer";
import type { ExportFormat } from "./schemas";
import { exportChunks, FORMATS, nextTurn } from "./service";

/** One download file: its bytes on disk, as sent with `Content-Encoding: encoding`. */
export interface DownloadFile {
  path: string;
  size: number;
  /** A strong ETag: a hash of the file's bytes (so a resumed download is the same bytes or starts again). */
  etag: string;
  encoding: "gzip" | null;
}

/** The unfiltered export of one format, as it is and gzip-compressed. */
export interface DownloadFiles {
  identity: DownloadFile;
  gzip: DownloadFile;
}

/** Entries rendered between two turns of the event loop. */
const CHUNK = 1024;
let instances = 0;

/**
 * Thrown by a write whose dataset version was superseded before it finished: its temporary
 * files are removed, and the requests that waited for it are answered by the streamed export of
 * their own version. Not an error to report.
 */
export class SupersededWrite extends Error {
  constructor(version: number) {
    super(`the download file of version ${version} was superseded while it was written`);
  }
}

/**
 * The download files of the whole-directory exports (what most people download): written once
 * per dataset version and format on the first request for them, then served from disk with
 * Content-Length and byte ranges (routes.ts), holding no export slot.
 *
 * The FHIR and brands Bundles' absolute URLs name `origin`, the one origin the configuration
 * names (PUBLIC_ORIGIN), whatever origin a request addressed: a file per version and format,
 * never one per Host header a client makes up.
 *
 * Each server process keeps its files in a folder of its own, `<EXPORT_DIR>/<pid>/`: a
 * process's files are the output of its own code, never those of an older release left on the
 * volume. The folder is emptied when the process first writes into it (a process of the same
 * pid before it left it), the folders of processes that are gone are removed, and when a newer
 * version's first file is written every finished file of older versions goes; a file of an
 * older version still being written stops at its next chunk and removes its own temporary files.
 */
export class ExportFiles {
  private readonly dir: string;
  /** Of the newest version seen: format → its files, once written (the promise until then). */
  private readonly files = new Map<ExportFormat, DownloadFiles | Promise<DownloadFiles>>();
  private version = -1;
  private prepared = false;

  constructor(
    private readonly root: string,
    readonly origin: string,
  ) {
    // A second app in the same process (tests) gets a folder of its own: `<pid>-<n>`.
    const instance = ++instances;
    this.dir = join(root, instance === 1 ? String(process.pid) : `${process.pid}-${instance}`);
  }

  /**
   * The files of the whole export of `format` for the snapshot's version, written first if
   * needed; null when the snapshot is older than the newest version seen (the caller streams
   * the export instead). Once written they are returned as they are, not in a promise: the
   * answer is made at once (a pipelined request behind it must not wait for a turn of the
   * event loop).
   */
  get(
    snapshot: DatasetSnapshot,
    format: ExportFormat,
    filter: EndpointFilter,
  ): DownloadFiles | Promise<DownloadFiles> | null {
    if (snapshot.version < this.version) return null;
    if (snapshot.version > this.version) this.moveTo(snapshot.version);
    let files = this.files.get(format);
    if (files === undefined) {
      const version = snapshot.version;
      const path = join(this.dir, `v${version}-${format}.${FORMATS[format].extension}`);
      const written = writeDownloadFiles(snapshot, format, filter, this.origin, path, () => this.version !== version);
      files = written;
      this.files.set(format, written);
      written.then(
        (done) => {
          if (this.files.get(format) === written) this.files.set(format, done);
        },
        // A failed write (a full disk) is tried again by the next request.
        () => {
          if (this.files.get(format) === written) this.files.delete(format);
        },
      );
    }
    return files;
  }

  private moveTo(version: number) {
    this.version = version;
    this.files.clear();
    if (!this.prepared) {
      this.prepared = true;
      rmSync(this.dir, { recursive: true, force: true });
      if (existsSync(this.root))
        for (const name of readdirSync(this.root)) {
          const pid = Number(/^(\d+)(?:-\d+)?$/.exec(name)?.[1] ?? 0);
          if (pid && pid !== process.pid && !processAlive(pid))
            rmSync(join(this.root, name), { recursive: true, force: true });
        }
    } else if (existsSync(this.dir))
      // Temporary files belong to writes still running: each removes its own.
      for (const name of readdirSync(this.dir))
        if (!name.startsWith(`v${version}-`) && !name.endsWith(TEMPORARY))
          rmSync(join(this.dir, name), { force: true });
  }
}

/** The suffix of a file being written. */
const TEMPORARY = `.${process.pid}.tmp`;

/** A strong ETag of bytes hashed by `hasher`. */
const etagOf = (hasher: Bun.CryptoHasher) => `"${hasher.digest("base64url").slice(0, 27)}"`;

/**
 * Renders the export into `path` and compresses it into `path.gz`, each through a temporary
 * file renamed into place (a reader never sees half a file). Rendering takes CHUNK entries per
 * turn of the event loop, as the streamed export does; gzip runs on the thread pool. Once
 * `superseded()` (a newer version's files are wanted), it stops with SupersededWrite.
 */
async function writeDownloadFiles(
  snapshot: DatasetSnapshot,
  format: ExportFormat,
  filter: EndpointFilter,
  origin: string,
  path: string,
  superseded: () => boolean,
): Promise<DownloadFiles> {
  mkdirSync(join(path, ".."), { recursive: true });
  const temp = `${path}${TEMPORARY}`;
  const gzipTemp = `${path}.gz${TEMPORARY}`;
  const stopIfSuperseded = () => {
    if (superseded()) throw new SupersededWrite(snapshot.version);
  };
  try {
    const writer = FORMATS[format].writer(snapshot, origin, filter);
    const out = new ByteBuffer();
    const hasher = new Bun.CryptoHasher("sha256");
    let size = 0;
    const fd = openSync(temp, "w");
    try {
      const flush = () => {
        const view = out.bytes.subarray(0, out.length);
        hasher.update(view);
        for (let done = 0; done < view.length; ) done += writeSync(fd, view, done);
        size += view.length;
        out.clear();
      };
      writer.begin(out);
      for (const { ordinals, from, to } of exportChunks(snapshot, filter, CHUNK)) {
        writer.write(ordinals, from, to, out);
        flush();
        await nextTurn();
        stopIfSuperseded();
      }
      writer.end(out);
      flush();
    } finally {
      closeSync(fd);
    }
    const gzipHasher = new Bun.CryptoHasher("sha256");
    let gzipSize = 0;
    const gzip = createGzip({ level: 6 });
    gzip.on("data", (chunk: Uint8Array) => {
      gzipHasher.update(chunk);
      gzipSize += chunk.length;
    });
    await pipeline(createReadStream(temp), gzip, createWriteStream(gzipTemp));
    stopIfSuperseded();
    renameSync(gzipTemp, `${path}.gz`);
    renameSync(temp, path);
    return {
      identity: { path, size, etag: etagOf(hasher), encoding: null },
      gzip: { path: `${path}.gz`, size: gzipSize, etag: etagOf(gzipHasher), encoding: "gzip" },
    };
  } catch (error) {
    rmSync(temp, { force: true });
    rmSync(gzipTemp, { force: true });
    throw error;
  }
}
