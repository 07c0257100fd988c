/**
 * A bounded reader of MaxMind DB files (MaxMind DB File Format 2.0), for the country database
 * (adapters/geo-database.ts). The database can be uploaded by anyone with write access to the
 * registry bucket, so it is read as untrusted input (docs/enrichment.md, "Bounded reading"):
 * mmdb-lib decodes without bounds, and a crafted file (a data section whose records point at
 * each other, thousands of times over) made every lookup take seconds.
 *
 * At open: a size cap; metadata that is plausible (record size 24, 28 or 32, IP version 4 or 6,
 * a search tree that fits before the data section, the 16 zero bytes between them); every record
 * of the tree points to a node, to "not found", or into the data section; and every data record
 * the tree names decodes within the limits. Each lookup then walks at most the address's bit
 * count of nodes and decodes under a budget of values, bytes and nesting, with no pointer to a
 * pointer (the format forbids them), so a pointer loop ends at the nesting limit.
 */

/** The largest database opened (the bundled DB-IP country file is ~8 MB; MaxMind's ~10 MB). */
export const MMDB_MAX_BYTES = 64 << 20;
/** The most distinct data records a country database's tree may name (a country file has hundreds). */
export const MMDB_MAX_RECORDS = 65_536;
/** What one decoded record (or the metadata) may hold: values, string and byte payload, nesting. */
export const MMDB_RECORD_LIMITS = { values: 4_096, bytes: 64 << 10, depth: 16 } as const;
/** What decoding every record at open may cost in all, in values. */
const OPEN_VALUE_BUDGET = 2_000_000;

const MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
/** The metadata is in the file's last 128 KiB (the format's own bound). */
const METADATA_MAX_BYTES = 128 << 10;
const SEPARATOR_BYTES = 16;
/** The widest payload of each integer type: uint16, uint32, int32, uint64, uint128. */
const INTEGER_BYTES: Readonly<Record<number, number>> = { 5: 2, 6: 4, 8: 4, 9: 8, 10: 16 };

/** An opened database: the data record an address falls in, or undefined. */
export interface MmdbReader {
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The address's record; undefined for an unknown address or one that is not an IP. Throws on a record past the limits. */
  get(ip: string): unknown;
}

export type OpenedMmdb =
  | { readonly ok: true; readonly reader: MmdbReader }
  | { readonly ok: false; readonly reason: string };

/** Why a decode stopped: the caller answers "no record" or refuses the file. */
class MmdbRefused extends Error {}
const refuse = (why: string): never => {
  throw new MmdbRefused(why);
};

interface Budget {
  values: number;
  bytes: number;
}

/** A decoder over one section (`[base, end)`): pointers are relative to `base`. */
class Section {
  private readonly db: Buffer;
  private readonly base: number;
  private readonly end: number;

  constructor(db: Buffer, base: number, end: number) {
    this.db = db;
    this.base = base;
    this.end = end;
  }

  /** The value at `offset` (relative to the section) under `budget`. */
  value(offset: number, budget: Budget): unknown {
    return this.decode(this.base + offset, budget, 0, false)[0];
  }

  private byte(at: number): number {
    if (at >= this.end) refuse(`a value runs past its section at ${at}`);
    return this.db[at] as number;
  }

  private take(at: number, size: number, budget: Budget): void {
    if (at + size > this.end) refuse(`a value of ${size} bytes runs past its section at ${at}`);
    budget.bytes -= size;
    if (budget.bytes < 0) refuse('a record holds more bytes than a country record may');
  }

  /** [value, offset after it]. */
  private decode(at: number, budget: Budget, depth: number, viaPointer: boolean): [unknown, number] {
    if (depth > MMDB_RECORD_LIMITS.depth) refuse('a record nests (or loops through pointers) too deeply');
    if (--budget.values < 0) refuse('a record holds more values than a country record may');
    const ctrl = this.byte(at);
    let next = at + 1;
    let type = ctrl >> 5;
    if (type === 1) {
      if (viaPointer) refuse(`a pointer points to a pointer at ${at}`);
      const sizeBits = (ctrl >> 3) & 3;
      this.take(next, sizeBits + 1, { values: 0, bytes: Number.POSITIVE_INFINITY });
      const raw =
        sizeBits === 3
          ? this.db.readUInt32BE(next)
          : ((ctrl & 7) << (8 * (sizeBits + 1))) + this.db.readUIntBE(next, sizeBits + 1);
      const target = this.base + raw + [0, 2048, 526_336, 0][sizeBits]!;
      if (target >= this.end) refuse(`a pointer points past its section at ${at}`);
      return [this.decode(target, budget, depth + 1, true)[0], next + sizeBits + 1];
    }
    if (type === 0) {
      type = 7 + this.byte(next);
      next += 1;
      if (type < 8 || type > 15) refuse(`an unknown extended type at ${at}`);
    }
    let size = ctrl & 0x1f;
    if (size >= 29) {
      const extra = size - 28;
      this.take(next, extra, { values: 0, bytes: Number.POSITIVE_INFINITY });
      size = [29, 285, 65_821][extra - 1]! + this.db.readUIntBE(next, extra);
      next += extra;
    }
    return this.payload(type, size, next, budget, depth);
  }

