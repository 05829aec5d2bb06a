import { EARTH_RADIUS_MILES, milesBetween, zipPlaces } from "../model/zip-places";
import type { DirectoryData } from "./directory-data";
import { Lru } from "./lru";
import { inRanges, Stepped } from "./stepped";
import { fold } from "./text";

/** Ordinals grouped by a value: group g's are `ordinals[offsets[g]..offsets[g+1])`, ascending (list order). */
interface Groups {
  offsets: Int32Array;
  ordinals: Int32Array;
}

/**
 * Groups the listed ordinals by `groupOf[ordinal]` (-1: in no group), in one counting sort, in
 * steps of `chunk` ordinals (or groups).
 */
function* groupBy(groupOf: Int32Array, groups: number, chunk: number): Generator<void, Groups> {
  const offsets = new Int32Array(groups + 1);
  yield* inRanges(groupOf.length, chunk, (from, to) => {
    for (let i = from; i < to; i++) if (groupOf[i]! >= 0) offsets[groupOf[i]! + 1]!++;
  });
  yield* inRanges(groups, chunk, (from, to) => {
    for (let g = from + 1; g <= to; g++) offsets[g]! += offsets[g - 1]!;
  });
  const fill = offsets.slice(0, groups);
  const ordinals = new Int32Array(offsets[groups]!);
  yield* inRanges(groupOf.length, chunk, (from, to) => {
    for (let i = from; i < to; i++) if (groupOf[i]! >= 0) ordinals[fill[groupOf[i]!]!++] = i;
  });
  return { offsets, ordinals };
}

const slice = ({ offsets, ordinals }: Groups, group: number) =>
  group < 0 ? EMPTY : ordinals.subarray(offsets[group]!, offsets[group + 1]!);
const EMPTY = new Int32Array(0);

/** ASCII letters and digits in words one space apart: a name whose folded words are its lowercase. */
const PLAIN_WORDS = /^[A-Za-z0-9]+(?: [A-Za-z0-9]+)*$/;

/**
 * A city name as the `city` filter compares it: folded (case and accents), words joined by one
 * space. Most names (and nearly all of the ZIP table's 41,906, each folded when a process first
 * builds the lookups) are plain words: those are only lowercased, the same result without the
 * Unicode split.
 */
export const cityKey = (city: string) =>
  PLAIN_WORDS.test(city)
    ? city.toLowerCase()
    : fold(city)
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word !== "")
        .join(" ");

/** A host's labels in reverse order (`fhir.epic.com` → `com.epic.fhir`): a domain's hosts sort together. */
const reversed = (host: string) => host.split(".").reverse().join(".");

/** The host of a canonical URL (src/model/identity.ts: already lowercased), without port or credentials. */
export function hostOf(url: string): string | null {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)/.exec(url);
  return match?.[1] ? match[1].replace(/\.$/, "") : null;
}

/** Entry positions (a ZIP's point, or the mean of a city's ZIPs), and a grid of 1° cells over them. */
interface Positions {
  latitude: Float64Array;
  longitude: Float64Array;
  /** The positions ordered by cell (`cellOf`, rows of latitude one after another); cell c's are `byCell[cellStart[c] .. cellStart[c + 1])`. */
  byCell: Int32Array;
  /**
   * Per item of `byCell`, side by side: its position's point on the unit sphere (x, y, z) and how
   * many entries it holds, so that a scan of a cell reads one run of memory and measures each
   * point with no trigonometry.
   */
  pointsByCell: Float64Array;
  /**
   * Per cell of the whole grid (GRID_CELLS), where its positions start in `byCell`, and one more
   * at the end: the cells of a row side by side are one run of `byCell`, found with two reads (no
   * lookup per cell). 260 KB.
   */
  cellStart: Int32Array;
  /** Per cell, and one more at the end: the entries at the positions of the cells before it. */
  entriesBefore: Int32Array;
}

/** Cells in the grid: 181 rows of 1° of latitude from -90° (the last holding 90° itself), 360 columns each. */
const GRID_CELLS = 181 * 360;

/** The 1° cell of a point: its row (latitude) and column (longitude), packed. */
const cellOf = (latitude: number, longitude: number) =>
  (Math.floor(latitude) + 90) * 360 + ((Math.floor(longitude) + 540) % 360);

