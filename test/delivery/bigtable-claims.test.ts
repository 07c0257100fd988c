/**
 * The Bigtable claim store (adapters/bigtable-claims.ts) against the Bigtable twin
 * (emulators/bigtable) run as its own process on an ephemeral loopback port: the claim store
 * contract every store keeps (test/support/claim-store-contract.ts, send once over it included),
 * then what is Bigtable's own: the row's layout and its family's GC rule, a missing table refused
 * on every call, malformed rows with and without a version token, and the calls on the wire.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bigtable } from '@google-cloud/bigtable';
import {
  bigtableClientOptions,
  CLAIM_FAMILY,
  CLAIM_MAX_AGE_SECONDS,
  createBigtableClaimStore,
  rowKeyOf,
  UNVERSIONED,
} from '../../adapters/bigtable-claims.ts';
import type { UnaryCall, UnaryClient } from '../../adapters/grpc-unary.ts';
import type { ClaimKey } from '../../core/claims/claim-store.ts';
import { claimStoreContract } from '../support/claim-store-contract.ts';
import { exited, launchEmulator } from '../support/emulator-process.ts';

// Google's client (the test's admin only) must not look for a metadata server: loopback only.
process.env['METADATA_SERVER_DETECTION'] = 'none';

const HOUR = 3_600_000;
const id = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A loopback port where nothing listens (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

let dir: string;
let child: ChildProcess;
let endpoint: string;
let admin: Bigtable;
let deadPort: number;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bigtable-claims-'));
  const launched = await launchEmulator('bigtable', dir, ['--fsync', 'none', '--gc-interval-ms', '0']);
  child = launched.child;
  endpoint = new URL(launched.url).host;
  // Google's client, for the test's own admin and raw writes only (never the store's path).
  admin = new Bigtable({ projectId: 'p', apiEndpoint: endpoint, metricsEnabled: false });
  await admin.instance('i').createTable('claims', {
    families: [{ name: CLAIM_FAMILY, rule: { age: { seconds: CLAIM_MAX_AGE_SECONDS } } }],
  });
  deadPort = await closedPort();
});

after(async () => {
  await admin?.close();
  if (child) {
    child.kill('SIGTERM');
    await exited(child);
  }
  rmSync(dir, { recursive: true, force: true });
});

const store = (table = 'claims') =>
  createBigtableClaimStore({ project: 'p', instance: 'i', table, emulatorHost: endpoint, timeoutMs: 5000 });
const table = () => admin.instance('i').table('claims');
/** Cells written around the store, as an older release or a hand would. */
const writeRow = async (key: ClaimKey, cells: Record<string, string>): Promise<void> => {
  await table().insert([{ key: rowKeyOf(key), data: { [CLAIM_FAMILY]: cells } }]);
};

claimStoreContract('bigtable', {
  store: () => store(),
  // No version token, its fields not flat and its expiry not a number.
  writeMalformed: (key) => writeRow(key, { f: '{"lease_until":{"x":1}}', e: 'soon' }),
  missing: () => store('absent'),
  unreachable: () =>
    createBigtableClaimStore({
      project: 'p',
      instance: 'i',
      table: 'claims',
      emulatorHost: `127.0.0.1:${deadPort}`,
      timeoutMs: 2000,
    }),
  missingError: /5 NOT_FOUND: Table not found/,
  sampleVersion: '0'.repeat(32),
});