  private payload(type: number, size: number, at: number, budget: Budget, depth: number): [unknown, number] {
    switch (type) {
      case 2:
        this.take(at, size, budget);
        return [this.db.toString('utf8', at, at + size), at + size];
      case 4:
        this.take(at, size, budget);
        return [Buffer.from(this.db.subarray(at, at + size)), at + size];
      case 3:
      case 15: {
        const width = type === 3 ? 8 : 4;
        if (size !== width) refuse(`a float of ${size} bytes at ${at}`);
        this.take(at, width, budget);
        return [type === 3 ? this.db.readDoubleBE(at) : this.db.readFloatBE(at), at + width];
      }
      case 5:
      case 6:
      case 8:
      case 9:
      case 10:
        return [this.integer(type, size, at, budget), at + size];
      case 7:
        return this.map(size, at, budget, depth);
      case 11:
        return this.array(size, at, budget, depth);
      case 14:
        if (size > 1) refuse(`a boolean of size ${size} at ${at}`);
        return [size === 1, at];
      default:
        return refuse(`a type ${type} value where data belongs at ${at}`);
    }
  }

  private integer(type: number, size: number, at: number, budget: Budget): number | bigint {
    const max = INTEGER_BYTES[type] ?? 0;
    if (size > max) refuse(`an integer of ${size} bytes at ${at}`);
    this.take(at, size, budget);
    if (size === 0) return 0;
    if (type === 8) return size === 4 ? this.db.readInt32BE(at) : this.db.readUIntBE(at, size);
    if (max <= 4) return this.db.readUIntBE(at, size);
    let n = 0n;
    for (let i = 0; i < size; i++) n = (n << 8n) | BigInt(this.db[at + i] as number);
    return n;
  }

  private map(size: number, at: number, budget: Budget, depth: number): [unknown, number] {
    // Each entry takes at least two bytes (a key and a value), so a larger size cannot be real.
    if (size * 2 > this.end - at) refuse(`a map of ${size} entries does not fit at ${at}`);
    const out: Record<string, unknown> = {};
    let next = at;
    for (let i = 0; i < size; i++) {
      const [key, afterKey] = this.decode(next, budget, depth + 1, false);
      if (typeof key !== 'string') refuse(`a map key that is not a string at ${next}`);
      const [value, afterValue] = this.decode(afterKey, budget, depth + 1, false);
      Object.defineProperty(out, key as string, { value, enumerable: true, writable: false });
      next = afterValue;
    }
    return [out, next];
  }

  private array(size: number, at: number, budget: Budget, depth: number): [unknown, number] {
    if (size > this.end - at) refuse(`an array of ${size} items does not fit at ${at}`);
    const out: unknown[] = [];
    let next = at;
    for (let i = 0; i < size; i++) {
      const [value, after] = this.decode(next, budget, depth + 1, false);
      out.push(value);
      next = after;
    }
    return [out, next];
  }
}

const recordBudget = (): Budget => ({ values: MMDB_RECORD_LIMITS.values, bytes: MMDB_RECORD_LIMITS.bytes });