/** What `near` found: the positions within the radius, nearest first, and how many entries they hold. */
export interface NearMatches {
  /** All of them, nearest first (sorted on first use). */
  readonly positions: Int32Array;
  /** The k-th nearest (0: the nearest): only as many are put in order as are asked for. */
  positionAt(k: number): number;
  /** The k-th of them in no particular order (none is sorted for it). */
  anyPositionAt(k: number): number;
  /** How many there are. */
  count: number;
  total: number;
  /** Their entries: nearest first (one position's in list order), or all in list order; made on first use. */
  ordinals(): Int32Array;
}

const RADIANS = Math.PI / 180;

/** A point on the unit sphere (x, y, z) from its latitude and longitude in degrees. */
const unitPoint = (latitude: number, longitude: number): [number, number, number] => {
  const cosLatitude = Math.cos(latitude * RADIANS);
  return [
    cosLatitude * Math.cos(longitude * RADIANS),
    cosLatitude * Math.sin(longitude * RADIANS),
    Math.sin(latitude * RADIANS),
  ];
};

/** Numbers per position in `Positions.pointsByCell`. */
const CELL_STRIDE = 4;

/**
 * A near search kept: each hit as one key, h (to 1e-12) above its position, the first `sorted` of
 * them the nearest in order, the others in any order; and the entries in its two orders.
 */
interface NearFound {
  keys: Float64Array;
  sorted: number;
  total: number;
  lists: Partial<Record<"distance" | "list", Int32Array>>;
}

/** Positions put in order one at a time (each a pass over the hits) before the rest are sorted at once. */
const SELECTED_FIRST = 8;

/**
 * Puts the `count` nearest hits first, in order. A first page mostly needs the nearest few
 * positions: they are selected one pass each, and only past SELECTED_FIRST are the others sorted.
 */
function orderPrefix(found: NearFound, count: number) {
  const { keys } = found;
  const wanted = Math.min(count, keys.length);
  if (wanted <= found.sorted) return;
  if (wanted > SELECTED_FIRST) {
    keys.subarray(found.sorted).sort();
    found.sorted = keys.length;
    return;
  }
  for (let i = found.sorted; i < wanted; i++) {
    let least = i;
    for (let j = i + 1; j < keys.length; j++) if (keys[j]! < keys[least]!) least = j;
    const key = keys[least]!;
    keys[least] = keys[i]!;
    keys[i] = key;
  }
  found.sorted = wanted;
}

/** More than the positions there can be (ZIP points and city means: under 100,000). */
const POSITION_SPAN = 2 ** 20;

/**
 * Keys (NearFound's) of the positions byCell[from..to) within `reach` (a haversine h) of the unit
 * point (cx, cy, cz), written at `scan.hits` on; `scan.total` adds up their entries. h is rounded
 * to 1e-12 as floor(x + 0.5), Math.round's definition for x ≥ 0: measured at 1M entries, the
 * scan of about 240 positions (100 miles) took 5.1–5.4 µs written with Math.round and 0.9–1.3 µs
 * with Math.floor, the rest of the loop the same.
 */
function scanCells(
  points: Float64Array,
  byCell: Int32Array,
  keys: Float64Array,
  scan: { hits: number; total: number },
  from: number,
  to: number,
  cx: number,
  cy: number,
  cz: number,
  reach: number,
) {
  let { hits, total } = scan;
  for (let k = from; k < to; k++) {
    const at = CELL_STRIDE * k;
    const dx = points[at]! - cx;
    const dy = points[at + 1]! - cy;
    const dz = points[at + 2]! - cz;
    const h = (dx * dx + dy * dy + dz * dz) / 4;
    if (h <= reach) {
      keys[hits++] = Math.floor(h * 1e12 + 0.5) * POSITION_SPAN + byCell[k]!;
      total += points[at + 3]!;
    }
  }
  scan.hits = hits;
  scan.total = total;
}

/**
 * The position a key (NearFound's, or a cell key of the build) is for: its low 20 bits, read with
 * a division by a power of two, which is exact, and a floor (about 2 ns; a double's `%`, 25 ns).
 */
const positionOfKey = (key: number) => key - Math.floor(key / POSITION_SPAN) * POSITION_SPAN;

/**
 * The grid's columns (as cellOf numbers them: 0 at 180° W) of the 1° columns `first` to `last`
 * (degrees of longitude, floored; either may lie past ±180): one run `[from, to]`, or two where
 * they cross the 180th meridian, each column once.
 */
export function gridColumns(first: number, last: number): (readonly [from: number, to: number])[] {
  if (last - first >= 359) return [[0, 359]];
  const west = (((first + 540) % 360) + 360) % 360;
  const east = (((last + 540) % 360) + 360) % 360;
  return west <= east
    ? [[west, east]]
    : [
        [west, 359],
        [0, east],
      ];
}

