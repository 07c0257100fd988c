/**
 * The country database is read under bounds (issue #61, red team: a crafted `.mmdb` made `store`
 * take 7.9 s per event). Databases are built here byte by byte (MaxMind DB File Format 2.0): an
 * IPv4 tree of one node whose two records name the first data record, then the data section,
 * then the metadata. The crafted ones are refused at open (adapters/mmdb-reader.ts); the stall
 * of the old reader is shown with a step counter (mmdb-lib's cache hook sees every pointer it
 * follows), not with a clock.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Reader } from 'mmdb-lib';
import { countryDatabasePath } from '../../../adapters/enrichment.ts';
import { GeoDatabase, openCountryDatabase } from '../../../adapters/geo-database.ts';
import { MMDB_MAX_BYTES, MMDB_RECORD_LIMITS, openMmdb } from '../../../adapters/mmdb-reader.ts';

/** A control byte and payload: `type` 1-7 in the top bits, the size below (under 29 here). */
const field = (type: number, size: number, payload: Buffer = Buffer.alloc(0)) =>
  Buffer.concat([Buffer.from([(type << 5) | size]), payload]);
const str = (s: string) => field(2, Buffer.byteLength(s), Buffer.from(s));
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return field(6, 4, b);
};
const mapOf = (entries: [string, Buffer][]) =>
  Buffer.concat([field(7, entries.length), ...entries.flatMap(([k, v]) => [str(k), v])]);
/** A pointer of the 11-bit form (an offset under 2048 into the data section): two bytes. */
const pointerTo = (offset: number) => Buffer.from([(1 << 5) | (offset >> 8), offset & 0xff]);
/** An array (extended type 11) of `size` items, 29 ≤ size < 285. */
const arrayHead = (size: number) => Buffer.from([29, 4, size - 29]);

/** An IPv4 database whose one node's records give `left` and `right` (default: data record 0). */
function database(data: Buffer, o: { nodeCount?: number; records?: [number, number] } = {}): Buffer {
  const nodeCount = o.nodeCount ?? 1;
  const [left, right] = o.records ?? [nodeCount + 16, nodeCount + 16];
  const node = Buffer.alloc(6);
  node.writeUIntBE(left, 0, 3);
  node.writeUIntBE(right, 3, 3);
  const metadata = mapOf([
    ['node_count', u32(nodeCount)],
    ['record_size', u32(24)],
    ['ip_version', u32(4)],
    ['database_type', str('eventbus-test')],
  ]);
  return Buffer.concat([
    node,
    Buffer.alloc(16),
    data,
    Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'),
    metadata,
  ]);
}

/**
 * Data whose record 0 is `{country_code: NL, fan: A}`, A an array of 100 pointers to B, B of 100
 * pointers to C, C of 100 pointers to a string: one lookup decodes a million values, from ~1 KB.
 */
function fanOut(): Buffer {
  const width = 100;
  const head = mapOf([['country_code', str('NL')]]);
  // Record 0 = {country_code, fan}: a map of 2 entries; rebuild with the fan's pointer.
  const levels: Buffer[] = [];
  const recordSize = 1 + str('country_code').length + str('NL').length + str('fan').length + 2;
  const levelSize = 3 + width * 2;
  const levelAt = (i: number) => recordSize + i * levelSize;
  for (let i = 0; i < 3; i++)
    levels.push(
      Buffer.concat([arrayHead(width), ...Array.from({ length: width }, () => pointerTo(levelAt(i + 1)))]),
    );
  const record = Buffer.concat([field(7, 2), head.subarray(1), str('fan'), pointerTo(levelAt(0))]);
  assert.equal(record.length, recordSize);
  assert.ok(levelAt(3) < 2048);
  return Buffer.concat([record, ...levels, str('leaf')]);
}

/** mmdb-lib's lookup of `ip`, stopped after `limit` pointer follows: how many it needed. */
function oldReaderSteps(db: Buffer, ip: string, limit: number): number | 'over the limit' {
  let steps = 0;
  const counter = {
    get: () => {
      if (++steps > limit) throw new Error('step limit');
      return undefined;
    },
    set: () => undefined,
  };
  try {
    new Reader(db, { cache: counter }).get(ip);
    return steps;
  } catch (err) {
    if ((err as Error).message === 'step limit') return 'over the limit';
    throw err;
  }
}

