/**
 * Column-level security and data masking in the BigQuery emulator (`--iam`, the access file's
 * `policyTags`): a Fine-Grained Reader of a tag reads raw values, a Masked Reader of one of its
 * data policies reads them through the rule (SHA-256, nullify, default value; the highest rule of
 * BigQuery's hierarchy when several apply), anybody else is refused a query that reads the column
 * (`SELECT *` too), through queries, getQueryResults, views, nested RECORD fields, tabledata.list,
 * DML and extract jobs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { type AccessFile, mintToken, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { BigQuery } from '@google-cloud/bigquery';
import { type MaskingRule, maskExpression, readsColumn, verdictFor } from '../masking.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../server.ts';
import { type StorageStandIn, startStorageStandIn } from './support/storage.ts';

const P = 'mask-project';
const TAXONOMY = `projects/${P}/locations/eu/taxonomies/1`;
/** On text and bytes: SHA-256, or nullify. */
const PII = `${TAXONOMY}/policyTags/11`;
/** On other types: the default masking value, or nullify. */
const OTHER = `${TAXONOMY}/policyTags/12`;
const policy = (id: string) => `projects/${P}/locations/eu/dataPolicies/${id}`;
const sa = (name: string) => `serviceAccount:${name}@${P}.iam.gserviceaccount.com`;
const RAW = sa('raw');
const HASHED = sa('hashed');
const NULLED = sa('nulled');
const BOTH = sa('both');
const NONE = sa('none');

const POLICIES: IamPolicy[] = [
  {
    resource: `projects/${P}`,
    bindings: [{ role: 'roles/bigquery.jobUser', members: [RAW, HASHED, NULLED, BOTH, NONE] }],
  },
  {
    resource: `projects/${P}/datasets/d`,
    bindings: [{ role: 'roles/bigquery.dataEditor', members: [RAW, HASHED, NULLED, BOTH, NONE] }],
  },
  ...[PII, OTHER].map((tag) => ({
    resource: tag,
    bindings: [{ role: 'roles/datacatalog.categoryFineGrainedReader', members: [RAW] }],
  })),
  ...(
    [
      ['pii_sha', [HASHED, BOTH]],
      ['pii_null', [NULLED, BOTH]],
      ['other_default', [HASHED]],
      ['other_null', [NULLED, BOTH]],
    ] as const
  ).map(([id, members]) => ({
    resource: policy(id),
    bindings: [{ role: 'roles/bigquerydatapolicy.maskedReader', members: [...members] }],
  })),
];

const TAGS: AccessFile['policyTags'] = [
  {
    name: PII,
    dataPolicies: [
      { name: policy('pii_sha'), predefinedExpression: 'SHA256' },
      { name: policy('pii_null'), predefinedExpression: 'ALWAYS_NULL' },
    ],
  },
  {
    name: OTHER,
    dataPolicies: [
      { name: policy('other_default'), predefinedExpression: 'DEFAULT_MASKING_VALUE' },
      { name: policy('other_null'), predefinedExpression: 'ALWAYS_NULL' },
    ],
  },
];

const tagged = (name: string, type: string, tag: string, mode?: string) => ({
  name,
  type,
  ...(mode ? { mode } : {}),
  policyTags: { names: [tag] },
});
const SCHEMA = [
  { name: 'id', type: 'STRING' },
  tagged('email', 'STRING', PII),
  tagged('photo', 'BYTES', PII),
  {
    name: 'user',
    type: 'RECORD',
    fields: [{ name: 'uid', type: 'STRING' }, tagged('phone', 'STRING', PII)],
  },
  tagged('aliases', 'STRING', PII, 'REPEATED'),
  tagged('age', 'INT64', OTHER),
  tagged('born', 'DATE', OTHER),
  tagged('score', 'FLOAT64', OTHER),
  tagged('seen', 'TIMESTAMP', OTHER),
];
const ANN = {
  id: 'p1',
  email: 'ann@example.com',
  photo: Buffer.from('ann-photo').toString('base64'),
  user: { uid: 'u1', phone: '+33612345678' },
  aliases: ['annie', 'a.n.'],
  age: 41,
  born: '1985-03-04',
  score: 2.5,
  seen: '2026-11-25T10:00:00Z',
};
/** SHA-256 as BigQuery's masking rule answers a STRING: the digest's base64, a STRING. */
const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('base64');