/** Miles of latitude per degree, a little less than the least (68.7): the cells reached are never too few. */
const MILES_PER_DEGREE_LATITUDE = 68.5;
/** Miles of longitude per degree at the equator, a little less than 69.17; times cos(latitude) elsewhere. */
const MILES_PER_DEGREE_LONGITUDE = 69;

/**
 * Ordinals (or distinct values) handled between two yields of a stepped build: a few ms of CPU
 * (the costliest, a map lookup or a folded city name per item, take under 0.3 µs per entry), so
 * `/health` is answered between two steps while the next version's indexes are built.
 */
const CHUNK = 8_192;

/** What EntryLookups answers from (see there). */
interface LookupTables {
  npis: Map<number, number>;
  byNpi: Groups;
  urlSlots: Int32Array;
  byUrl: Groups;
  /**
   * Per host or domain name under which some URL's host lies (`fhir.epic.com`, `epic.com`, `com`):
   * where its hosts are in `byHost`'s groups (the distinct hosts, labels reversed, sorted), as an
   * index into `hostRanges`. A name none lies under is absent: it finds nothing.
   */
  hostNames: Map<string, number>;
  /**
   * Per name of `hostNames`, three numbers: the group of the host of that very name (-1: none),
   * then the groups `[from, to)` of the hosts under it (the hosts whose reversed labels start with
   * its own and a dot sort together; a host of that name and its look-alikes such as
   * `epic-2.com` may sort between it and them).
   */
  hostRanges: Int32Array;
  byHost: Groups;
  cities: Map<string, number>;
  byCity: Groups;
  positions: Positions;
  byPosition: Groups;
  /** Per listed ordinal: its position, -1 when neither its ZIP nor its city is known. */
  positionOf: Int32Array;
}

/**
 * The lookup tables of a dataset version, from its columns (a few passes over the entries, then
 * over the distinct values), in steps of at most `chunk` entries or values: drained at once when
 * a version opens at start, taken a step per turn of the event loop before a version swap.
 */
export function* buildLookupTables(data: DirectoryData, chunk = CHUNK): Generator<void, LookupTables> {
  const keyed = yield* keyedTables(data, chunk);
  return { ...keyed, ...(yield* positionTables(data, chunk)) };
}

/** The tables of `near` (LookupTables' positions): built from the committed ZIP table. */
type PositionTables = Pick<LookupTables, "positions" | "byPosition" | "positionOf">;

/** The lookup tables by a key (NPI, URL, host, city). */
function* keyedTables(data: DirectoryData, chunk = CHUNK): Generator<void, Omit<LookupTables, keyof PositionTables>> {
  const { columns, strings, listed } = data;
  const groupOf = new Int32Array(listed);

  // NPI: each distinct value numbered in order of first appearance.
  const npis = new Map<number, number>();
  yield* inRanges(listed, chunk, (from, to) => {
    for (let i = from; i < to; i++) {
      const npi = columns.npi[i]!;
      if (npi <= 0) {
        groupOf[i] = -1;
        continue;
      }
      let id = npis.get(npi);
      if (id === undefined) {
        id = npis.size;
        npis.set(npi, id);
      }
      groupOf[i] = id;
    }
  });
  const byNpi = yield* groupBy(groupOf, npis.size, chunk);

  // URL: an open-addressing table of the URL strings, the URL column as groups.
  const urlSlots = new Int32Array(2 ** Math.ceil(Math.log2(strings.urls.length * 2 + 2))).fill(-1);
  const mask = urlSlots.length - 1;
  yield* inRanges(strings.urls.length, chunk, (from, to) => {
    for (let id = from; id < to; id++) {
      let slot = Bun.hash.crc32(strings.urls[id]!) & mask;
      while (urlSlots[slot] !== -1) slot = (slot + 1) & mask;
      urlSlots[slot] = id;
    }
  });
  const byUrl = yield* groupBy(columns.url.subarray(0, listed), strings.urls.length, chunk);

  // Host: each URL's host, the distinct hosts in reversed-label order.
  const hostIds = new Map<string, number>();
  const hostOfUrl = new Int32Array(strings.urls.length);
  yield* inRanges(strings.urls.length, chunk, (from, to) => {
    for (let u = from; u < to; u++) {
      const host = hostOf(strings.urls[u]!);
      if (host === null) {
        hostOfUrl[u] = -1;
        continue;
      }
      let id = hostIds.get(host);
      if (id === undefined) {
        id = hostIds.size;
        hostIds.set(host, id);
      }
      hostOfUrl[u] = id;
    }
  });
  const keys = [...hostIds.keys()].map(reversed);
  yield;
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  yield;
  const rank = new Int32Array(keys.length);
  order.forEach((id, position) => {
    rank[id] = position;
  });
  const { hostNames, hostRanges } = yield* hostNameRanges(
    order.map((id) => keys[id]!),
    chunk,
  );
  yield* inRanges(listed, chunk, (from, to) => {
    for (let i = from; i < to; i++) {
      const host = hostOfUrl[columns.url[i]!]!;
      groupOf[i] = host < 0 ? -1 : rank[host]!;
    }
  });
  const byHost = yield* groupBy(groupOf, keys.length, chunk);

  // City: folded names.
  const cities = new Map<string, number>();
  const cityOf = new Int32Array(strings.cities.length);
  yield* inRanges(strings.cities.length, chunk, (from, to) => {
    for (let c = from; c < to; c++) {
      const key = cityKey(strings.cities[c]!);
      if (key === "") {
        cityOf[c] = -1;
        continue;
      }
      let id = cities.get(key);
      if (id === undefined) {
        id = cities.size;
        cities.set(key, id);
      }
      cityOf[c] = id;
    }
  });
  yield* inRanges(listed, chunk, (from, to) => {
    for (let i = from; i < to; i++) groupOf[i] = columns.city[i]! < 0 ? -1 : cityOf[columns.city[i]!]!;
  });
  const byCity = yield* groupBy(groupOf, cities.size, chunk);
  return { npis, byNpi, urlSlots, byUrl, hostNames, hostRanges, byHost, cities, byCity };
}

