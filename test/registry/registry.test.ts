/**
 * The registry (adapters/registry.ts) on the Cloud Storage emulator, through Google's client:
 * versions are immutable objects, the index is the commit point, a racing apply is refused naming
 * the race, readers refresh in the background with a conditional read, keep the last good copy
 * when the registry cannot be read, and answer "unavailable" when they never had one
 * (test/registry/reader-refresh.test.ts: outages, hung reads, recovery).
 */
import assert from 'node:assert/strict';
import type { Bucket } from '@google-cloud/storage';
import {
  RegistryClient,
  RegistryRace,
  RegistryReader,
  RegistryUnavailable,
} from '../../adapters/registry.ts';
import { planApply, type ResourceDoc } from '../../core/registry/registry.ts';
import { emulatorWithFreshBuckets, type Running } from '../../emulators/storage/test/support/harness.ts';

const quote = (spec: unknown, description = 'A visitor asked for a quote.'): ResourceDoc => ({
  kind: 'EventDefinition',
  name: 'quote_requested',
  description,
  spec,
});
const FIELDS = { fields: [{ name: 'amount', type: 'number' }] };

describe('registry on Cloud Storage', () => {
  const fx = emulatorWithFreshBuckets('local-project-registry');
  let run: Running;
  let bucket: Bucket;
  beforeEach(() => {
    ({ run, bucket } = fx);
  });

  it('creates 1.0, leaves an equal document alone, bumps minor or major, keeps every version as history', async () => {
    const registry = new RegistryClient(bucket);
    const author = 'ana@acme.example';
    assert.deepEqual(await registry.apply([quote(FIELDS)], { author }), [
      { kind: 'EventDefinition', name: 'quote_requested', change: 'created', version: '1.0' },
    ]);
    const same = await registry.apply([quote({ fields: [{ type: 'number', name: 'amount' }] })], { author });
    assert.equal(same[0]?.change, 'unchanged', 'key order does not make a new version');
    const wider = { fields: [...FIELDS.fields, { name: 'note', type: 'string' }] };
    assert.equal((await registry.apply([quote(wider)], { author }))[0]?.version, '1.1');
    const breaking = () => ['amount removed'];
    const changed = await registry.apply([quote({ fields: [] })], { author: 'bo@acme.example', breaking });
    assert.deepEqual(changed[0], {
      kind: 'EventDefinition',
      name: 'quote_requested',
      change: 'updated',
      version: '2.0',
      previous: '1.1',
      breaking: ['amount removed'],
    });
    const history = await registry.history('EventDefinition', 'quote_requested');
    assert.deepEqual(
      history.map((v) => [v.version, v.author]),
      [
        ['1.0', author],
        ['1.1', author],
        ['2.0', 'bo@acme.example'],
      ],
    );
    // Versions are immutable objects: 1.0 still says what it said.
    assert.deepEqual((await registry.readVersion('EventDefinition', 'quote_requested', '1.0')).spec, FIELDS);
  });

  it('plans without writing on a dry run, and deletes by marking the index', async () => {
    const registry = new RegistryClient(bucket);
    const planned = await registry.apply([quote(FIELDS)], { author: 'a', dryRun: true });
    assert.equal(planned[0]?.change, 'created');
    assert.deepEqual((await bucket.getFiles())[0], []);
    await registry.apply([quote(FIELDS)], { author: 'a' });
    assert.deepEqual(
      (await registry.delete('EventDefinition', 'quote_requested', 'b')).map((c) => c.change),
      ['deleted'],
    );
    const { index } = await registry.readIndex('EventDefinition');
    assert.equal(index.resources.quote_requested?.deleted, true);
    assert.equal((await registry.history('EventDefinition', 'quote_requested')).length, 1);
    const back = await registry.apply([quote(FIELDS)], { author: 'a' });
    assert.deepEqual([back[0]?.change, back[0]?.version], ['created', '1.1']);
  });

  it('lets one of two concurrent applies win and refuses the other, naming the race', async () => {
    const registry = new RegistryClient(bucket);
    await registry.apply([quote(FIELDS)], { author: 'a' });
    const results = await Promise.allSettled([
      registry.apply([quote(FIELDS, 'first writer')], { author: 'a' }),
      registry.apply([quote(FIELDS, 'second writer')], { author: 'b' }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    assert.ok(lost[0]?.reason instanceof RegistryRace, String(lost[0]?.reason));
    assert.match(String(lost[0]?.reason.message), /another apply/);
    const history = await registry.history('EventDefinition', 'quote_requested');
    assert.deepEqual(
      history.map((v) => v.version),
      ['1.0', '1.1'],
    );
  });

  it('replaces a version object a losing writer left behind, which history never showed', async () => {
    const registry = new RegistryClient(bucket);
    await registry.apply([quote(FIELDS)], { author: 'a' });
    // A loser wrote 1.1 and died before its index commit.
    await bucket.file('EventDefinition/quote_requested/1.1.json').save('{"left":"over"}');
    assert.deepEqual(
      (await registry.history('EventDefinition', 'quote_requested')).map((v) => v.version),
      ['1.0'],
    );
    const next = await registry.apply([quote(FIELDS, 'edited')], { author: 'a' });
    assert.equal(next[0]?.version, '1.1');
    assert.equal(
      (await registry.readVersion('EventDefinition', 'quote_requested', '1.1')).description,
      'edited',
    );
  });

  it('refreshes readers in the background, with a conditional read, and keeps the last good copy', async () => {
    const registry = new RegistryClient(bucket);
    await registry.apply([quote(FIELDS)], { author: 'a' });
    let now = 1_000_000;
    const reader = new RegistryReader(new RegistryClient(bucket), { clock: () => now });
    const first = await reader.current('EventDefinition');
    assert.equal(
      first.resources.get('quote_requested')?.version,
      '1.0',
      'with no copy, the first read is waited for',
    );
    await registry.apply([quote(FIELDS, 'edited')], { author: 'a' });
    now += 10_000;
    assert.equal((await reader.current('EventDefinition')).resources.get('quote_requested')?.version, '1.0');
    await reader.idle('EventDefinition');
    assert.equal(reader.cached('EventDefinition'), first, 'a copy younger than 30 s starts no read');
    now += 25_000;
    const served = await reader.current('EventDefinition');
    assert.equal(served, first, 'an old copy is served at once while it is refreshed');
    await reader.idle('EventDefinition');
    const fresh = await reader.current('EventDefinition');
    assert.equal(fresh.resources.get('quote_requested')?.version, '1.1', 'refreshed in the background');
    now += 31_000;
    await reader.current('EventDefinition');
    await reader.idle('EventDefinition');
    const unchanged = await reader.current('EventDefinition');
    assert.equal(unchanged.generation, fresh.generation);
    assert.equal(unchanged.readAt, now);
    assert.equal(unchanged.resources, fresh.resources, 'an unchanged index is a 304: nothing is read again');

    // The registry goes away: the last good copy is served, marked stale once the read failed.
    const gone = new RegistryReader(new RegistryClient(run.storage.bucket('no-such-registry')), {
      clock: () => now,
    });
    await assert.rejects(gone.current('EventDefinition'), RegistryUnavailable);
    await bucket.file('EventDefinition/index.json').save('not json', { resumable: false });
    now += 31_000;
    assert.equal((await reader.current('EventDefinition')).stale, false);
    await reader.idle('EventDefinition');
    const kept = await reader.current('EventDefinition');
    assert.equal(kept.stale, true);
    assert.equal(kept.resources.get('quote_requested')?.version, '1.1');
  });

  it('plans apply as a pure function: refuses a document of another kind', () => {
    const index = { kind: 'Translator' as const, resources: {} };
    assert.throws(
      () => planApply({ index, current: new Map(), docs: [quote(FIELDS)], author: 'a', now: 'now' }),
      /EventDefinition given to the Translator index/,
    );
  });
});
