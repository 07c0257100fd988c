/**
 * The Bigtable emulator with `--iam`: Google's client, unchanged, on each member's identity port
 * (it sends no credentials to a plaintext endpoint); grants on the project, the instance or one
 * table (with a condition on it too); each method family allowed with its role and refused
 * without it, PERMISSION_DENIED in Bigtable's words, naming permission and resource, its ErrorInfo
 * in the trailer; a token's member, a token that does not verify (UNAUTHENTICATED); the owner on
 * the main port.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AccessFile, mintToken, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { processKeeper } from '@eventbus/emulator-common/test-support/emulator-process.ts';
import type { Bigtable } from '@google-cloud/bigtable';
import * as grpc from '@grpc/grpc-js';
import {
  clientOf,
  endpointOf,
  exited,
  launch,
  type Running,
  rawDataClient,
  refusal,
  start,
  tempDir,
} from './support/harness.ts';

const sa = (name: string) => `serviceAccount:${name}@p.iam.gserviceaccount.com`;
const USER = sa('store');
const READER = sa('reader');
const VIEWER = sa('viewer');
const TABLE_USER = sa('one-table');
const ELSEWHERE = sa('elsewhere');
const ADMIN = sa('admin');
const MEMBERS = [USER, READER, VIEWER, TABLE_USER, ELSEWHERE, ADMIN];
const INSTANCE = 'projects/p/instances/i';
const TABLE = `${INSTANCE}/tables/t`;
const ONLY = `${INSTANCE}/tables/only`;
const DENIED = grpc.status.PERMISSION_DENIED;

/** Bigtable's refusal of `permission` on `resource` to `member`, as the client reports it. */
async function deniedTo(
  p: Promise<unknown>,
  member: string,
  permission: string,
  resource: string,
): Promise<void> {
  const r = await refusal(p);
  assert.equal(r.code, DENIED, r.details);
  assert.match(
    r.details,
    new RegExp(`Access denied\\. Missing IAM permission: ${permission.replace(/\./g, '\\.')}\\.`),
  );
  assert.ok(
    r.details.includes(`Permission '${permission}' denied on resource '${resource}' for ${member}`),
    r.details,
  );
}