type Cell = { v: unknown };
type Field = { name: string; fields?: Field[] };
/** A REST row as a plain object (RECORDs as objects, REPEATED as arrays). */
function plain(fields: readonly Field[], row: { f: Cell[] }): Record<string, unknown> {
  const value = (f: Field, v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((e) => value(f, (e as Cell).v));
    if (f.fields && v && typeof v === 'object') return plain(f.fields, v as { f: Cell[] });
    return v;
  };
  return Object.fromEntries(fields.map((f, i) => [f.name, value(f, row.f[i]?.v)]));
}

describe('bigquery emulator: column-level security and data masking', () => {
  let dir: string;
  let file: string;
  let secret: string;
  let emu: BigQueryEmulator;
  let storage: StorageStandIn;

  const call = async (path: string, member: string | undefined, method = 'GET', body?: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (member) headers['authorization'] = `Bearer ${mintToken(secret, member)}`;
    const res = await fetch(`${emu.url}/bigquery/v2/projects/${P}/${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const query = async (member: string | undefined, sql: string) => {
    const r = await call('queries', member, 'POST', { query: sql, useLegacySql: false });
    if (r.status !== 200) return { status: r.status, rows: [], json: r.json };
    const fields = (r.json['schema'] as { fields: Field[] } | undefined)?.fields ?? [];
    const rows = ((r.json['rows'] ?? []) as { f: Cell[] }[]).map((row) => plain(fields, row));
    return { status: r.status, rows, json: r.json };
  };
  const refusal = (json: Record<string, unknown>) => (json['error'] as { message: string }).message;

  before(async () => {
    storage = await startStorageStandIn(P);
    await storage.storage.createBucket('exports');
    dir = mkdtempSync(join(tmpdir(), 'bq-mask-'));
    file = join(dir, 'access.json');
    secret = newTokenSecret();
    const access: AccessFile = { tokenSecret: secret, policies: POLICIES, policyTags: TAGS };
    writeFileSync(file, JSON.stringify(access));
    emu = await startBigQueryEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      streamingBufferMs: 0,
      iam: { file, identities: [] },
    });
    const owner = new BigQuery({ projectId: P, apiEndpoint: emu.url });
    const [d] = await owner.createDataset('d', { location: 'EU' });
    const [people] = await d.createTable('people', { schema: SCHEMA as never });
    await people.insert([ANN, { id: 'p2' }]);
    await owner.query({
      query: `CREATE VIEW d.contacts AS SELECT id, email, user FROM \`${P}.d.people\``,
      location: 'EU',
    });
  });
  after(async () => {
    await emu?.close();
    await storage?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a Fine-Grained Reader, and the owner, read raw values', async () => {
    for (const member of [RAW, undefined]) {
      const r = await query(member, `SELECT * FROM d.people WHERE id = 'p1'`);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(r.rows[0]?.['email'], ANN.email);
      assert.deepEqual(r.rows[0]?.['user'], ANN.user);
      assert.equal(r.rows[0]?.['photo'], ANN.photo);
      assert.equal(r.rows[0]?.['age'], '41');
    }
  });

  it('a Masked Reader of the SHA-256 rule reads the digests (STRING as base64, BYTES as bytes), nested and repeated fields too', async () => {
    const r = await query(HASHED, `SELECT * FROM d.people ORDER BY id`);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const [ann, empty] = r.rows;
    assert.equal(ann?.['id'], 'p1');
    assert.equal(ann?.['email'], sha(ANN.email));
    assert.equal(ann?.['photo'], sha(Buffer.from('ann-photo')));
    assert.deepEqual(ann?.['user'], { uid: 'u1', phone: sha(ANN.user.phone) });
    assert.deepEqual(ann?.['aliases'], ANN.aliases.map(sha));
    // The other tag's rule for this caller: the default masking value of each type.
    assert.equal(ann?.['age'], '0');
    assert.equal(ann?.['born'], '1970-01-01');
    assert.equal(Number(ann?.['score']), 0);
    assert.equal(Number(ann?.['seen']), 0);
    // NULL stays NULL.
    assert.equal(empty?.['email'], null);
    assert.equal(empty?.['age'], null);
    const schema = (r.json['schema'] as { fields: { name: string; type: string }[] }).fields;
    assert.equal(schema.find((f) => f.name === 'email')?.type, 'STRING');
    assert.equal(schema.find((f) => f.name === 'photo')?.type, 'BYTES');
  });

  it('masking comes first: a Masked Reader filters and joins on the digest, not the value', async () => {
    const byValue = await query(HASHED, `SELECT id FROM d.people WHERE email = '${ANN.email}'`);
    assert.deepEqual(byValue.rows, []);
    const byDigest = await query(
      HASHED,
      `SELECT id FROM d.people WHERE email = TO_BASE64(SHA256('${ANN.email}'))`,
    );
    assert.deepEqual(byDigest.rows, [{ id: 'p1' }]);
  });

  it('a Masked Reader of the nullify rule reads NULL; one of both rules gets SHA-256 (the hierarchy)', async () => {
    const nulled = await query(
      NULLED,
      `SELECT email, photo, user.phone AS phone, age, born FROM d.people WHERE id = 'p1'`,
    );
    assert.deepEqual(nulled.rows, [{ email: null, photo: null, phone: null, age: null, born: null }]);
    const both = await query(BOTH, `SELECT email, age FROM d.people WHERE id = 'p1'`);
    assert.deepEqual(both.rows, [{ email: sha(ANN.email), age: null }]);
  });

  it('anybody else is refused a query that reads a tagged column, SELECT * included, with BigQuery’s message', async () => {
    const star = await query(NONE, 'SELECT * FROM d.people');
    assert.equal(star.status, 403);
    assert.equal(
      refusal(star.json),
      `Access Denied: BigQuery BigQuery: User does not have permission to access policy tag ${PII} on columns ${P}.d.people.email, ${P}.d.people.photo, ${P}.d.people.user.phone, ${P}.d.people.aliases.`,
    );
    const nested = await query(NONE, 'SELECT user FROM d.people');
    assert.equal(nested.status, 403);
    assert.match(refusal(nested.json), /on column mask-project\.d\.people\.user\.phone\.$/);
    const other = await query(NONE, 'SELECT age FROM d.people');
    assert.match(
      refusal(other.json),
      new RegExp(`policy tag ${OTHER} on column ${P}\\.d\\.people\\.age\\.$`),
    );
    // Columns it may read, a nested one included, and SELECT * EXCEPT the others, go through.
    const allowed = await query(NONE, `SELECT id, user.uid AS uid FROM d.people WHERE id = 'p1'`);
    assert.deepEqual(allowed.rows, [{ id: 'p1', uid: 'u1' }]);
    const except = await query(
      NONE,
      `SELECT * EXCEPT (email, photo, user, aliases, age, born, score, seen) FROM d.people ORDER BY id`,
    );
    assert.deepEqual(except.rows, [{ id: 'p1' }, { id: 'p2' }]);
    const count = await query(NONE, 'SELECT COUNT(*) AS n FROM d.people');
    assert.deepEqual(count.rows, [{ n: '2' }]);
  });

  it('a view reads its tables’ columns as its reader may: masked, raw or refused', async () => {
    assert.deepEqual(
      (await query(HASHED, `SELECT email, user.phone AS phone FROM d.contacts WHERE id = 'p1'`)).rows,
      [{ email: sha(ANN.email), phone: sha(ANN.user.phone) }],
    );
    assert.deepEqual((await query(RAW, `SELECT email FROM d.contacts WHERE id = 'p1'`)).rows, [
      { email: ANN.email },
    ]);
    assert.equal((await query(NONE, 'SELECT * FROM d.contacts')).status, 403);
    assert.deepEqual((await query(NONE, `SELECT id FROM d.contacts ORDER BY id`)).rows, [
      { id: 'p1' },
      { id: 'p2' },
    ]);
  });

  it('getQueryResults answers the masked rows of the job', async () => {
    const r = await call('jobs', HASHED, 'POST', {
      configuration: { query: { query: `SELECT email FROM d.people WHERE id = 'p1'`, useLegacySql: false } },
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const { jobId, location } = r.json['jobReference'] as { jobId: string; location: string };
    const results = await call(`queries/${jobId}?location=${location}`, HASHED);
    assert.equal(results.status, 200, JSON.stringify(results.json));
    assert.deepEqual((results.json['rows'] as { f: Cell[] }[])[0]?.f[0]?.v, sha(ANN.email));
  });

  it('tabledata.list needs Fine-Grained Reader on every tagged column it returns (a Masked Reader too is refused)', async () => {
    assert.equal((await call('datasets/d/tables/people/data', RAW)).status, 200);
    const masked = await call('datasets/d/tables/people/data', HASHED);
    assert.equal(masked.status, 403);
    assert.match(refusal(masked.json), /does not have permission to access policy tag .* on columns/);
    const some = await call('datasets/d/tables/people/data?selectedFields=id', NONE);
    assert.equal(some.status, 200, JSON.stringify(some.json));
  });

  it('a DML statement reading a tagged column needs Fine-Grained Reader; one that does not, goes through', async () => {
    const masked = await query(HASHED, `DELETE FROM d.people WHERE email = 'nobody@example.com'`);
    assert.equal(masked.status, 403);
    assert.equal(
      refusal(masked.json),
      'Access Denied: Requires fineGrainedGet permission on the read columns to execute the DML statements',
    );
    assert.equal((await query(RAW, `DELETE FROM d.people WHERE email = 'nobody@example.com'`)).status, 200);
    assert.equal((await query(HASHED, `DELETE FROM d.people WHERE id = 'nobody'`)).status, 200);
  });

  it('an extract job writes what its caller reads: masked for a Masked Reader, refused to anybody else', async () => {
    const extract = (member: string, uri: string) =>
      call('jobs', member, 'POST', {
        configuration: {
          extract: {
            sourceTable: { projectId: P, datasetId: 'd', tableId: 'people' },
            destinationUris: [uri],
            destinationFormat: 'NEWLINE_DELIMITED_JSON',
          },
        },
      });
    const done = await extract(HASHED, 'gs://exports/hashed.json');
    assert.equal(done.status, 200, JSON.stringify(done.json));
    assert.equal((done.json['status'] as { errorResult?: unknown }).errorResult, undefined);
    const [file] = await storage.storage.bucket('exports').file('hashed.json').download();
    const ann = file
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r['id'] === 'p1');
    assert.equal(ann?.['email'], sha(ANN.email));
    const refused = await extract(NONE, 'gs://exports/none.json');
    const error = (refused.json['status'] as { errorResult?: { reason: string; message: string } })
      .errorResult;
    assert.equal(error?.reason, 'accessDenied', JSON.stringify(refused.json));
    assert.match(error?.message ?? '', /does not have permission to access policy tag/);
  });

  it('an INSERT … SELECT by a Masked Reader copies masked values', async () => {
    assert.equal((await query(undefined, 'CREATE TABLE d.copied (id STRING, email STRING)')).status, 200);
    const ins = await query(HASHED, `INSERT INTO d.copied SELECT id, email FROM d.people WHERE id = 'p1'`);
    assert.equal(ins.status, 200, JSON.stringify(ins.json));
    assert.deepEqual((await query(undefined, 'SELECT email FROM d.copied')).rows, [
      { email: sha(ANN.email) },
    ]);
  });
});