/** Each entry's position: its ZIP's, else its city's (in its state, or in the one state the table has it in). */
function* positionTables(data: DirectoryData, chunk = CHUNK): Generator<void, PositionTables> {
  const { positionOf, positions, count } = yield* entryPositions(data, chunk);
  const byPosition = yield* groupBy(positionOf, count, chunk);
  const { byCell, pointsByCell, cellStart, entriesBefore } = positions;
  for (let cell = 0; cell < GRID_CELLS; cell++) {
    let entries = 0;
    for (let k = cellStart[cell]!; k < cellStart[cell + 1]!; k++) {
      const p = byCell[k]!;
      const count = byPosition.offsets[p + 1]! - byPosition.offsets[p]!;
      pointsByCell[CELL_STRIDE * k + 3] = count;
      entries += count;
    }
    entriesBefore[cell + 1] = entriesBefore[cell]! + entries;
  }
  return { positions, byPosition, positionOf };
}

/**
 * `hostNames` and `hostRanges` (LookupTables) of the distinct hosts, labels reversed and sorted:
 * each host names itself, and each domain above it (`fhir.epic.com`: `epic.com`, `com`) a range
 * its hosts extend, one after another since they are met in sorted order.
 */
function* hostNameRanges(
  sorted: string[],
  chunk: number,
): Generator<void, Pick<LookupTables, "hostNames" | "hostRanges">> {
  const hostNames = new Map<string, number>();
  let ranges = new Int32Array(3 * 1024);
  const entryOf = (name: string) => {
    let at = hostNames.get(name);
    if (at === undefined) {
      at = 3 * hostNames.size;
      hostNames.set(name, at);
      if (at + 3 > ranges.length) {
        const grown = new Int32Array(ranges.length * 2);
        grown.set(ranges);
        ranges = grown;
      }
      ranges[at] = -1;
      ranges[at + 1] = -1;
    }
    return at;
  };
  yield* inRanges(sorted.length, chunk, (from, to) => {
    for (let group = from; group < to; group++) {
      const host = reversed(sorted[group]!);
      ranges[entryOf(host)] = group;
      for (let dot = host.indexOf("."); dot >= 0; dot = host.indexOf(".", dot + 1)) {
        const at = entryOf(host.slice(dot + 1));
        if (ranges[at + 1] === -1) ranges[at + 1] = group;
        ranges[at + 2] = group + 1;
      }
    }
  });
  return { hostNames, hostRanges: ranges.slice(0, 3 * hostNames.size) };
}

/**
 * The indexes of the list's lookup filters over one dataset version (buildLookupTables): by NPI,
 * by exact URL, by host (a domain is a range of hosts), by city, and by position (an entry's ZIP
 * from the committed ZIP table, else its city's ZIPs), each grouping the listed ordinals in list
 * order.
 */