describe('enrichment: the country database is read under bounds (issue #61)', () => {
  it('a valid small database opens and answers', () => {
    const opened = openCountryDatabase(database(mapOf([['country_code', str('AQ')]])));
    assert.ok(opened.ok, opened.ok ? '' : opened.reason);
    assert.equal(opened.lookup('193.0.6.139'), 'AQ');
    assert.equal(opened.lookup('not an address'), undefined);
  });

  it('the bundled database opens and answers as before', () => {
    const opened = openCountryDatabase(readFileSync(countryDatabasePath()));
    assert.ok(opened.ok, opened.ok ? '' : opened.reason);
    assert.equal(opened.lookup('193.0.6.139'), 'NL');
    assert.equal(opened.lookup('2001:dd8:8:701::2'), 'AU');
  });

  it('agrees with mmdb-lib on the bundled database, address by address (IPv4 and IPv6)', () => {
    const bytes = readFileSync(countryDatabasePath());
    const opened = openMmdb(bytes);
    assert.ok(opened.ok, opened.ok ? '' : opened.reason);
    const reference = new Reader(bytes);
    // A fixed pseudo-random walk over the address space: the same addresses every run.
    let x = 0x9e3779b9;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    let differ = 0;
    for (let i = 0; i < 5000; i++) {
      const n = next();
      const v4 = `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
      const v6 = `2${(next() & 0xfff).toString(16).padStart(3, '0')}:${(next() & 0xffff).toString(16)}::${(next() & 0xffff).toString(16)}`;
      for (const ip of [v4, v6]) {
        if (JSON.stringify(opened.reader.get(ip) ?? null) !== JSON.stringify(reference.get(ip) ?? null))
          differ += 1;
      }
    }
    assert.equal(differ, 0);
  });

  it('refuses at open a data section that fans out through pointers (the old reader follows over a million)', () => {
    const db = database(fanOut());
    assert.equal(oldReaderSteps(db, '193.0.6.139', 1_000_000), 'over the limit');
    const opened = openCountryDatabase(db);
    assert.equal(opened.ok, false);
    assert.match(opened.ok ? '' : opened.reason, /more values than a country record may/);
  });

  it('refuses at open a record that points back into itself (a pointer loop)', () => {
    const data = Buffer.concat([field(7, 2), str('country_code'), str('NL'), str('loop'), pointerTo(0)]);
    const opened = openCountryDatabase(database(data));
    assert.equal(opened.ok, false);
    assert.match(opened.ok ? '' : opened.reason, /loops through pointers/);
  });

  it('refuses a pointer to a pointer', () => {
    const data = Buffer.concat([mapOf([['country_code', pointerTo(1 + 13 + 2)]]), pointerTo(0)]);
    const opened = openMmdb(database(data));
    assert.equal(opened.ok, false);
    assert.match(opened.ok ? '' : opened.reason, /points to a pointer/);
  });

  it('refuses an absurd node count, a tree record outside the data and an oversize file', () => {
    const record = mapOf([['country_code', str('NL')]]);
    const absurd = openMmdb(database(record, { nodeCount: 2 ** 31, records: [1, 1] }));
    assert.match(absurd.ok ? '' : absurd.reason, /node_count 2147483648/);
    const outside = openMmdb(database(record, { records: [1 + 16 + 5000, 1] }));
    assert.match(outside.ok ? '' : outside.reason, /outside the data section/);
    const big = openMmdb(Buffer.alloc(MMDB_MAX_BYTES + 1));
    assert.match(big.ok ? '' : big.reason, /more than the/);
  });

  it('refuses a record that is larger than a country record may be, and a map size that cannot fit', () => {
    const items = MMDB_RECORD_LIMITS.values;
    // An array of `items` (≥ 285) items: size bits 30, then the size less 285 in two bytes.
    const array = Buffer.concat([
      Buffer.from([30, 4, (items - 285) >> 8, (items - 285) & 0xff]),
      ...Array.from({ length: items }, (_, i) => u32(i)),
    ]);
    const data = Buffer.concat([field(7, 2), str('country_code'), str('NL'), str('x'), array]);
    const large = openMmdb(database(data));
    assert.match(large.ok ? '' : large.reason, /more values than a country record may/);
    const hugeMap = Buffer.from([(7 << 5) | 31, 0xff, 0xff, 0xff]);
    const opened = openMmdb(database(hugeMap));
    assert.match(opened.ok ? '' : opened.reason, /does not fit/);
  });

  it('a crafted upload is refused, logged once, and the database held keeps answering', async () => {
    const logs: string[] = [];
    const held = new GeoDatabase(() => 'XX', {
      object: () => ({
        getMetadata: async () => [{ generation: 7 }],
        download: async () => [database(fanOut())],
      }),
      maxAgeMs: 0,
      log: (m) => logs.push(m),
    });
    await held.check();
    await held.check();
    assert.equal(held.lookup('193.0.6.139'), 'XX');
    assert.equal(held.generation, 0);
    assert.equal(logs.length, 1);
    assert.match(logs[0] ?? '', /generation 7 is refused: not an MMDB database/);
  });
});
