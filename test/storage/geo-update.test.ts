/**
 * A newer country database without a deploy (docs/enrichment.md, "Updates"), on the Cloud
 * Storage emulator: `eventbus geo update` checks a file and writes it as geo/country.mmdb in the
 * registry bucket (cli/commands/geo.ts); the store function's database (adapters/geo-database.ts)
 * notices the new generation at its next check and swaps it in, the bundled DB-IP database
 * staying the fallback. The "newer" database is a one-node MMDB this file writes itself, placing
 * every IPv4 address in Antarctica (AQ), so the swap shows in the answers.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { countryDatabasePath, countryLookup } from '../../adapters/enrichment.ts';
import { GEO_OBJECT, GeoDatabase, openCountryDatabase } from '../../adapters/geo-database.ts';
import { uploadGeoDatabase } from '../../cli/commands/geo.ts';
import { CliError } from '../../cli/output.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';

/** MMDB data-section encodings (MaxMind DB File Format 2.0): type in the control byte's top bits. */
const text = (s: string) => Buffer.concat([Buffer.from([(2 << 5) | s.length]), Buffer.from(s)]);
const uint = (type: 5 | 6, value: number, bytes: number) => {
  const b = Buffer.alloc(bytes);
  b.writeUIntBE(value, 0, bytes);
  return Buffer.concat([Buffer.from([(type << 5) | bytes]), b]);
};
const map = (entries: [string, Buffer][]) =>
  Buffer.concat([Buffer.from([(7 << 5) | entries.length]), ...entries.flatMap(([k, v]) => [text(k), v])]);

/**
 * An IPv4 database of one search-tree node (24-bit records) whose two records both point to the
 * first data record, `{country_code: <country>}` (or `record` as given): every address has it.
 */
function oneNodeDatabase(record: Buffer): Buffer {
  // A record value past node_count points into the data: node_count + 16 + offset (0).
  const pointer = Buffer.from([0, 0, 1 + 16]);
  const metadata = map([
    ['node_count', uint(6, 1, 4)],
    ['record_size', uint(5, 24, 2)],
    ['ip_version', uint(5, 4, 2)],
    ['database_type', text('eventbus-test')],
    ['binary_format_major_version', uint(5, 2, 2)],
    ['binary_format_minor_version', uint(5, 0, 2)],
    // build_epoch: uint64 is an extended type (type 9 = 7 + 2 in the second byte).
    ['build_epoch', Buffer.from([8, 2, 0, 0, 0, 0, 0x69, 0x20, 0x00, 0x00])],
    ['description', map([])],
    // languages: an empty array, extended type 11 (7 + 4).
    ['languages', Buffer.from([0, 4])],
  ]);
  return Buffer.concat([
    pointer,
    pointer,
    Buffer.alloc(16),
    record,
    Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'),
    metadata,
  ]);
}
const countryDatabase = (country: string) => oneNodeDatabase(map([['country_code', text(country)]]));

const RIPE = '193.0.6.139';
const bundled = countryLookup(readFileSync(countryDatabasePath()));

describe('storage: a newer country database without a deploy', function () {
  this.timeout(60_000);
  const fx = emulatorWithFreshBuckets('geo-update');

  it('the fixture is a database mmdb-lib opens, placing every address in its country', () => {
    const opened = openCountryDatabase(countryDatabase('AQ'));
    assert.equal(opened.ok && opened.lookup(RIPE), 'AQ');
    assert.equal(bundled(RIPE), 'NL');
  });

  it('geo update refuses a corrupt file and one that places no address, uploading nothing', async () => {
    const refused = async (bytes: Buffer, why: RegExp) =>
      assert.rejects(
        uploadGeoDatabase(fx.bucket, bytes),
        (e: unknown) => e instanceof CliError && why.test(e.message),
      );
    await refused(Buffer.from('not a database at all'), /refused, nothing uploaded: not an MMDB database/);
    // A valid MMDB whose records carry no country.
    await refused(oneNodeDatabase(map([['city', text('Nowhere')]])), /places none of/);
    const [exists] = await fx.bucket.file(GEO_OBJECT).exists();
    assert.equal(exists, false);
  });

  it('store swaps in the uploaded database at its next check; the bundled one until then', async () => {
    let now = 0;
    let checks = 0;
    const logged: string[] = [];
    const db = new GeoDatabase(bundled, {
      object: (generation) => {
        if (generation === undefined) checks++;
        return fx.bucket.file(GEO_OBJECT, generation === undefined ? {} : { generation });
      },
      clock: () => now,
      log: (m) => logged.push(m),
    });
    // No object yet: the first lookup's check finds none and the bundled database stays.
    assert.equal(db.lookup(RIPE), 'NL');
    await db.check();
    assert.equal(db.generation, 0);

    const up = await uploadGeoDatabase(fx.bucket, countryDatabase('AQ'));
    assert.deepEqual(up.probe, { ip: RIPE, country: 'AQ' });
    now += 60_000; // within five minutes of the last check: no new check, the bundled answer
    assert.equal(db.lookup(RIPE), 'NL');
    await db.check(); // (started by the test: the lookups above found the last check recent)
    assert.equal(db.lookup(RIPE), 'AQ');
    assert.equal(db.generation, up.generation);

    // A second upload is noticed only once the last check is five minutes old, then swapped in.
    const again = await uploadGeoDatabase(fx.bucket, countryDatabase('BV'));
    const before = checks;
    now += 299_000;
    assert.equal(db.lookup(RIPE), 'AQ');
    assert.equal(checks, before, 'no check before five minutes');
    now += 1_000;
    assert.equal(db.lookup(RIPE), 'AQ'); // this lookup started the check; it is answered at once
    assert.equal(checks, before + 1, 'the lookup started a check');
    await db.check(); // the one under way
    assert.equal(checks, before + 1);
    assert.equal(db.lookup(RIPE), 'BV');
    assert.equal(db.generation, again.generation);
    assert.match(logged.join('\n'), new RegExp(`generation ${again.generation}`));
  });

  it('keeps the database it holds when the object is replaced by one that does not open', async () => {
    let now = 0;
    const logged: string[] = [];
    const db = new GeoDatabase(bundled, {
      object: (generation) => fx.bucket.file(GEO_OBJECT, generation === undefined ? {} : { generation }),
      clock: () => now,
      log: (m) => logged.push(m),
    });
    // Written around the CLI's check, as a copy made by hand would be.
    await fx.bucket.file(GEO_OBJECT).save(Buffer.from('corrupt'), { resumable: false });
    await db.check();
    assert.equal(db.lookup(RIPE), 'NL');
    assert.equal(db.generation, 0);
    assert.match(logged.join('\n'), /is refused: not an MMDB database/);
    now += 300_000;
    await db.check(); // the refused generation is not downloaded again
    assert.equal(logged.length, 1);
  });
});