export class EntryLookups {
  private readonly npis: Map<number, number>;
  private readonly byNpi: Groups;
  private readonly urlSlots: Int32Array;
  private readonly byUrl: Groups;
  private readonly hostNames: Map<string, number>;
  private readonly hostRangesOf: Int32Array;
  private readonly byHost: Groups;
  private readonly cities: Map<string, number>;
  private readonly byCity: Groups;
  /** near's tables: built with the others, or on first use (located). */
  private positionTables: PositionTables | undefined;
  private readonly domains = new Lru<Int32Array>(64);
  private readonly nearCache = new Lru<NearFound>(64);
  private keys: Float64Array | undefined;

  /**
   * `tables`: built from `data` (buildLookupTables). Without them, the tables by a key are built now
   * in one go and near's on first use: a version small enough to open at once is mostly served
   * without a `near`, and near's tables cost more than the others there (the ZIP table's 41,906
   * places and their cities, read once per process).
   */
  constructor(
    private readonly data: DirectoryData,
    tables?: LookupTables,
  ) {
    const keyed = tables ?? new Stepped(keyedTables(data)).drain();
    this.npis = keyed.npis;
    this.byNpi = keyed.byNpi;
    this.urlSlots = keyed.urlSlots;
    this.byUrl = keyed.byUrl;
    this.hostNames = keyed.hostNames;
    this.hostRangesOf = keyed.hostRanges;
    this.byHost = keyed.byHost;
    this.cities = keyed.cities;
    this.byCity = keyed.byCity;
    this.positionTables = tables;
  }

  /** near's tables, built now if they were left for first use. */
  private get located(): PositionTables {
    this.positionTables ??= new Stepped(positionTables(this.data)).drain();
    return this.positionTables;
  }

  /** Builds the indexes a step per turn of the event loop: the server keeps answering meanwhile. */
  static async buildInSteps(data: DirectoryData): Promise<EntryLookups> {
    return new EntryLookups(data, await new Stepped(buildLookupTables(data)).perTurn());
  }

  /** The listed entries with this NPI (a number of 10 digits), in list order. */
  npi(npi: number): Int32Array {
    return slice(this.byNpi, this.npis.get(npi) ?? -1);
  }

  /** The listed entries of this canonical URL, in list order. */
  url(url: string): Int32Array {
    const mask = this.urlSlots.length - 1;
    const { urls } = this.data.strings;
    for (let slot = Bun.hash.crc32(url) & mask; this.urlSlots[slot] !== -1; slot = (slot + 1) & mask)
      if (urls[this.urlSlots[slot]!] === url) return slice(this.byUrl, this.urlSlots[slot]!);
    return EMPTY;
  }

  /** The listed entries of a city (a `cityKey`), in list order. */
  city(key: string): Int32Array {
    return slice(this.byCity, this.cities.get(key) ?? -1);
  }

  /** The ranges of hosts a host or domain names: itself, and every host under it. */
  private hostRanges(host: string): [from: number, to: number][] {
    const at = this.hostNames.get(host);
    if (at === undefined) return [];
    const table = this.hostRangesOf;
    const exact = table[at]!;
    const ranges: [number, number][] = exact < 0 ? [] : [[exact, exact + 1]];
    if (table[at + 1]! >= 0) ranges.push([table[at + 1]!, table[at + 2]!]);
    return ranges;
  }

  /** How many entries a host filter reads (and, across several hosts, sorts). */
  hostSize(host: string): { entries: number; hosts: number } {
    const { offsets } = this.byHost;
    let entries = 0;
    let hosts = 0;
    for (const [from, to] of this.hostRanges(host)) {
      entries += offsets[to]! - offsets[from]!;
      hosts += to - from;
    }
    return { entries, hosts };
  }

  /** The listed entries of a host and the hosts under it, in list order (kept for a domain of many hosts). */
  host(host: string): Int32Array {
    const ranges = this.hostRanges(host);
    const { offsets, ordinals } = this.byHost;
    if (ranges.length === 0) return EMPTY;
    if (ranges.length === 1 && ranges[0]![1] - ranges[0]![0] === 1) return slice(this.byHost, ranges[0]![0]);
    return this.domains.getOrCompute(host, () => {
      const parts = ranges.map(([from, to]) => ordinals.subarray(offsets[from]!, offsets[to]!));
      const out = new Int32Array(parts.reduce((sum, part) => sum + part.length, 0));
      let at = 0;
      for (const part of parts) {
        out.set(part, at);
        at += part.length;
      }
      return out.sort();
    });
  }

