/**
 * The BigQuery emulator with `--iam`: callers by token, by identity port or as the owner, each REST
 * call and each statement of a query authorized as BigQuery does, refused with BigQuery's 401 and
 * 403 bodies; the access file re-read when it changes. Google's client where it can show it (on
 * identity ports: it sends no token to a custom endpoint), raw HTTP with `Authorization: Bearer`
 * for tokens and for the bodies themselves.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AccessFile,
  mintToken,
  newTokenSecret,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { BigQuery } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import { type BigQueryEmulator, startBigQueryEmulator } from '../server.ts';
import { rejectsWith } from './support/helpers.ts';

const P = 'iam-project';
const DATASET = `projects/${P}/datasets/events`;
const RAW = `${DATASET}/tables/raw`;
const sa = (name: string) => `serviceAccount:${name}@${P}.iam.gserviceaccount.com`;
/** Jobs on the project, Data Editor on the dataset. */
const WRITER = sa('writer');
/** Jobs on the project, Data Viewer on table `raw` only. */
const READER = sa('reader');
/** Nothing. */
const NOBODY = sa('nobody');
/** Nothing, until the access file is rewritten. */
const LATE = sa('late');
const IDENTITIES = [WRITER, READER, NOBODY];

const POLICIES: IamPolicy[] = [
  {
    resource: `projects/${P}`,
    bindings: [{ role: 'roles/bigquery.jobUser', members: [WRITER, READER] }],
  },
  { resource: DATASET, bindings: [{ role: 'roles/bigquery.dataEditor', members: [WRITER] }] },
  { resource: RAW, bindings: [{ role: 'roles/bigquery.dataViewer', members: [READER] }] },
  {
    resource: `${DATASET}/tables/peek`,
    bindings: [{ role: 'roles/bigquery.dataViewer', members: [READER] }],
  },
];

const SCHEMA = [
  { name: 'id', type: 'STRING' },
  { name: 'n', type: 'INT64' },
];

interface ErrorBody {
  code: number;
  message: string;
  status: string;
  errors: { message: string; domain: string; reason: string }[];
  details?: { '@type': string; reason: string; domain: string; metadata: Record<string, string> }[];
}

/** BigQuery's 403 for `permission` on `resource`, with `message` and the ErrorInfo naming both. */
function assertDenied(
  status: number,
  body: { error?: ErrorBody },
  message: string,
  permission: string,
  resource: string,
  principal: string,
): void {
  assert.equal(status, 403, JSON.stringify(body));
  const e = body.error as ErrorBody;
  assert.equal(e.code, 403);
  assert.equal(e.status, 'PERMISSION_DENIED');
  assert.equal(e.message, message);
  assert.deepEqual(e.errors, [{ message, domain: 'global', reason: 'accessDenied' }]);
  assert.deepEqual(e.details, [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'IAM_PERMISSION_DENIED',
      domain: 'bigquery.googleapis.com',
      metadata: { permission, resource, principal },
    },
  ]);
}

const tableDenied = (permission: string, t: string) =>
  `Access Denied: Table ${P}:events.${t}: Permission ${permission} denied on table ${P}:events.${t} (or it may not exist).`;

