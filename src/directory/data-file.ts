import { closeSync, fstatSync, openSync, readSync, renameSync } from "node:fs";
import { asciiJson } from "../model/ascii-json";
import type { Bitset } from "./bitset";
import {
  DATA_FORMAT,
  type DirectoryData,
  type EntryColumns,
  FACETS,
  type Facet,
  STRING_TABLES,
} from "./directory-data";
import { verifyDirectoryData } from "./verify-data";

/**
 * DirectoryData on disk: an 8-byte header length, a JSON header (string tables, facet keys,
 * section offsets), then the typed arrays, each 8-byte aligned so reading maps them with no copy,
 * then the SHA-256 of every byte before it. A file is served only once its checksum matches and
 * its structure holds (verify-data.ts): anything else is a DamagedIndexError.
 */
const MAGIC = `endpoint-directory-index/${DATA_FORMAT}`;
const CHECKSUM_BYTES = 32;
const ARRAY_TYPES = { Int32Array, Uint8Array, Float64Array, Uint32Array, Int8Array } as const;
type ArrayTypeName = keyof typeof ARRAY_TYPES;
type AnyArray = Int32Array | Uint8Array | Float64Array | Uint32Array | Int8Array;

/** Each column's array type. */
const COLUMN_TYPES: Record<keyof EntryColumns, new (...args: never[]) => AnyArray> = {
  rowId: Int32Array,
  id: Uint8Array,
  url: Int32Array,
  vendor: Int32Array,
  organizationName: Int32Array,
  npi: Float64Array,
  tenantId: Int32Array,
  city: Int32Array,
  state: Int32Array,
  zipCode: Int32Array,
  fhirVersion: Int32Array,
  access: Uint8Array,
  status: Int32Array,
  lastUpdated: Int32Array,
  fhirVersionBasis: Uint8Array,
  urlEvidence: Uint8Array,
  namePlace: Uint8Array,
  environment: Uint8Array,
};

/** An index (a file, or the copy kept in the database) that is not whole or not sound: it is rebuilt, never served. */
export class DamagedIndexError extends Error {
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(`${source}: ${reason}`);
  }
}

interface Section {
  name: string;
  type: ArrayTypeName;
  offset: number;
  length: number;
}

interface Header {
  magic: string;
  version: number;
  databaseId: string;
  size: number;
  listed: number;
  strings: DirectoryData["strings"];
  facets: [Facet, string, string][];
  sections: Section[];
  capabilityStats: DirectoryData["capabilityStats"];
  reportCards: DirectoryData["reportCards"];
}

const align8 = (n: number) => (n + 7) & ~7;

function sectionsOf(data: DirectoryData): [string, AnyArray][] {
  const out: [string, AnyArray][] = Object.entries(data.columns).map(([name, array]) => [
    `column:${name}`,
    array as AnyArray,
  ]);
  for (const [facet, values] of Object.entries(data.facets))
    for (const [value, bits] of values) out.push([`facet:${facet}:${value}`, bits]);
  out.push(
    ["postings:offsets", data.postings.offsets],
    ["postings:ordinals", data.postings.ordinals],
    ["probeRowIds", data.probeRowIds],
    ["statedVersions", data.statedVersions],
  );
  out.push(["ids:order", data.ids.order], ["ids:heads", data.ids.heads], ["ids:starts", data.ids.starts]);
  out.push(["availability:offsets", data.availability.offsets], ["availability:bytes", data.availability.bytes]);
  return out;
}

/** The bytes of the data file of `data`, its SHA-256 at the end. */
export function encodeDataFile(data: DirectoryData): Uint8Array {
  const arrays = sectionsOf(data);
  const sections: Section[] = [];
  let offset = 0;
  for (const [name, array] of arrays) {
    sections.push({ name, type: array.constructor.name as ArrayTypeName, offset, length: array.length });
    offset = align8(offset + array.byteLength);
  }
  const facets: Header["facets"] = [];
  for (const [facet, values] of Object.entries(data.facets) as [Facet, Map<string, Bitset>][])
    for (const value of values.keys()) facets.push([facet, value, `facet:${facet}:${value}`]);
  const header: Header = {
    magic: MAGIC,
    version: data.version,
    databaseId: data.databaseId,
    size: data.size,
    listed: data.listed,
    strings: data.strings,
    facets,
    sections,
    capabilityStats: data.capabilityStats,
    reportCards: data.reportCards,
  };
  // In ASCII: the header's text then decodes to a one-byte-a-character string, and so does each
  // string of the tables parsed from it that has no character past U+00FF (see asciiJson).
  const headerBytes = Buffer.from(asciiJson(header));
  const start = align8(8 + headerBytes.length);
  const file = new Uint8Array(start + offset + CHECKSUM_BYTES);
  new DataView(file.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  file.set(headerBytes, 8);
  for (const [i, [, array]] of arrays.entries())
    file.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), start + sections[i]!.offset);
  file.set(sha256([file.subarray(0, start + offset)]), start + offset);
  return file;
}