  /**
   * The cells within `radius` miles of a point's cell rows and columns (a bounding box of whole
   * cells): per row one run of `byCell` (two where the box crosses the 180th meridian), with the
   * entries its positions hold.
   */
  private cellsNear(latitude: number, radius: number, longitude = 0): [from: number, to: number, entries: number][] {
    const latReach = radius / MILES_PER_DEGREE_LATITUDE;
    const far = Math.min(89.9, Math.abs(latitude) + latReach);
    const lonReach = Math.min(180, radius / (MILES_PER_DEGREE_LONGITUDE * Math.cos((far * Math.PI) / 180)));
    const runs = gridColumns(Math.floor(longitude - lonReach), Math.floor(longitude + lonReach));
    const out: [number, number, number][] = [];
    const { cellStart, entriesBefore } = this.located.positions;
    const lastRow = Math.min(89, Math.floor(latitude + latReach));
    for (let row = Math.max(-90, Math.floor(latitude - latReach)); row <= lastRow; row++)
      for (const [from, to] of runs) {
        const a = (row + 90) * 360 + from;
        const b = (row + 90) * 360 + to + 1;
        if (cellStart[b]! > cellStart[a]!)
          out.push([cellStart[a]!, cellStart[b]!, entriesBefore[b]! - entriesBefore[a]!]);
      }
    return out;
  }

  /** What `near` would read at most: the positions of the cells it reaches, and their entries. */
  nearSize(latitude: number, radius: number, longitude = 0): { positions: number; entries: number } {
    // Without the longitude, the widest the radius can reach at that latitude: a bound for any point.
    const cells = this.cellsNear(latitude, radius, longitude);
    let positions = 0;
    let entries = 0;
    for (const [from, to, count] of cells) {
      positions += to - from;
      entries += count;
    }
    return { positions, entries };
  }

  /**
   * The positions within `radius` miles of a point, nearest first, and their entries (nearest
   * first, entries at one position in list order; or all in list order); kept per point, radius
   * and order.
   */
  near(latitude: number, longitude: number, radius: number, byDistance: boolean): NearMatches {
    const key = `${latitude},${longitude},${radius}`;
    const found = this.nearCache.getOrCompute(key, () => {
      const { byCell, pointsByCell: points } = this.located.positions;
      // The haversine's h (the squared half-chord, which grows with the distance) against the
      // radius's: no arcsine per position, and no sine either: h is (chord / 2)², the chord from
      // the points on the unit sphere (three products). Each hit as one number, h (to 1e-12)
      // above its position: ordered nearest first as far as they are read (orderPrefix).
      const reach = Math.sin(radius / (2 * EARTH_RADIUS_MILES)) ** 2;
      const [cx, cy, cz] = unitPoint(latitude, longitude);
      const keys = this.scratchKeys();
      const scan = { hits: 0, total: 0 };
      for (const [from, to] of this.cellsNear(latitude, radius, longitude))
        scanCells(points, byCell, keys, scan, from, to, cx, cy, cz, reach);
      const { hits, total } = scan;
      return { keys: keys.slice(0, hits), sorted: 0, total, lists: {} };
    });
    const { keys, total, lists } = found;
    const order = byDistance ? "distance" : "list";
    const positionAt = (k: number) => {
      orderPrefix(found, k + 1);
      return positionOfKey(keys[k]!);
    };
    return {
      get positions() {
        orderPrefix(found, keys.length);
        return Int32Array.from(keys, positionOfKey);
      },
      positionAt,
      anyPositionAt: (k: number) => positionOfKey(keys[k]!),
      count: keys.length,
      total,
      ordinals: () => {
        let ordinals = lists[order];
        if (ordinals === undefined) {
          ordinals = new Int32Array(total);
          const { byPosition } = this.located;
          let at = 0;
          for (let k = 0; k < keys.length; k++) {
            // In list order, the positions' own order does not matter: none is sorted for it.
            const part = slice(byPosition, byDistance ? positionAt(k) : positionOfKey(keys[k]!));
            ordinals.set(part, at);
            at += part.length;
          }
          if (!byDistance) ordinals.sort();
          lists[order] = ordinals;
        }
        return ordinals;
      },
    };
  }

  /** Room for one key per position, reused by every search (each fills it and copies its hits out before returning). */
  private scratchKeys(): Float64Array {
    this.keys ??= new Float64Array(this.located.positions.byCell.length);
    return this.keys;
  }