describe('bigtable claim store: its rows', () => {
  let n = 0;
  const key = (space: ClaimKey['space'] = 'sends'): ClaimKey => ({ space, id: id(`bigtable-${n++}`) });

  it('one row per claim, `<space>#<id>`, one cell `c:r` in one family whose GC rule is the window and a day', async () => {
    const s = store();
    const k = key();
    const expireAt = Date.now() + HOUR;
    const made = await s.create(k, { holder: 'm1', attempt: 1 }, expireAt);
    assert.ok(made.created);
    assert.match(made.version, /^[0-9a-f]{32}$/);
    const [row] = await table().row(`sends#${k.id}`).get();
    const cells = row.data[CLAIM_FAMILY] as Record<string, { value: string }[]>;
    assert.deepEqual(Object.keys(cells), ['r']);
    // The token, the expiry and the fields, a space after each but the last.
    assert.equal(cells['r']?.[0]?.value, `${made.version} ${expireAt} {"holder":"m1","attempt":1}`);
    const [families] = await table().getFamilies();
    const rule = families.find((f) => f.id === CLAIM_FAMILY)?.metadata?.gcRule as {
      maxAge?: { seconds?: string | number };
    };
    assert.equal(Number(rule?.maxAge?.seconds), 8 * 86_400);
    // A replace leaves the new cell only (one version), under a new token.
    const v2 = await s.replace(k, made.version, { holder: 'm2' }, expireAt);
    assert.ok(v2 && v2 !== made.version);
    const [after] = await table().row(`sends#${k.id}`).get();
    const now = after.data[CLAIM_FAMILY] as Record<string, { value: string }[]>;
    assert.deepEqual(Object.keys(now), ['r']);
    assert.equal(now['r']?.length, 1);
    assert.equal(now['r']?.[0]?.value, `${v2} ${expireAt} {"holder":"m2"}`);
  });

  it('a row of the three cells written before one cell reads, replaces into one cell and releases', async () => {
    const s = store();
    const token = 'cd'.repeat(16);
    const expireAt = Date.now() + HOUR;
    const old = { v: token, e: String(expireAt), f: '{"holder":"m1","attempt":2,"ok":true}' };
    const k = key();
    await writeRow(k, old);
    assert.deepEqual(await s.read(k), {
      fields: { holder: 'm1', attempt: 2, ok: true },
      version: token,
      expireAt,
    });
    // A create finds it held, as it was written.
    const again = await s.create(k, { holder: 'm2' }, expireAt);
    assert.ok(!again.created);
    assert.equal(again.held.version, token);
    // At a stale version (or a token in another of its cells): refused, the row untouched.
    assert.equal(await s.replace(k, 'ef'.repeat(16), { holder: 'm2' }, expireAt), undefined);
    assert.equal(await s.release(k, 'ef'.repeat(16)), false);
    assert.equal((await s.read(k))?.version, token);
    // At its version: the row deleted, the one new cell written.
    const v2 = await s.replace(k, token, { holder: 'm2' }, expireAt + 1);
    assert.ok(v2 && v2 !== token);
    const [row] = await table().row(rowKeyOf(k)).get();
    assert.deepEqual(Object.keys(row.data[CLAIM_FAMILY] as object), ['r']);
    assert.deepEqual(await s.read(k), { fields: { holder: 'm2' }, version: v2, expireAt: expireAt + 1 });
    assert.equal(await s.replace(k, token, {}, expireAt), undefined, 'the old version is stale now');
    assert.equal(await s.release(k, token), false);

    const released = key();
    await writeRow(released, old);
    assert.equal(await s.release(released, 'ef'.repeat(16)), false, 'a stale version');
    assert.equal(await s.release(released, token), true);
    assert.equal(await s.read(released), undefined);
    assert.ok((await s.create(released, {}, expireAt)).created, 'free again');
  });

  it("the old form's expiry and fields cells never pass for its version, nor the one cell's fields", async () => {
    const s = store();
    const v = 'ab'.repeat(16);
    const other = '12'.repeat(16);
    const k = key();
    await writeRow(k, { v, e: other, f: `${other} 1 {}` });
    const read = await s.read(k);
    assert.equal(read?.version, v);
    assert.match(read?.malformed ?? '', /no expiry/);
    assert.equal(await s.replace(k, other, {}, Date.now() + HOUR), undefined);
    assert.equal(await s.release(k, other), false);
    assert.ok(await s.replace(k, v, {}, Date.now() + HOUR));

    // A token inside the one cell, past its start, is not its version.
    const inside = key();
    await writeRow(inside, { r: `${v} 1 {"t":"${other}"}` });
    assert.equal((await s.read(inside))?.version, v);
    assert.equal(await s.release(inside, other), false);
    assert.equal(await s.release(inside, v), true);
  });

  it('a missing table rejects every call (NOT_FOUND), none answers "absent"', async () => {
    const s = store('absent');
    const k = key();
    await assert.rejects(s.read(k), /NOT_FOUND/);
    await assert.rejects(s.replace(k, '1'.repeat(32), {}, Date.now() + HOUR), /NOT_FOUND/);
    await assert.rejects(s.release(k, '1'.repeat(32)), /NOT_FOUND/);
    await assert.rejects(s.replace(k, UNVERSIONED, {}, Date.now() + HOUR), /NOT_FOUND/);
  });

  it('a row with its token but not a claim is malformed at that version; only that version replaces it', async () => {
    const s = store();
    const k = key();
    const token = 'ab'.repeat(16);
    await writeRow(k, { v: token, e: String(Date.now() + HOUR), f: '[1,2]' });
    const read = await s.read(k);
    assert.equal(read?.version, token);
    assert.match(read?.malformed ?? '', /not a JSON object/);
    assert.equal(await s.replace(k, UNVERSIONED, { a: 1 }, Date.now() + HOUR), undefined, 'it has a token');
    const v = await s.replace(k, token, { a: 1 }, Date.now() + HOUR);
    assert.ok(v);
    assert.deepEqual((await s.read(k))?.fields, { a: 1 });

    const stranger = key();
    await writeRow(stranger, { v: token, e: '1', f: '{}', extra: 'x' });
    assert.match((await s.read(stranger))?.malformed ?? '', /a cell not of a claim: c:extra/);
    const float = key();
    await writeRow(float, { v: token, e: '1', f: '{"n":{"$numberDouble":"1"}}' });
    assert.match((await s.read(float))?.malformed ?? '', /claim field n is not a flat value/);
  });

  it('a one-cell row with its token but not a claim is malformed at that version; only that version replaces it', async () => {
    const s = store();
    const token = '9f'.repeat(16);
    const cases: [string, RegExp][] = [
      [`${token} soon {}`, /no expiry \(epoch ms\): "soon"/],
      [`${token} 1`, /its fields are not JSON/],
      [`${token} 1 [1]`, /not a JSON object/],
      [`${token} 1 {"n":{"x":1}}`, /claim field n is not a flat value/],
    ];
    for (const [value, why] of cases) {
      const k = key();
      await writeRow(k, { r: value });
      const read = await s.read(k);
      assert.equal(read?.version, token, value);
      assert.match(read?.malformed ?? '', why);
      assert.equal(await s.replace(k, UNVERSIONED, { a: 1 }, Date.now() + HOUR), undefined, 'it has a token');
      assert.ok(await s.replace(k, token, { a: 1 }, Date.now() + HOUR));
      assert.deepEqual((await s.read(k))?.fields, { a: 1 });
    }
    const stranger = key();
    await writeRow(stranger, { r: `${token} 1 {}`, extra: 'x' });
    assert.match((await s.read(stranger))?.malformed ?? '', /a cell not of a claim: c:extra/);
    // Both forms in one row (no release writes that): malformed, at the one cell's token, which
    // replaces it; a token in neither form does not.
    const both = key();
    await writeRow(both, { r: `${token} 1 {}`, v: 'ab'.repeat(16), e: '1' });
    const mixed = await s.read(both);
    assert.equal(mixed?.version, token);
    assert.match(mixed?.malformed ?? '', /cells of both forms: c:r and c:v, c:e/);
    assert.equal(await s.replace(both, 'ef'.repeat(16), {}, Date.now() + HOUR), undefined);
    const v = await s.replace(both, token, { b: 2 }, Date.now() + HOUR);
    assert.ok(v);
    assert.deepEqual(await s.read(both).then((c) => c?.fields), { b: 2 });
  });

  const untokened: [string, Record<string, string>][] = [
    ['three cells', { v: 'not-a-token', f: '{}', e: '0' }],
    ['one cell', { r: 'not-a-token 0 {}' }],
    ['one cell, no space after its token', { r: `${'ab'.repeat(16)}0 {}` }],
  ];
  for (const [form, cells] of untokened)
    it(`a row without a version token (${form}): of concurrent replaces at UNVERSIONED exactly one wins`, async () => {
      const s = store();
      const k = key();
      await writeRow(k, cells);
      const read = await s.read(k);
      assert.equal(read?.version, UNVERSIONED);
      assert.match(read?.malformed ?? '', /no version token/);
      assert.equal(
        await s.replace(k, 'ab'.repeat(16), {}, Date.now() + HOUR),
        undefined,
        'no token to match',
      );
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => s.replace(k, UNVERSIONED, { writer: i }, Date.now() + HOUR)),
      );
      const won = answers.filter((a) => a !== undefined);
      assert.equal(won.length, 1);
      assert.equal((await s.read(k))?.version, won[0]);
      assert.equal(await s.release(k, UNVERSIONED), false, 'no longer unversioned');
      assert.equal(
        await s.replace(key(), UNVERSIONED, {}, Date.now() + HOUR),
        undefined,
        'no row: nothing to replace',
      );
    });

  it('refuses a version not of this store, fields that are not flat and an expiry that is not a time', async () => {
    const s = store();
    await assert.rejects(
      s.replace(key(), '2026-11-25T00:00:00Z', {}, Date.now()),
      /not a version of this claim store/,
    );
    await assert.rejects(s.release(key(), '.*'), /not a version of this claim store/);
    await assert.rejects(s.create(key(), { n: Number.NaN }, Date.now()), /claim field n is not a flat value/);
    await assert.rejects(s.create(key(), {}, Number.POSITIVE_INFINITY), /not an expiry/);
  });
});