export async function writeDataFile(path: string, data: DirectoryData): Promise<void> {
  await writeFileBytes(path, encodeDataFile(data));
}

/** Writes `bytes` beside `path` and renames them into place: readers never see half a file. */
export async function writeFileBytes(path: string, bytes: Uint8Array): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await Bun.write(temp, bytes);
  renameSync(temp, path);
}

/**
 * Reads a data file: the header, then the arrays into a buffer of their own. The arrays are views
 * of that buffer for as long as the version is served, so it must not hold the header's JSON
 * (tens of MB at a million entries, parsed once and of no use afterwards). Throws
 * DamagedIndexError when the file is not a whole, sound index (verifyDataFile).
 */
export async function readDataFile(path: string): Promise<DirectoryData> {
  const file = Bun.file(path);
  const { headerLength, start } = layoutOf(path, file.size, new Uint8Array(await file.slice(0, 8).arrayBuffer()));
  const prefix = new Uint8Array(await file.slice(0, start).arrayBuffer());
  const body = await file.slice(start).arrayBuffer();
  // The checksum over the whole file (about 0.25 s at 1M entries), a part per turn of the event
  // loop: a server reading its next version keeps answering meanwhile.
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(prefix);
  const arraysLength = Math.max(0, body.byteLength - CHECKSUM_BYTES);
  for (let from = 0; from < arraysLength; from += HASHED_PER_TURN) {
    hasher.update(new Uint8Array(body, from, Math.min(HASHED_PER_TURN, arraysLength - from)));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return parseDataFile(path, prefix, headerLength, body, new Uint8Array(hasher.digest()));
}

/** Bytes hashed between two turns of the event loop: a few ms. */
const HASHED_PER_TURN = 4 * 2 ** 20;

export function readDataFileSync(path: string): DirectoryData {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = new Uint8Array(Math.min(8, size));
    readExactly(fd, length, 0);
    const { headerLength, start } = layoutOf(path, size, length);
    const prefix = new Uint8Array(start);
    readExactly(fd, prefix, 0);
    const body = new Uint8Array(size - start);
    readExactly(fd, body, start);
    return parseDataFile(path, prefix, headerLength, body.buffer);
  } finally {
    closeSync(fd);
  }
}

/** Parses the bytes of a whole data file held in memory (the copy kept in the database). */
export function parseDataBytes(name: string, bytes: Uint8Array | string): DirectoryData {
  if (typeof bytes === "string") throw new DamagedIndexError(name, "its value is text, not the index's bytes");
  const { headerLength, start } = layoutOf(name, bytes.length, bytes.subarray(0, 8));
  // The arrays get a buffer of their own (aligned, without the header's bytes).
  return parseDataFile(name, bytes.subarray(0, start), headerLength, bytes.slice(start).buffer);
}

/** Where the header ends and the arrays start, from the first 8 bytes, checked against the file's size. */
function layoutOf(name: string, size: number, first8: Uint8Array): { headerLength: number; start: number } {
  if (size < 8 + CHECKSUM_BYTES) throw new DamagedIndexError(name, `${size} bytes, too short for an index`);
  const headerLength = Number(new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true));
  const start = align8(8 + headerLength);
  if (!Number.isSafeInteger(headerLength) || start + CHECKSUM_BYTES > size)
    throw new DamagedIndexError(name, `its header length (${headerLength}) runs past its ${size} bytes`);
  return { headerLength, start };
}

function readExactly(fd: number, into: Uint8Array, position: number) {
  for (let done = 0; done < into.length; ) {
    const read = readSync(fd, into, done, into.length - done, position + done);
    if (read === 0) throw new DamagedIndexError(`fd ${fd}`, "the data file ends early");
    done += read;
  }
}

/**
 * `prefix`: the file up to the first 8-byte boundary after the header; `body`: the rest (the
 * arrays, then the checksum). The checksum is verified before anything is parsed; `hashed`: the
 * SHA-256 of the prefix and the arrays when the caller has computed it already (in steps).
 */