  /**
   * A page of near's entries in list order, merged from its positions' groups (each in list order)
   * without listing them all: a heap of the groups' next entries, popped `offset + limit` times.
   */
  nearPageInListOrder(matches: NearMatches, offset: number, limit: number): number[] {
    const { offsets, ordinals } = this.located.byPosition;
    const next = new Int32Array(matches.count);
    const end = new Int32Array(matches.count);
    const heap = new Int32Array(matches.count);
    let size = 0;
    const head = (g: number) => ordinals[next[g]!]!;
    const down = (from: number) => {
      let at = from;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= size) return;
        const child = left + 1 < size && head(heap[left + 1]!) < head(heap[left]!) ? left + 1 : left;
        if (head(heap[child]!) >= head(heap[at]!)) return;
        const swap = heap[at]!;
        heap[at] = heap[child]!;
        heap[child] = swap;
        at = child;
      }
    };
    for (let k = 0; k < matches.count; k++) {
      const position = matches.anyPositionAt(k);
      next[k] = offsets[position]!;
      end[k] = offsets[position + 1]!;
      if (next[k]! < end[k]!) heap[size++] = k;
    }
    for (let at = (size >> 1) - 1; at >= 0; at--) down(at);
    const out: number[] = [];
    for (let taken = 0; size > 0 && out.length < limit; taken++) {
      const g = heap[0]!;
      if (taken >= offset) out.push(head(g));
      next[g]!++;
      if (next[g]! >= end[g]!) heap[0] = heap[--size]!;
      down(0);
    }
    return out;
  }

  /** A page of near's entries nearest first, read from its positions without listing them all. */
  nearPage(matches: NearMatches, offset: number, limit: number): number[] {
    const { offsets, ordinals } = this.located.byPosition;
    const out: number[] = [];
    let skip = offset;
    for (let k = 0; k < matches.count && out.length < limit; k++) {
      const position = matches.positionAt(k);
      const from = offsets[position]!;
      const to = offsets[position + 1]!;
      if (skip >= to - from) {
        skip -= to - from;
        continue;
      }
      for (let i = from + skip; i < to && out.length < limit; i++) out.push(ordinals[i]!);
      skip = 0;
    }
    return out;
  }

  /**
   * Miles from a point to each entry's position (null: none, the haversine's otherwise); the
   * positions are read over all the entries first, so that their reads overlap.
   */
  milesOfEach(ordinals: readonly number[], latitude: number, longitude: number): (number | null)[] {
    // A plain loop into a typed array: the reads, likely cache misses, do not wait for each other.
    const { positionOf } = this.located;
    const positions = new Int32Array(ordinals.length);
    for (let i = 0; i < ordinals.length; i++)
      positions[i] = ordinals[i]! < positionOf.length ? positionOf[ordinals[i]!]! : -1;
    // A page's entries mostly share a few positions, one after another when nearest first: each
    // run's distance is computed once.
    let last = -1;
    let miles = 0;
    return Array.from(positions, (position) => {
      if (position < 0) return null;
      if (position !== last) {
        last = position;
        miles = this.milesTo(position, latitude, longitude);
      }
      return miles;
    });
  }

  private milesTo(position: number, latitude: number, longitude: number): number {
    const { positions } = this.located;
    return milesBetween(latitude, longitude, positions.latitude[position]!, positions.longitude[position]!);
  }
}

interface TableCities {
  /** Per folded city and state (`city\tST`): its ZIPs' summed coordinates and count. */
  sums: Map<string, { latitude: number; longitude: number; zips: number }>;
  /** Per folded city: the states the table has it in. */
  statesOf: Map<string, Set<string>>;
}

let cities: TableCities | null = null;

/** The ZIP table's cities, computed once per process (the table never changes while it runs). */
function tableCities(): TableCities {
  if (cities) return cities;
  const sums: TableCities["sums"] = new Map();
  const statesOf: TableCities["statesOf"] = new Map();
  for (const place of zipPlaces().values()) {
    const city = cityKey(place.city);
    const key = `${city}\t${place.state}`;
    const sum = sums.get(key) ?? { latitude: 0, longitude: 0, zips: 0 };
    sum.latitude += place.latitude;
    sum.longitude += place.longitude;
    sum.zips++;
    sums.set(key, sum);
    if (!statesOf.has(city)) statesOf.set(city, new Set());
    statesOf.get(city)!.add(place.state);
  }
  cities = { sums, statesOf };
  return cities;
}

/**
 * Each listed entry's position: the committed ZIP table's for its ZIP (the first five digits),
 * else the mean of the table's ZIPs of its city (in its state; without a state, in the one state
 * the table has that city in). Entries at the same point share one position.
 */
