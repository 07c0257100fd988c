/**
 * Firestore's limits in the emulator (limits.ts, one table with each limit's source): a document
 * over 1 MiB, maps nested deeper than 20 and an id over 1,500 bytes are refused as Firestore
 * refuses them (INVALID_ARGUMENT), and what sits at each limit is taken; sustained writes of
 * increasing values into an indexed field above 500 a second meet contention (ABORTED), unless the
 * field is exempt from indexing (`fields.patch` with an empty indexConfig, as the Pulumi program
 * declares). The rate is judged on an injected clock: no timing in the test.
 */
import assert from 'node:assert/strict';
import { FirestoreError } from '../errors.ts';
import { HotspotMeter, LIMITS } from '../limits.ts';
import { call, createDatabase, type Running, start } from './support/harness.ts';

const DOCS = '/v1/projects/p/databases/limits-test/documents';
const GROUP = 'projects/p/databases/limits-test/collectionGroups/sends';

/** A map value nested `depth` deep (depth 1: a map of a string). */
function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { stringValue: 'x' };
  for (let i = 0; i < depth; i++) v = { mapValue: { fields: { a: v } } };
  return v;
}

describe('firestore emulator: Firestore’s limits', () => {
  let run: Running;
  let url: string;
  before(async () => {
    run = await start({ sequentialWritesPerSecond: 5 });
    url = run.emulator.url;
    assert.equal((await createDatabase(url, 'limits-test')).status, 200);
  });
  after(() => run.stop());

  it('names each limit as Google documents it', () => {
    assert.deepEqual(LIMITS, {
      documentBytes: 1_048_576,
      fieldDepth: 20,
      documentIdBytes: 1500,
      sequentialIndexWritesPerSecond: 500,
    });
  });

  it('refuses a document over 1 MiB, takes one just under', async () => {
    const big = await call(url, 'POST', `${DOCS}/big?documentId=a`, {
      fields: { blob: { stringValue: 'x'.repeat(2 * 1024 * 1024) } },
    });
    assert.equal(big.status, 400);
    assert.equal(big.json.error?.status, 'INVALID_ARGUMENT');
    assert.match(big.json.error?.message ?? '', /exceeds the maximum allowed size of 1048576 bytes/);
    const fits = await call(url, 'POST', `${DOCS}/big?documentId=b`, {
      fields: { blob: { stringValue: 'x'.repeat(1_048_000) } },
    });
    assert.equal(fits.status, 200, JSON.stringify(fits.json.error));
  });

  it('refuses maps nested deeper than 20, takes 20', async () => {
    // The document is level 1: a field holding 19 nested maps reaches 20.
    const ok = await call(url, 'POST', `${DOCS}/deep?documentId=ok`, { fields: { f: nested(19) } });
    assert.equal(ok.status, 200, JSON.stringify(ok.json.error));
    for (const depth of [20, 200]) {
      const r = await call(url, 'POST', `${DOCS}/deep?documentId=d${depth}`, {
        fields: { f: nested(depth) },
      });
      assert.equal(r.status, 400, `${depth}`);
      assert.match(r.json.error?.message ?? '', /nests maps and arrays \d+ deep; the limit is 20/);
    }
  });

  it('refuses a document id over 1,500 bytes, takes 1,500', async () => {
    const ok = await call(url, 'POST', `${DOCS}/ids?documentId=${'i'.repeat(1500)}`, { fields: {} });
    assert.equal(ok.status, 200, JSON.stringify(ok.json.error));
    const long = await call(url, 'POST', `${DOCS}/ids?documentId=${'i'.repeat(1600)}`, { fields: {} });
    assert.equal(long.status, 400);
    assert.match(long.json.error?.message ?? '', /1600 bytes; a document id is at most 1500 bytes/);
  });

  it('meets contention on rising values into an indexed field, not once the field is exempt', async () => {
    // At most 5 a second here (the option); Firestore's 500 is judged below on a clock.
    const write = (i: number) =>
      call(url, 'POST', `${DOCS}/sends?documentId=s${i}`, {
        fields: { claimed_at: { integerValue: String(1_000_000 + i) } },
      });
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await write(i));
    const refused = answers.filter((a) => a.status === 409);
    assert.ok(refused.length > 0, 'over the rate: refused');
    assert.equal(refused[0]?.json.error?.status, 'ABORTED');
    assert.match(refused[0]?.json.error?.message ?? '', /Too much contention.*"claimed_at"/);
    const patched = await call(url, 'PATCH', `/v1/${GROUP}/fields/claimed_at?updateMask=indexConfig`, {
      indexConfig: {},
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const got = await call(url, 'GET', `/v1/${GROUP}/fields/claimed_at`);
    assert.deepEqual(got.json.indexConfig, { indexes: [], usesAncestorConfig: false });
    for (let i = 100; i < 120; i++) assert.equal((await write(i)).status, 200, 'exempt: never refused');
  });
});

describe('firestore emulator: the sequential-write meter', () => {
  it('allows 500 rising writes a second per indexed field, refuses the 501st, recovers after a second', () => {
    let now = 1_000_000;
    const meter = new HotspotMeter(LIMITS.sequentialIndexWritesPerSecond, () => now);
    const doc = (i: number) => ({
      claimed_at: { timestampValue: new Date(now + i).toISOString() },
      holder: { stringValue: 'm' },
    });
    for (let i = 0; i < 500; i++) meter.record('g', doc(i), undefined);
    assert.throws(
      () => meter.record('g', doc(500), undefined),
      (e: unknown) => e instanceof FirestoreError && e.status === 'ABORTED',
    );
    // Another collection group, an exempt field, a value below the highest: not counted.
    meter.record('other', doc(501), undefined);
    meter.record('g', doc(502), new Set(['claimed_at']));
    meter.record('g', { claimed_at: { timestampValue: new Date(0).toISOString() } }, undefined);
    now += 1001;
    meter.record('g', doc(0), undefined);
  });
});