function parseDataFile(
  name: string,
  prefix: Uint8Array,
  headerLength: number,
  body: ArrayBuffer,
  hashed?: Uint8Array,
): DirectoryData {
  const arraysLength = body.byteLength - CHECKSUM_BYTES;
  const stored = new Uint8Array(body, arraysLength, CHECKSUM_BYTES);
  const actual = hashed ?? sha256([prefix, new Uint8Array(body, 0, arraysLength)]);
  if (!actual.every((byte, i) => byte === stored[i]))
    throw new DamagedIndexError(name, "its SHA-256 does not match its bytes (damaged or cut short)");
  const header = parseHeader(name, prefix.subarray(8, 8 + headerLength), arraysLength);
  const arrays = new Map<string, AnyArray>();
  for (const section of header.sections)
    arrays.set(section.name, new ARRAY_TYPES[section.type](body, section.offset, section.length));
  const array = <T extends AnyArray>(section: string, type: new (...args: never[]) => T): T => {
    const found = arrays.get(section);
    if (!(found instanceof type))
      throw new DamagedIndexError(name, `section ${section} is missing or not a ${type.name}`);
    return found;
  };
  const columns = Object.fromEntries(
    Object.entries(COLUMN_TYPES).map(([column, type]) => [column, array(`column:${column}`, type)]),
  ) as unknown as EntryColumns;
  const facets = Object.fromEntries(FACETS.map((facet) => [facet, new Map()])) as DirectoryData["facets"];
  for (const [facet, value, section] of header.facets) facets[facet].set(value, array(section, Uint32Array));
  const data: DirectoryData = {
    version: header.version,
    databaseId: header.databaseId,
    size: header.size,
    listed: header.listed,
    columns,
    strings: header.strings,
    facets,
    postings: {
      offsets: array("postings:offsets", Int32Array),
      ordinals: array("postings:ordinals", Int32Array),
    },
    probeRowIds: array("probeRowIds", Int32Array),
    statedVersions: array("statedVersions", Int8Array),
    capabilityStats: header.capabilityStats,
    reportCards: header.reportCards,
    ids: {
      order: array("ids:order", Int32Array),
      heads: array("ids:heads", Uint32Array),
      starts: array("ids:starts", Int32Array),
    },
    availability: {
      offsets: array("availability:offsets", Uint32Array),
      bytes: array("availability:bytes", Uint8Array),
    },
  };
  const problem = verifyDirectoryData(data);
  if (problem !== null) throw new DamagedIndexError(name, problem);
  return data;
}

/**
 * The header as written, or DamagedIndexError: every field of the expected type, the string
 * tables arrays of strings, facets of the known names, sections of a known array type inside the
 * `arraysLength` bytes after it. Tables and facets are copied into objects of known keys only,
 * so no key of the file (`__proto__` included) reaches an object the server reads.
 */
function parseHeader(name: string, bytes: Uint8Array, arraysLength: number): Header {
  const fail = (reason: string): never => {
    throw new DamagedIndexError(name, reason);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    fail(`its header is not JSON (${(error as Error).message})`);
  }
  const header = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (header.magic !== MAGIC) fail(`it is not a directory index of format ${DATA_FORMAT}`);
  const count = (key: string) => {
    const value = header[key];
    return Number.isSafeInteger(value) && (value as number) >= 0
      ? (value as number)
      : fail(`its ${key} is not a count`);
  };
  const version = count("version");
  const size = count("size");
  const listed = count("listed");
  if (listed > size) fail(`it lists ${listed} of ${size} entries`);
  if (typeof header.databaseId !== "string") fail("it names no database");
  const rawStrings = (header.strings ?? {}) as Record<string, unknown>;
  const strings = {} as Header["strings"];
  for (const table of STRING_TABLES) {
    const values = Object.hasOwn(rawStrings, table) ? rawStrings[table] : undefined;
    if (!Array.isArray(values) || !values.every((value) => typeof value === "string"))
      fail(`its string table ${table} is not a list of strings`);
    strings[table] = values as string[];
  }
  if (!Array.isArray(header.facets) || !Array.isArray(header.sections)) fail("it has no facet or section list");
  const facets = (header.facets as unknown[]).map((item) => {
    const [facet, value, section] = Array.isArray(item) ? item : [];
    if (!(FACETS as readonly unknown[]).includes(facet) || typeof value !== "string" || typeof section !== "string")
      fail(`facet ${JSON.stringify(item).slice(0, 80)} is not a known facet, value and section`);
    return [facet, value, section] as [Facet, string, string];
  });
  const names = new Set<string>();
  const sections = (header.sections as Record<string, unknown>[]).map((section) => {
    const { name: sectionName, type, offset, length } = section ?? {};
    const label = JSON.stringify(section).slice(0, 120);
    if (typeof sectionName !== "string" || names.has(sectionName)) fail(`section ${label} has no name of its own`);
    names.add(sectionName as string);
    if (typeof type !== "string" || !Object.hasOwn(ARRAY_TYPES, type)) fail(`section ${label} has an unknown type`);
    const width = ARRAY_TYPES[type as ArrayTypeName].BYTES_PER_ELEMENT;
    if (
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(length) ||
      (offset as number) < 0 ||
      (length as number) < 0
    )
      fail(`section ${label} has no offset or length`);
    if ((offset as number) % width !== 0 || (offset as number) + (length as number) * width > arraysLength)
      fail(`section ${label} lies outside the file's ${arraysLength} bytes of arrays`);
    return { name: sectionName, type, offset, length } as Section;
  });
  return {
    magic: MAGIC,
    version,
    databaseId: header.databaseId as string,
    size,
    listed,
    strings,
    facets,
    sections,
    capabilityStats: header.capabilityStats as Header["capabilityStats"],
    reportCards: header.reportCards as Header["reportCards"],
  };
}

const sha256 = (parts: Uint8Array[]): Uint8Array => {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const part of parts) hasher.update(part);
  return hasher.digest();
};