function* entryPositions(
  data: DirectoryData,
  chunk: number,
): Generator<void, { positionOf: Int32Array; positions: Positions; count: number }> {
  const { columns, strings, listed } = data;
  const table = zipPlaces();
  const latitudes: number[] = [];
  const longitudes: number[] = [];
  const atPoint = new Map<string, number>();
  const positionAt = (latitude: number, longitude: number) => {
    const point = `${latitude},${longitude}`;
    let id = atPoint.get(point);
    if (id === undefined) {
      id = latitudes.length;
      atPoint.set(point, id);
      latitudes.push(latitude);
      longitudes.push(longitude);
    }
    return id;
  };
  // Per 5-digit ZIP (a ZIP+4's many spellings share it): its position, found once.
  const ofZip5 = new Map<string, number>();
  const ofZip = new Int32Array(strings.zipCodes.length);
  yield* inRanges(strings.zipCodes.length, chunk, (from, to) => {
    for (let z = from; z < to; z++) {
      const five = strings.zipCodes[z]!.slice(0, 5);
      let position = ofZip5.get(five);
      if (position === undefined) {
        const place = /^\d{5}$/.test(five) ? table.get(five) : undefined;
        position = place === undefined ? -1 : positionAt(place.latitude, place.longitude);
        ofZip5.set(five, position);
      }
      ofZip[z] = position;
    }
  });
  const { sums, statesOf } = tableCities();
  yield;
  const ofCity = new Map<string, number>();
  // Per city and state index pair (entries share them): each pair's name is folded once.
  const ofPair = new Map<number, number>();
  const stateSpan = strings.states.length + 1;
  const cityPosition = (cityIndex: number, stateIndex: number) => {
    const pair = cityIndex * stateSpan + stateIndex + 1;
    let known = ofPair.get(pair);
    if (known === undefined) {
      known = cityPositionOf(cityIndex, stateIndex);
      ofPair.set(pair, known);
    }
    return known;
  };
  const cityPositionOf = (cityIndex: number, stateIndex: number) => {
    const city = cityKey(strings.cities[cityIndex]!);
    const states = statesOf.get(city);
    const state = stateIndex >= 0 ? strings.states[stateIndex]! : states?.size === 1 ? [...states][0]! : null;
    const key = `${city}\t${state}`;
    let id = ofCity.get(key);
    if (id === undefined) {
      const sum = state === null ? undefined : sums.get(key);
      id =
        sum === undefined
          ? -1
          : positionAt(
              Math.round((sum.latitude / sum.zips) * 1e4) / 1e4,
              Math.round((sum.longitude / sum.zips) * 1e4) / 1e4,
            );
      ofCity.set(key, id);
    }
    return id;
  };
  const positionOf = new Int32Array(listed);
  yield* inRanges(listed, chunk, (from, to) => {
    for (let i = from; i < to; i++) {
      const zip = columns.zipCode[i]!;
      let position = zip < 0 ? -1 : ofZip[zip]!;
      if (position < 0 && columns.city[i]! >= 0) position = cityPosition(columns.city[i]!, columns.state[i]!);
      positionOf[i] = position;
    }
  });
  // By cell, then position: one native sort of cell · 2^20 + position (cells < 2^16, positions < 2^20).
  const cellKey = Float64Array.from(latitudes, (latitude, i) => cellOf(latitude, longitudes[i]!));
  const packed = Float64Array.from(cellKey, (cell, i) => cell * POSITION_SPAN + i).sort();
  const byCell = Int32Array.from(packed, positionOfKey);
  yield;
  const cellStart = new Int32Array(GRID_CELLS + 1);
  for (let k = 0; k < cellKey.length; k++) cellStart[cellKey[k]! + 1]!++;
  for (let cell = 0; cell < GRID_CELLS; cell++) cellStart[cell + 1]! += cellStart[cell]!;
  const pointsByCell = new Float64Array(CELL_STRIDE * byCell.length);
  for (let k = 0; k < byCell.length; k++)
    pointsByCell.set(unitPoint(latitudes[byCell[k]!]!, longitudes[byCell[k]!]!), CELL_STRIDE * k);
  return {
    positionOf,
    count: latitudes.length,
    positions: {
      latitude: Float64Array.from(latitudes),
      longitude: Float64Array.from(longitudes),
      byCell,
      pointsByCell,
      cellStart,
      entriesBefore: new Int32Array(GRID_CELLS + 1),
    },
  };
}