describe('bigtable emulator: IAM', () => {
  const dir = tempDir();
  const file = join(dir, 'access.json');
  const secret = newTokenSecret();
  let run: Running;
  let owner: Bigtable;
  const clients = new Map<string, Bigtable>();
  const as = (member: string): Bigtable => clients.get(member) as Bigtable;

  before(async () => {
    const access: AccessFile = {
      tokenSecret: secret,
      policies: [
        { resource: 'projects/p', bindings: [{ role: 'roles/bigtable.admin', members: [ADMIN] }] },
        {
          resource: 'projects/p',
          bindings: [
            {
              role: 'roles/bigtable.user',
              members: [ELSEWHERE],
              condition: { title: 'another table', expression: `resource.name == "${INSTANCE}/tables/else"` },
            },
          ],
        },
        {
          resource: INSTANCE,
          bindings: [
            { role: 'roles/bigtable.user', members: [USER] },
            { role: 'roles/bigtable.reader', members: [READER] },
            { role: 'roles/bigtable.viewer', members: [VIEWER] },
          ],
        },
        { resource: ONLY, bindings: [{ role: 'roles/bigtable.user', members: [TABLE_USER] }] },
      ],
    };
    writeFileSync(file, JSON.stringify(access));
    run = await start({ iam: { file, identities: MEMBERS.map((member) => ({ member, port: 0 })) } });
    owner = clientOf(run.emulator.endpoint);
    for (const m of MEMBERS) clients.set(m, clientOf(`127.0.0.1:${run.emulator.identityPorts.get(m)}`));
    // The main port's callers, without a token, are the project's owner.
    for (const id of ['t', 'only']) await owner.instance('i').createTable(id, { families: ['cf'] });
    await owner
      .instance('i')
      .table('t')
      .insert([{ key: 'seed', data: { cf: { q: 'v' } } }]);
  });
  after(async () => {
    for (const c of [owner, ...clients.values()]) await c.close();
    await run.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('bigtable.user on the instance reads, writes, checks-and-mutates, increments and drops rows', async () => {
    const table = as(USER).instance('i').table('t');
    await table.insert([{ key: 'u1', data: { cf: { q: 'a' } } }]);
    await table.row('u2').save({ cf: { q: 'b' } });
    const [rows] = await table.getRows({ prefix: 'u' });
    assert.deepEqual(
      rows.map((r) => r.id),
      ['u1', 'u2'],
    );
    const [matched] = await table.row('u1').filter([{ all: true }], {
      onMatch: [{ method: 'insert', data: { cf: { seen: 'y' } } }],
    });
    assert.equal(matched, true);
    await table.row('n').increment('cf:c', 2);
    const [samples] = await table.sampleRowKeys();
    assert.ok(samples.length >= 1);
    await table.deleteRows('u');
    assert.deepEqual((await table.getRows({ prefix: 'u' }))[0], []);
    const [exists] = await table.exists();
    assert.equal(exists, true);
    const [tables] = await as(USER).instance('i').getTables();
    assert.deepEqual(tables.map((t) => t.id).sort(), ['only', 't']);
  });

  it('bigtable.user does not administer tables: create, delete and column families are refused', async () => {
    const instance = as(USER).instance('i');
    await deniedTo(instance.createTable('made'), USER, 'bigtable.tables.create', INSTANCE);
    await deniedTo(instance.table('t').delete(), USER, 'bigtable.tables.delete', TABLE);
    await deniedTo(instance.table('t').createFamily('added'), USER, 'bigtable.tables.update', TABLE);
    assert.equal((await owner.instance('i').table('t').exists())[0], true, 'nothing deleted');
  });

  it('bigtable.reader reads and samples, and every write is refused before it lands', async () => {
    const table = as(READER).instance('i').table('t');
    assert.deepEqual(
      (await table.getRows({ prefix: 'seed' }))[0].map((r) => r.id),
      ['seed'],
    );
    assert.ok((await table.sampleRowKeys())[0].length >= 1);
    await deniedTo(
      table.insert([{ key: 'r1', data: { cf: { q: 'x' } } }]),
      READER,
      'bigtable.tables.mutateRows',
      TABLE,
    );
    await deniedTo(table.row('r2').save({ cf: { q: 'x' } }), READER, 'bigtable.tables.mutateRows', TABLE);
    await deniedTo(
      table
        .row('r3')
        .filter([{ all: true }], { onNoMatch: [{ method: 'insert', data: { cf: { q: 'x' } } }] }),
      READER,
      'bigtable.tables.mutateRows',
      TABLE,
    );
    // ReadModifyWriteRow needs mutateRows and readRows: the reader lacks the first.
    await deniedTo(table.row('r4').increment('cf:c', 1), READER, 'bigtable.tables.mutateRows', TABLE);
    await deniedTo(table.deleteRows('seed'), READER, 'bigtable.tables.mutateRows', TABLE);
    const [left] = await owner.instance('i').table('t').getRows({ prefix: 'r' });
    assert.deepEqual(left, [], 'no refused write landed');
    assert.equal((await owner.instance('i').table('t').row('seed').exists())[0], true);
  });

  it('bigtable.viewer sees tables and their families but reads no row', async () => {
    const instance = as(VIEWER).instance('i');
    assert.deepEqual((await instance.getTables())[0].map((t) => t.id).sort(), ['only', 't']);
    assert.deepEqual(
      (await instance.table('t').getFamilies())[0].map((f) => f.id),
      ['cf'],
    );
    await deniedTo(instance.table('t').getRows(), VIEWER, 'bigtable.tables.readRows', TABLE);
    // The client decodes the ErrorInfo of a refused stream as it does Bigtable's.
    const err = (await instance
      .table('t')
      .getRows()
      .then(
        () => assert.fail('expected a refusal'),
        (e: unknown) => e,
      )) as { reason?: string; domain?: string; errorInfoMetadata?: Record<string, string> };
    assert.equal(err.reason, 'IAM_PERMISSION_DENIED');
    assert.equal(err.domain, 'bigtable.googleapis.com');
    assert.deepEqual(err.errorInfoMetadata, {
      permission: 'bigtable.tables.readRows',
      resource: TABLE,
      principal: VIEWER,
    });
    await deniedTo(instance.table('t').sampleRowKeys(), VIEWER, 'bigtable.tables.sampleRowKeys', TABLE);
  });

  it('a grant on one table reaches that table only, not its instance nor its siblings', async () => {
    const instance = as(TABLE_USER).instance('i');
    await instance.table('only').insert([{ key: 'o', data: { cf: { q: 'x' } } }]);
    assert.deepEqual(
      (await instance.table('only').getRows())[0].map((r) => r.id),
      ['o'],
    );
    await deniedTo(instance.table('t').getRows(), TABLE_USER, 'bigtable.tables.readRows', TABLE);
    await deniedTo(instance.getTables(), TABLE_USER, 'bigtable.tables.list', INSTANCE);
    // A project grant conditioned on another table's name does not reach this one.
    await deniedTo(
      as(ELSEWHERE).instance('i').table('t').row('seed').get(),
      ELSEWHERE,
      'bigtable.tables.readRows',
      TABLE,
    );
  });

  it('bigtable.admin on the project creates, changes and deletes tables', async () => {
    const instance = as(ADMIN).instance('i');
    const [table] = await instance.createTable('made', { families: ['a'] });
    await table.createFamily('b', { rule: { versions: 1 } });
    assert.deepEqual((await table.getFamilies())[0].map((f) => f.id).sort(), ['a', 'b']);
    await table.delete();
    assert.equal((await owner.instance('i').table('made').exists())[0], false);
  });

  it('the refusal carries ErrorInfo (IAM_PERMISSION_DENIED, the domain, permission and resource)', async () => {
    const raw = rawDataClient(`127.0.0.1:${run.emulator.identityPorts.get(VIEWER)}`);
    try {
      const err = (await raw
        .call('MutateRow', {
          tableName: TABLE,
          rowKey: Buffer.from('x'),
          mutations: [
            { setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), value: Buffer.from('v') } },
          ],
        })
        .then(
          () => assert.fail('expected a refusal'),
          (e: unknown) => e,
        )) as grpc.ServiceError;
      assert.equal(err.code, DENIED);
      const [details] = err.metadata.get('grpc-status-details-bin');
      assert.ok(Buffer.isBuffer(details), 'no grpc-status-details-bin trailer');
      const text = details.toString('latin1');
      for (const part of [
        'type.googleapis.com/google.rpc.ErrorInfo',
        'IAM_PERMISSION_DENIED',
        'bigtable.googleapis.com',
        'bigtable.tables.mutateRows',
        TABLE,
        VIEWER,
      ])
        assert.ok(text.includes(part), `the trailer lacks ${part}`);
    } finally {
      raw.close();
    }
  });

  it('tokens: a minted one acts as its member on the main port, a bad one is UNAUTHENTICATED', async () => {
    const raw = rawDataClient(run.emulator.endpoint);
    const withToken = (token: string) => {
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${token}`);
      return md;
    };
    const read = { tableName: TABLE, rows: { rowKeys: [Buffer.from('seed')] } };
    const write = {
      tableName: TABLE,
      rowKey: Buffer.from('tok'),
      mutations: [
        { setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), value: Buffer.from('v') } },
      ],
    };
    try {
      const reader = withToken(mintToken(secret, READER));
      const chunks = await raw.stream('ReadRows', read, reader);
      assert.equal(chunks.length, 1);
      const denied = await refusal(raw.call('MutateRow', write, reader));
      assert.equal(denied.code, DENIED);
      assert.match(denied.details, new RegExp(`for ${READER.replace(/\./g, '\\.')}`));
      const bad = await refusal(raw.call('MutateRow', write, withToken('ya29.nope')));
      assert.equal(bad.code, grpc.status.UNAUTHENTICATED);
      // Without a token the main port's caller is the owner.
      await raw.call('MutateRow', write);
    } finally {
      raw.close();
    }
  });

  it('without --iam nothing is checked and no member port is opened', async () => {
    const plain = await start();
    try {
      assert.equal(plain.emulator.identityPorts.size, 0);
      const c = clientOf(plain.emulator.endpoint);
      await c.instance('i').createTable('t', { families: ['cf'] });
      await c.close();
    } finally {
      await plain.stop();
    }
  });

  it('the command enforces --iam: a token of a reader may read, not write', async function () {
    this.timeout(30_000);
    const keeper = processKeeper();
    const data = tempDir();
    try {
      const child = await launch(data, ['--iam', file]);
      keeper.keep(child.child);
      const raw = rawDataClient(endpointOf(child.url));
      const token = new grpc.Metadata();
      token.set('authorization', `Bearer ${mintToken(secret, READER)}`);
      const write = { tableName: TABLE, rowKey: Buffer.from('k'), mutations: [{ deleteFromRow: {} }] };
      assert.equal((await refusal(raw.call('MutateRow', write, token))).code, DENIED);
      // Past IAM, the reader's read reaches the handler: no such table in this data directory.
      const read = await refusal(raw.stream('ReadRows', { tableName: TABLE }, token));
      assert.equal(read.code, grpc.status.NOT_FOUND, read.details);
      raw.close();
      child.child.kill('SIGTERM');
      assert.equal(await exited(child.child), 0);
    } finally {
      keeper.reap();
      rmSync(data, { recursive: true, force: true });
    }
  });
});