describe('bigquery emulator with --iam', () => {
  let dir: string;
  let file: string;
  let secret: string;
  let emu: BigQueryEmulator;
  const clients = new Map<string, BigQuery>();
  const as = (member: string) => clients.get(member) as BigQuery;
  const writeAccess = (policies: IamPolicy[]) => {
    const access: AccessFile = { tokenSecret: secret, policies };
    writeFileSync(file, JSON.stringify(access));
  };
  /** A raw call on the main port, with a token for `member` (or the `authorization` given). */
  const call = async (
    path: string,
    auth: { member?: string; authorization?: string; port?: number },
    method = 'GET',
    body?: unknown,
  ): Promise<{ status: number; json: { error?: ErrorBody } & Record<string, unknown> }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth.member) headers['authorization'] = `Bearer ${mintToken(secret, auth.member)}`;
    if (auth.authorization) headers['authorization'] = auth.authorization;
    const base = auth.port === undefined ? emu.url : `http://127.0.0.1:${auth.port}`;
    const res = await fetch(`${base}/bigquery/v2/projects/${P}/${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : {} };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bq-iam-'));
    file = join(dir, 'access.json');
    secret = newTokenSecret();
    writeAccess(POLICIES);
    emu = await startBigQueryEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      streamingBufferMs: 0,
      iam: { file, identities: IDENTITIES.map((member) => ({ member, port: 0 })) },
    });
    for (const member of IDENTITIES)
      clients.set(
        member,
        new BigQuery({ projectId: P, apiEndpoint: `http://127.0.0.1:${emu.identityPorts.get(member)}` }),
      );
    const owner = new BigQuery({ projectId: P, apiEndpoint: emu.url });
    const [events] = await owner.createDataset('events');
    await owner.createDataset('hidden');
    for (const t of ['raw', 'secret']) {
      const [table] = await events.createTable(t, { schema: SCHEMA });
      await table.insert([{ id: `${t}-1`, n: 1 }]);
    }
    await owner.query(`CREATE VIEW events.peek AS SELECT id FROM \`${P}.events.secret\``);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets the owner (no token, main port) do everything', async () => {
    const owner = new BigQuery({ projectId: P, apiEndpoint: emu.url });
    const [datasets] = await owner.getDatasets();
    assert.deepEqual(datasets.map((d) => d.id).sort(), ['events', 'hidden']);
    const [rows] = await owner.query('SELECT id FROM events.secret');
    assert.deepEqual(rows, [{ id: 'secret-1' }]);
    assert.equal(emu.identityPorts.size, IDENTITIES.length);
  });

  it('allows a granted token and refuses an ungranted one with BigQuery’s 403 naming permission and resource', async () => {
    const ok = await call('datasets/events/tables/raw', { member: WRITER });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    const rows = await call('datasets/events/tables/raw/data', { member: READER });
    assert.equal(rows.status, 200);
    assert.equal(rows.json['totalRows'], '1');

    const table = await call('datasets/events/tables/raw', { member: NOBODY });
    assertDenied(
      table.status,
      table.json,
      tableDenied('bigquery.tables.get', 'raw'),
      'bigquery.tables.get',
      RAW,
      NOBODY,
    );
    const dataset = await call('datasets/events', { member: READER });
    assertDenied(
      dataset.status,
      dataset.json,
      `Access Denied: Dataset ${P}:events: Permission bigquery.datasets.get denied on dataset ${P}:events (or it may not exist).`,
      'bigquery.datasets.get',
      DATASET,
      READER,
    );
    const create = await call('datasets', { member: WRITER }, 'POST', {
      datasetReference: { projectId: P, datasetId: 'more' },
    });
    assertDenied(
      create.status,
      create.json,
      `Access Denied: Project ${P}: User does not have bigquery.datasets.create permission in project ${P}.`,
      'bigquery.datasets.create',
      `projects/${P}`,
      WRITER,
    );
    // A schema with policy tags needs setCategory too, which Data Editor does not have.
    const tagged = await call('datasets/events/tables', { member: WRITER }, 'POST', {
      tableReference: { projectId: P, datasetId: 'events', tableId: 'tagged' },
      schema: { fields: [{ name: 'email', type: 'STRING', policyTags: { names: ['projects/x/tag'] } }] },
    });
    assert.equal(tagged.status, 403);
    assert.match(tagged.json.error?.message ?? '', /bigquery\.tables\.setCategory denied on dataset/);
  });

  it('treats a connection on an identity port as its member, without a token (a token still wins)', async () => {
    const [meta] = await as(READER).dataset('events').table('raw').getMetadata();
    assert.equal(meta.tableReference.tableId, 'raw');
    await rejectsWith(
      as(NOBODY).dataset('events').table('raw').getMetadata(),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.get denied on table iam-project:events\.raw/,
    );
    const viaPort = await call('datasets/events/tables/raw', {
      member: WRITER,
      port: emu.identityPorts.get(NOBODY) as number,
    });
    assert.equal(viaPort.status, 200);
  });

  it('answers a token that does not verify with 401 UNAUTHENTICATED', async () => {
    for (const authorization of [
      `Bearer ${mintToken(secret, WRITER, -10)}`,
      `Bearer ${mintToken(newTokenSecret(), WRITER)}`,
      'Bearer ya29.not-ours',
    ]) {
      const r = await call('datasets/events/tables/raw', { authorization });
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, {
        error: {
          code: 401,
          message: UNAUTHENTICATED_MESSAGE,
          errors: [{ message: UNAUTHENTICATED_MESSAGE, domain: 'global', reason: 'authError' }],
          status: 'UNAUTHENTICATED',
        },
      });
    }
  });

  it('applies a rewritten access file without a restart', async () => {
    const before = await call('datasets/events/tables/raw/data', { member: LATE });
    assert.equal(before.status, 403);
    writeAccess([
      ...POLICIES,
      { resource: RAW, bindings: [{ role: 'roles/bigquery.dataViewer', members: [LATE] }] },
    ]);
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    await new Promise((r) => setTimeout(r, 250));
    const after = await call('datasets/events/tables/raw/data', { member: LATE });
    assert.equal(after.status, 200, JSON.stringify(after.json));
    writeAccess(POLICIES);
    const latest = new Date(Date.now() + 10_000);
    utimesSync(file, latest, latest);
  });

  it('refuses insertAll without updateData and allows it with', async () => {
    await rejectsWith(
      as(READER)
        .dataset('events')
        .table('raw')
        .insert([{ id: 'r', n: 2 }]),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.updateData denied on table iam-project:events\.raw/,
    );
    await as(WRITER)
      .dataset('events')
      .table('raw')
      .insert([{ id: 'w', n: 2 }]);
    const [rows] = await as(READER).query('SELECT id FROM events.raw ORDER BY id');
    assert.deepEqual(rows, [{ id: 'raw-1' }, { id: 'w' }]);
  });

  it('refuses a query (and its dry run, and a query job) over a table the caller cannot read', async () => {
    const secretRead = /Permission bigquery\.tables\.getData denied on table iam-project:events\.secret/;
    await rejectsWith(as(READER).query('SELECT id FROM events.secret'), 403, 'accessDenied', secretRead);
    await rejectsWith(
      as(READER).createQueryJob({ query: 'SELECT r.id FROM events.raw r JOIN events.secret s USING (id)' }),
      403,
      'accessDenied',
      secretRead,
    );
    await rejectsWith(
      as(READER).createQueryJob({ query: 'SELECT id FROM events.secret', dryRun: true }),
      403,
      'accessDenied',
      secretRead,
    );
    // Each statement of a script, its variables' values too.
    await rejectsWith(
      as(READER).query('DECLARE x INT64 DEFAULT (SELECT MAX(n) FROM events.secret); SELECT x'),
      403,
      'accessDenied',
      secretRead,
    );
    // No jobs at all without bigquery.jobs.create on the project.
    await rejectsWith(
      as(NOBODY).query('SELECT 1 AS x'),
      403,
      'accessDenied',
      /User does not have bigquery\.jobs\.create permission in project iam-project/,
    );
  });

  it('lets a job’s creator read its results; others need bigquery.jobs.get, and list only their own', async () => {
    const [job] = await as(READER).createQueryJob({ query: 'SELECT n FROM events.raw WHERE id = "raw-1"' });
    const [rows] = await job.getQueryResults();
    assert.deepEqual(rows, [{ n: 1 }]);
    const [again] = await as(READER)
      .job(job.id as string)
      .getMetadata();
    assert.equal(again.status.state, 'DONE');

    const other = await call(`jobs/${job.id}?location=US`, { member: WRITER });
    assertDenied(
      other.status,
      other.json,
      `Access Denied: Project ${P}: User does not have bigquery.jobs.get permission in project ${P}.`,
      'bigquery.jobs.get',
      `projects/${P}`,
      WRITER,
    );
    const results = await call(`queries/${job.id}?location=US`, { member: WRITER });
    assert.equal(results.status, 403);

    await as(WRITER).query('SELECT 2 AS x');
    const [mine] = await as(READER).getJobs();
    assert.ok(mine.length > 0);
    assert.ok(mine.every((j) => j.metadata.configuration.query.query.includes('events.')));
    const [all] = await new BigQuery({ projectId: P, apiEndpoint: emu.url }).getJobs();
    assert.ok(all.length > mine.length);
  });

  it('refuses DML into a table the caller may only read', async () => {
    await rejectsWith(
      as(READER).query("INSERT INTO events.raw (id, n) VALUES ('x', 9)"),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.updateData denied on table iam-project:events\.raw/,
    );
    const [, , response] = await as(WRITER).query("UPDATE events.raw SET n = 3 WHERE id = 'w'");
    assert.equal((response as { numDmlAffectedRows?: string }).numDmlAffectedRows, '1');
    // DROP needs tables.delete; CREATE needs tables.create on the dataset.
    await rejectsWith(
      as(READER).query('CREATE TABLE events.made AS SELECT 1 AS x'),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.create denied on dataset iam-project:events/,
    );
    await as(WRITER).query('CREATE TABLE events.made AS SELECT 1 AS x');
    await as(WRITER).query('DROP TABLE events.made');
  });

  it('refuses INFORMATION_SCHEMA to a member without tables.list on the dataset', async () => {
    await rejectsWith(
      as(READER).query('SELECT table_name FROM events.INFORMATION_SCHEMA.TABLES'),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.list denied on dataset iam-project:events/,
    );
    const [rows] = await as(WRITER).query(
      'SELECT table_name FROM events.INFORMATION_SCHEMA.TABLES ORDER BY table_name',
    );
    assert.deepEqual(
      rows.map((r: { table_name: string }) => r.table_name),
      ['peek', 'raw', 'secret'],
    );
  });

  it('lists only the datasets a member may get, and answers testIamPermissions with what it holds', async () => {
    const [forWriter] = await as(WRITER).getDatasets();
    assert.deepEqual(
      forWriter.map((d) => d.id),
      ['events'],
    );
    const [forReader] = await as(READER).getDatasets();
    assert.deepEqual(forReader, []);
    const [held] = await as(READER)
      .dataset('events')
      .table('raw')
      .testIamPermissions(['bigquery.tables.getData', 'bigquery.tables.updateData']);
    assert.deepEqual(held.permissions, ['bigquery.tables.getData']);
  });

  it('checks copy jobs: getData on the source, create and updateData on the destination', async () => {
    await rejectsWith(
      as(READER).dataset('events').table('raw').copy(as(READER).dataset('events').table('copied')),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.create denied on dataset iam-project:events/,
    );
    await as(WRITER).dataset('events').table('raw').copy(as(WRITER).dataset('events').table('copied'));
    const [rows] = await as(WRITER).query('SELECT COUNT(*) AS c FROM events.copied');
    assert.deepEqual(rows, [{ c: 2 }]);
  });

  it('reads through a view what the view reads, unless the view is authorized on that dataset', async () => {
    await rejectsWith(
      as(READER).query('SELECT id FROM events.peek'),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.getData denied on table iam-project:events\.secret/,
    );
    const owner = new BigQuery({ projectId: P, apiEndpoint: emu.url });
    await owner.dataset('events').setMetadata({
      access: [{ view: { projectId: P, datasetId: 'events', tableId: 'peek' } }],
    });
    const [rows] = await as(READER).query('SELECT id FROM events.peek');
    assert.deepEqual(rows, [{ id: 'secret-1' }]);
  });

  it('checks load jobs on their destination (the client sending a minted token for its upload)', async () => {
    const csv = join(dir, 'rows.csv');
    writeFileSync(csv, 'l,5\n');
    // The client uploads a file with its auth client even to an emulator: given a token of ours,
    // it is the caller (`useAuthWithCustomEndpoint` is read by the common layer, not typed).
    const uploader = (member: string) => {
      const authClient = new OAuth2Client();
      authClient.setCredentials({
        access_token: mintToken(secret, member),
        expiry_date: Date.now() + 3_600_000,
      });
      const options = { projectId: P, apiEndpoint: emu.url, useAuthWithCustomEndpoint: true, authClient };
      return new BigQuery(options as ConstructorParameters<typeof BigQuery>[0]);
    };
    await rejectsWith(
      uploader(READER).dataset('events').table('raw').load(csv, { sourceFormat: 'CSV' }),
      403,
      'accessDenied',
      /Permission bigquery\.tables\.updateData denied on table iam-project:events\.raw/,
    );
    const [job] = await uploader(WRITER).dataset('events').table('raw').load(csv, { sourceFormat: 'CSV' });
    assert.equal(job.status?.state, 'DONE');
  });
});

describe('bigquery emulator without --iam', () => {
  it('checks nothing: a call without a token and one with any token both work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bq-noiam-'));
    const emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    try {
      assert.equal(emu.identityPorts.size, 0);
      const url = `${emu.url}/bigquery/v2/projects/${P}/datasets`;
      const plain = await fetch(url, {
        method: 'POST',
        body: JSON.stringify({ datasetReference: { projectId: P, datasetId: 'free' } }),
      });
      assert.equal(plain.status, 200);
      const tokened = await fetch(`${url}/free`, { headers: { authorization: 'Bearer ya29.anything' } });
      assert.equal(tokened.status, 200);
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