describe('bigtable claim store: the calls on the wire', () => {
  const recorder = () => {
    const calls: UnaryCall[] = [];
    const client: UnaryClient = {
      call: async (c) => {
        calls.push(c);
        return Buffer.from([0x08, 0x00]); // predicate_matched: false
      },
      stream: async (c) => {
        calls.push(c);
        return [];
      },
      connect: async () => {},
      close: async () => {},
    };
    return { calls, client };
  };

  it('CheckAndMutateRow and ReadRows of the table, with its routing header and app profile', async () => {
    const r = recorder();
    const s = createBigtableClaimStore({
      project: 'proj',
      instance: 'inst',
      table: 'claims',
      appProfileId: 'claims-single',
      client: r.client,
    });
    const k: ClaimKey = { space: 'sends', id: id('wire') };
    assert.ok((await s.create(k, {}, Date.now())).created);
    assert.equal(await s.read(k), undefined);
    assert.deepEqual(
      r.calls.map((c) => c.path),
      ['/google.bigtable.v2.Bigtable/CheckAndMutateRow', '/google.bigtable.v2.Bigtable/ReadRows'],
    );
    for (const c of r.calls) {
      assert.equal(
        c.headers?.['x-goog-request-params'],
        'table_name=projects%2Fproj%2Finstances%2Finst%2Ftables%2Fclaims&app_profile_id=claims-single',
      );
      assert.ok(c.body.includes(Buffer.from('projects/proj/instances/inst/tables/claims')));
      assert.ok(c.body.includes(Buffer.from(`sends#${k.id}`)));
      assert.ok(c.body.includes(Buffer.from('claims-single')));
      assert.ok(c.deadline > Date.now() && c.deadline <= Date.now() + 10_000);
    }
  });
});

describe('bigtable claim store: where it calls, and with what', () => {
  it('bigtable.googleapis.com over TLS with the credentials; an emulator in plaintext with none', async () => {
    let asked = 0;
    const auth = { getRequestHeaders: async () => new Headers({ authorization: `Bearer t${++asked}` }) };
    const cloud = bigtableClientOptions({ auth });
    assert.equal(cloud.origin, 'https://bigtable.googleapis.com');
    assert.deepEqual(await cloud.credentials?.headers(), { authorization: 'Bearer t1' });
    const local = bigtableClientOptions({ emulatorHost: '127.0.0.1:8087', auth });
    assert.equal(local.origin, 'http://127.0.0.1:8087');
    assert.equal(local.credentials, undefined);
    assert.equal(asked, 1, 'the emulator never asked for credentials');
  });
});