/** An IPv4 or IPv6 address as its bytes (4 or 16), or undefined. */
export function addressBytes(ip: string): number[] | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    return parts.every((p) => p <= 255) ? parts : undefined;
  }
  if (!ip.includes(':') || ip.length > 45) return undefined;
  const halves = ip.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined): number[] | undefined => {
    if (!half) return [];
    const out: number[] = [];
    for (const [i, g] of half.split(':').entries()) {
      const tail = i === half.split(':').length - 1 ? addressBytes(g) : undefined;
      if (tail?.length === 4) out.push((tail[0]! << 8) | tail[1]!, (tail[2]! << 8) | tail[3]!);
      else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(Number.parseInt(g, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  if (!head || !tail) return undefined;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return undefined;
  return [...head, ...Array<number>(fill).fill(0), ...tail].flatMap((g) => [g >> 8, g & 0xff]);
}

/** The record reader of a tree with `recordSize`-bit records: node `n`'s left (0) or right (1). */
function recordReader(db: Buffer, recordSize: number): (node: number, bit: number) => number {
  const nodeBytes = recordSize / 4;
  if (recordSize === 24) return (n, bit) => db.readUIntBE(n * nodeBytes + bit * 3, 3);
  if (recordSize === 32) return (n, bit) => db.readUInt32BE(n * nodeBytes + bit * 4);
  return (n, bit) => {
    const at = n * nodeBytes;
    const middle = db[at + 3] as number;
    return bit === 0
      ? ((middle & 0xf0) << 20) | db.readUIntBE(at, 3)
      : ((middle & 0x0f) << 24) | db.readUIntBE(at + 4, 3);
  };
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

/** Opens `db` as a MaxMind DB, or says why it is refused; never takes long, whatever the bytes. */
export function openMmdb(db: Buffer): OpenedMmdb {
  try {
    return { ok: true, reader: checkedReader(db) };
  } catch (err) {
    if (err instanceof MmdbRefused || err instanceof RangeError) return { ok: false, reason: err.message };
    throw err;
  }
}

function checkedReader(db: Buffer): MmdbReader {
  if (db.length > MMDB_MAX_BYTES)
    refuse(`${db.length} bytes, more than the ${MMDB_MAX_BYTES} a database may have`);
  const marker = db.lastIndexOf(MARKER);
  if (marker < 0 || marker < db.length - METADATA_MAX_BYTES) refuse('no metadata marker in its last 128 KiB');
  const metadata = new Section(db, marker + MARKER.length, db.length).value(0, recordBudget());
  if (metadata === null || typeof metadata !== 'object') refuse('its metadata is not a map');
  const m = metadata as Record<string, unknown>;
  const { node_count: nodeCount, record_size: recordSize, ip_version: ipVersion } = m;
  if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32)
    refuse(`record_size ${String(recordSize)}`);
  if (ipVersion !== 4 && ipVersion !== 6) refuse(`ip_version ${String(ipVersion)}`);
  if (!isCount(nodeCount)) refuse(`node_count ${String(nodeCount)}`);
  const nodes = nodeCount as number;
  const treeBytes = (nodes * (recordSize as number)) / 4;
  const dataStart = treeBytes + SEPARATOR_BYTES;
  if (dataStart > marker) refuse(`node_count ${nodes}: the tree would run past the data section`);
  if (db.subarray(treeBytes, dataStart).some((b) => b !== 0)) refuse('no 16 zero bytes after the tree');
  const dataSize = marker - dataStart;
  const record = recordReader(db, recordSize as number);
  const records = new Set<number>();
  for (let n = 0; n < nodes; n++)
    for (const bit of [0, 1]) {
      const r = record(n, bit);
      if (r <= nodes) continue;
      const offset = r - nodes - SEPARATOR_BYTES;
      if (offset < 0 || offset >= dataSize) refuse(`node ${n} points outside the data section`);
      records.add(offset);
      if (records.size > MMDB_MAX_RECORDS)
        refuse(`its tree names more than ${MMDB_MAX_RECORDS} data records`);
    }
  const data = new Section(db, dataStart, marker);
  let spent = 0;
  for (const offset of records) {
    const budget = recordBudget();
    data.value(offset, budget);
    spent += MMDB_RECORD_LIMITS.values - budget.values;
    if (spent > OPEN_VALUE_BUDGET) refuse('its data records hold more values than a country database may');
  }
  const bits = ipVersion === 4 ? 32 : 128;
  let ipv4Start = 0;
  for (let i = 0; ipVersion === 6 && i < 96 && ipv4Start < nodes; i++) ipv4Start = record(ipv4Start, 0);
  return {
    metadata: m,
    get(ip) {
      const address = addressBytes(ip);
      if (!address || (address.length === 16 && bits === 32)) return undefined;
      let node = address.length === 4 && bits === 128 ? ipv4Start : 0;
      // At most one step per bit of the address: the tree cannot be walked longer, loops or not.
      for (let i = 0; i < address.length * 8 && node < nodes; i++)
        node = record(node, ((address[i >> 3] as number) >> (7 - (i & 7))) & 1);
      if (node <= nodes) return undefined;
      return data.value(node - nodes - SEPARATOR_BYTES, recordBudget());
    },
  };
}
