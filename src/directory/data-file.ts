import { closeSync, fstatSync, openSync, readSync, renameSync } from "node:fs";
import type { Bitset } from "./bitset";
import { DATA_FORMAT, type DirectoryData, type EntryColumns, type Facet, STRING_TABLES } from "./directory-data";

/**
 * DirectoryData on disk: an 8-byte header length, a JSON header (string tables, facet keys,
 * section offsets), then the typed arrays, each 8-byte aligned so reading maps them with no copy.
 */
const MAGIC = `endpoint-directory-index/${DATA_FORMAT}`;
const ARRAY_TYPES = { Int32Array, Uint8Array, Float64Array, Uint32Array, Int8Array } as const;
type ArrayTypeName = keyof typeof ARRAY_TYPES;
type AnyArray = Int32Array | Uint8Array | Float64Array | Uint32Array | Int8Array;

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

/** The bytes of the data file of `data`. */
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
  };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const start = align8(8 + headerBytes.length);
  const file = new Uint8Array(start + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  file.set(headerBytes, 8);
  for (const [i, [, array]] of arrays.entries())
    file.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), start + sections[i]!.offset);
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
 * (tens of MB at a million entries, parsed once and of no use afterwards).
 */
export async function readDataFile(path: string): Promise<DirectoryData> {
  const file = Bun.file(path);
  const headerLength = Number(new DataView(await file.slice(0, 8).arrayBuffer()).getBigUint64(0, true));
  const header = await file.slice(8, 8 + headerLength).arrayBuffer();
  const body = await file.slice(align8(8 + headerLength)).arrayBuffer();
  return parseDataFile(path, new Uint8Array(header), body);
}

export function readDataFileSync(path: string): DirectoryData {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = new Uint8Array(8);
    readExactly(fd, length, 0);
    const headerLength = Number(new DataView(length.buffer).getBigUint64(0, true));
    const header = new Uint8Array(headerLength);
    readExactly(fd, header, 8);
    const start = align8(8 + headerLength);
    const body = new Uint8Array(Math.max(0, size - start));
    readExactly(fd, body, start);
    return parseDataFile(path, header, body.buffer);
  } finally {
    closeSync(fd);
  }
}

/** Parses the bytes of a whole data file held in memory (the copy kept in the database). */
export function parseDataBytes(name: string, bytes: Uint8Array): DirectoryData {
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const start = align8(8 + headerLength);
  // The arrays get a buffer of their own (aligned, without the header's bytes).
  return parseDataFile(name, bytes.subarray(8, 8 + headerLength), bytes.slice(start).buffer);
}

function readExactly(fd: number, into: Uint8Array, position: number) {
  for (let done = 0; done < into.length; ) {
    const read = readSync(fd, into, done, into.length - done, position + done);
    if (read === 0) throw new Error("the data file ends early");
    done += read;
  }
}

/** `body`: the file from the first 8-byte boundary after the header on (the arrays). */
function parseDataFile(path: string, headerBytes: Uint8Array, body: ArrayBuffer): DirectoryData {
  const header = JSON.parse(new TextDecoder().decode(headerBytes)) as Header;
  if (header.magic !== MAGIC) throw new Error(`${path} is not a directory index file`);
  const arrays = new Map<string, AnyArray>();
  for (const section of header.sections)
    arrays.set(section.name, new ARRAY_TYPES[section.type](body, section.offset, section.length));
  const columns = Object.fromEntries(
    [...arrays].filter(([name]) => name.startsWith("column:")).map(([name, array]) => [name.slice(7), array]),
  ) as unknown as EntryColumns;
  const facets = {
    vendor: new Map(),
    state: new Map(),
    fhirVersion: new Map(),
    access: new Map(),
    smart: new Map(),
    resource: new Map(),
    supports: new Map(),
    ready: new Map(),
  } as DirectoryData["facets"];
  for (const [facet, value, name] of header.facets) facets[facet].set(value, arrays.get(name) as Uint32Array);
  for (const table of STRING_TABLES)
    if (!Array.isArray(header.strings[table])) throw new Error(`${path}: missing string table ${table}`);
  return {
    version: header.version,
    // Files written before identities existed carry none: they match no database.
    databaseId: typeof header.databaseId === "string" ? header.databaseId : "\u0000none",
    size: header.size,
    listed: header.listed,
    columns,
    strings: header.strings,
    facets,
    postings: {
      offsets: arrays.get("postings:offsets") as Int32Array,
      ordinals: arrays.get("postings:ordinals") as Int32Array,
    },
    probeRowIds: arrays.get("probeRowIds") as Int32Array,
    statedVersions: arrays.get("statedVersions") as Int8Array,
    capabilityStats: header.capabilityStats,
    ids: {
      order: arrays.get("ids:order") as Int32Array,
      heads: arrays.get("ids:heads") as Uint32Array,
      starts: arrays.get("ids:starts") as Int32Array,
    },
    availability: {
      offsets: arrays.get("availability:offsets") as Uint32Array,
      bytes: arrays.get("availability:bytes") as Uint8Array,
    },
  };
}