describe('bigquery emulator masking rules (pure)', () => {
  const access = (principal: string, held: readonly string[]) =>
    ({
      caller: { principal },
      enforcement: {
        policyTags: () => TAGS,
        check: (_c: unknown, req: { permission: string; resource: string }) =>
          held.includes(`${req.permission} ${req.resource}`) ? undefined : { principal, ...req },
      },
    }) as never;

  it('Fine-Grained Reader wins over Masked Reader; the hierarchy orders rules; neither is denied', () => {
    assert.deepEqual(
      verdictFor(
        access(RAW, [
          `datacatalog.categories.fineGrainedGet ${PII}`,
          `bigquery.dataPolicies.maskedGet ${policy('pii_sha')}`,
        ]),
        PII,
      ),
      { kind: 'raw' },
    );
    assert.deepEqual(
      verdictFor(
        access(BOTH, [
          `bigquery.dataPolicies.maskedGet ${policy('pii_null')}`,
          `bigquery.dataPolicies.maskedGet ${policy('pii_sha')}`,
        ]),
        PII,
      ),
      { kind: 'masked', rule: 'SHA256' },
    );
    assert.deepEqual(verdictFor(access(NONE, []), PII), { kind: 'denied' });
    // A tag the access file does not list is not under column-level security.
    assert.deepEqual(verdictFor(access(NONE, []), `${TAXONOMY}/policyTags/99`), { kind: 'raw' });
  });

  it('SHA-256 applies to STRING and BYTES only; nullify and default to any type', () => {
    assert.equal(maskExpression('SHA256', { name: 'n', type: 'INT64' }, 'x'), undefined);
    assert.ok(maskExpression('SHA256', { name: 's', type: 'STRING' }, 'x'));
    assert.ok(maskExpression('ALWAYS_NULL', { name: 'n', type: 'INT64' }, 'x'));
    assert.ok(maskExpression('DEFAULT_MASKING_VALUE', { name: 'j', type: 'JSON' }, 'x'));
    assert.equal(maskExpression('DATE_YEAR_MASK', { name: 's', type: 'STRING' }, 'x'), undefined);
  });

  it('each rule gives what Google documents for it (evaluated in DuckDB)', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    await conn.run("SET TimeZone = 'UTC'"); // as the emulator's store runs
    const run = async (rule: MaskingRule, type: string, literal: string) => {
      const expr = maskExpression(rule, { name: 'c', type }, literal);
      assert.ok(expr, `${rule} on ${type}`);
      const r = await conn.runAndReadAll(`SELECT CAST(${expr} AS VARCHAR)`);
      return r.getRows()[0]?.[0];
    };
    const hashed = 'jQHDyQuj7vJcveEe59ygb3Zcvj0B5FJINBzgM6Bypgw=';
    const cases: [MaskingRule, string, string, string | null][] = [
      ['SHA256', 'STRING', "'randomtext'", hashed],
      ['EMAIL_MASK', 'STRING', "'abc123@gmail.com'", 'XXXXX@gmail.com'],
      ['EMAIL_MASK', 'STRING', "'randomtext'", hashed],
      ['LAST_FOUR_CHARACTERS', 'STRING', "'4111111111111234'", 'XXXXX1234'],
      ['FIRST_FOUR_CHARACTERS', 'STRING', "'4111111111111234'", '4111XXXXX'],
      ['LAST_FOUR_CHARACTERS', 'STRING', "'abcd'", sha('abcd')],
      ['DATE_YEAR_MASK', 'DATE', "DATE '2030-07-17'", '2030-01-01'],
      ['DATE_YEAR_MASK', 'TIMESTAMP', "TIMESTAMPTZ '2030-07-17 01:45:06+00'", '2030-01-01 00:00:00+00'],
      ['DEFAULT_MASKING_VALUE', 'STRING', "'x'", ''],
      ['DEFAULT_MASKING_VALUE', 'BOOLEAN', 'TRUE', 'false'],
      ['DEFAULT_MASKING_VALUE', 'TIME', "TIME '10:11:12'", '00:00:00'],
      ['DEFAULT_MASKING_VALUE', 'GEOGRAPHY', "'POINT(1 2)'", 'POINT(0 0)'],
      ['ALWAYS_NULL', 'STRING', "'x'", null],
      ['SHA256', 'STRING', 'NULL', null],
    ];
    for (const [rule, type, literal, want] of cases)
      assert.equal(await run(rule, type, literal), want, `${rule} ${type} ${literal}`);
    conn.closeSync();
  });

  it('reads a column by its name, a RECORD above it, or a * that is not EXCEPTing it', () => {
    assert.ok(readsColumn('SELECT * FROM t', ['email']));
    assert.ok(readsColumn('SELECT t.* FROM t', ['email']));
    assert.ok(!readsColumn('SELECT * EXCEPT (email) FROM t', ['email']));
    assert.ok(!readsColumn('SELECT COUNT(*) FROM t', ['email']));
    assert.ok(!readsColumn('SELECT a * 2 FROM t', ['email']));
    assert.ok(readsColumn('SELECT TO_JSON_STRING(user) FROM t', ['user', 'phone']));
    assert.ok(readsColumn('SELECT t.user.phone FROM t', ['user', 'phone']));
    assert.ok(!readsColumn('SELECT user.uid FROM t', ['user', 'phone']));
    assert.ok(!readsColumn("SELECT 'email' FROM t", ['email']));
  });
});
