/**
 * The Firestore emulator's REST surface, by raw HTTP as Google documents it: databases, typed
 * values, createDocument's ALREADY_EXISTS, patch and delete preconditions (exists, updateTime),
 * masks, commit's atomicity, batchGet, times strictly increasing, TTL policies and the sweep.
 */
import assert from 'node:assert/strict';
import { call, createDatabase, type Running, start } from './support/harness.ts';

const DB = '/v1/projects/p/databases/claims-test';
const DOCS = `${DB}/documents`;
const NAME = 'projects/p/databases/claims-test/documents';

describe('firestore emulator: REST documents', () => {
  let run: Running;
  let url: string;
  before(async () => {
    run = await start();
    url = run.emulator.url;
    const op = await createDatabase(url, 'claims-test');
    assert.equal(op.status, 200, JSON.stringify(op.json));
  });
  after(() => run.stop());

  it('creates a database as a finished operation, refuses a bad id and a second create', async () => {
    const op = (await createDatabase(url, 'other-db')).json as {
      done: boolean;
      response: Record<string, unknown>;
    };
    assert.equal(op.done, true);
    assert.equal(op.response['@type'], 'type.googleapis.com/google.firestore.admin.v1.Database');
    assert.equal(op.response.name, 'projects/p/databases/other-db');
    assert.equal(op.response.locationId, 'europe-west1');
    const got = await call(url, 'GET', '/v1/projects/p/databases/other-db');
    assert.equal(got.json.type, 'FIRESTORE_NATIVE');
    for (const bad of ['abc', 'Upper-case', '1starts-with-digit', 'ends-with-hyphen-', 'x'.repeat(64)]) {
      const r = await createDatabase(url, bad);
      assert.equal(r.status, 400, bad);
      assert.equal(r.json.error?.status, 'INVALID_ARGUMENT');
    }
    const again = await createDatabase(url, 'other-db');
    assert.equal(again.status, 409);
    assert.equal(again.json.error?.status, 'ALREADY_EXISTS');
    const missing = await call(url, 'GET', '/v1/projects/p/databases/nope-db/documents/c/d');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error?.status, 'NOT_FOUND');
  });

  it('round-trips every value type, normalized', async () => {
    const fields = {
      s: { stringValue: 'héllo' },
      i: { integerValue: '-9223372036854775808' },
      n: { integerValue: 42 },
      d: { doubleValue: 1.5 },
      b: { booleanValue: false },
      t: { timestampValue: '2026-11-25T10:00:00.123456789+01:00' },
      z: { nullValue: null },
      by: { bytesValue: 'AQID' },
      a: { arrayValue: { values: [{ stringValue: 'x' }, { integerValue: '1' }] } },
      m: { mapValue: { fields: { inner: { booleanValue: true } } } },
    };
    const r = await call(url, 'POST', `${DOCS}/types?documentId=all`, { fields });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const got = (await call(url, 'GET', `${DOCS}/types/all`)).json as { fields: Record<string, unknown> };
    assert.deepEqual(got.fields.n, { integerValue: '42' });
    assert.deepEqual(got.fields.t, { timestampValue: '2026-11-25T09:00:00.123456Z' });
    assert.deepEqual(got.fields.i, fields.i);
    assert.deepEqual(got.fields.m, fields.m);
    assert.deepEqual(got.fields.a, fields.a);
    for (const bad of [
      { integerValue: '9223372036854775808' },
      { stringValue: 1 },
      { stringValue: 'a', booleanValue: true },
      {},
    ])
      assert.equal(
        (await call(url, 'POST', `${DOCS}/types?documentId=bad`, { fields: { x: bad } })).status,
        400,
      );
  });

  it('createDocument on an existing id is 409 ALREADY_EXISTS and changes nothing', async () => {
    const first = await call(url, 'POST', `${DOCS}/sends?documentId=one`, {
      fields: { v: { integerValue: '1' } },
    });
    assert.equal(first.status, 200);
    assert.equal(first.json.name, `${NAME}/sends/one`);
    assert.match(first.json.updateTime as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6})?Z$/);
    assert.equal(first.json.createTime, first.json.updateTime);
    const second = await call(url, 'POST', `${DOCS}/sends?documentId=one`, {
      fields: { v: { integerValue: '2' } },
    });
    assert.equal(second.status, 409);
    assert.equal(second.json.error?.status, 'ALREADY_EXISTS');
    assert.equal(second.json.error?.code, 409);
    const got = await call(url, 'GET', `${DOCS}/sends/one`);
    assert.deepEqual((got.json.fields as Record<string, unknown>).v, { integerValue: '1' });
    const auto = await call(url, 'POST', `${DOCS}/sends`, {});
    assert.match(auto.json.name as string, /\/sends\/[A-Za-z0-9]{20}$/);
  });

  it('a missing document is 404 NOT_FOUND', async () => {
    const r = await call(url, 'GET', `${DOCS}/sends/absent`);
    assert.equal(r.status, 404);
    assert.equal(r.json.error?.status, 'NOT_FOUND');
  });

  it('patch at an updateTime: applies once, then FAILED_PRECONDITION; times strictly increase', async () => {
    const created = await call(url, 'POST', `${DOCS}/sends?documentId=cas`, {
      fields: { n: { integerValue: '0' } },
    });
    let version = created.json.updateTime as string;
    const seen = [version];
    for (let i = 1; i <= 5; i++) {
      const q = `currentDocument.updateTime=${encodeURIComponent(version)}`;
      const r = await call(url, 'PATCH', `${DOCS}/sends/cas?${q}`, {
        fields: { n: { integerValue: String(i) } },
      });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(r.json.createTime, created.json.createTime);
      const stale = await call(url, 'PATCH', `${DOCS}/sends/cas?${q}`, {
        fields: { n: { integerValue: '99' } },
      });
      assert.equal(stale.status, 400);
      assert.equal(stale.json.error?.status, 'FAILED_PRECONDITION');
      version = r.json.updateTime as string;
      seen.push(version);
    }
    const micros = seen.map((t) => Date.parse(t) * 1000 + Number((/\.\d{3}(\d{3})Z$/.exec(t) ?? [])[1] ?? 0));
    for (let i = 1; i < micros.length; i++)
      assert.ok((micros[i] as number) > (micros[i - 1] as number), seen.join());
    const gone = await call(
      url,
      'PATCH',
      `${DOCS}/sends/none?currentDocument.updateTime=${encodeURIComponent(version)}`,
      {
        fields: {},
      },
    );
    assert.equal(gone.status, 404);
    const nanos = await call(
      url,
      'PATCH',
      `${DOCS}/sends/cas?currentDocument.updateTime=2026-01-01T00:00:00.000000001Z`,
      {
        fields: {},
      },
    );
    assert.equal(nanos.status, 400);
    assert.equal(nanos.json.error?.status, 'INVALID_ARGUMENT');
  });

  it('patch with exists preconditions and an update mask', async () => {
    const missing = await call(url, 'PATCH', `${DOCS}/m/x?currentDocument.exists=true`, { fields: {} });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error?.status, 'NOT_FOUND');
    const upsert = await call(url, 'PATCH', `${DOCS}/m/x`, {
      fields: {
        a: { integerValue: '1' },
        b: { mapValue: { fields: { c: { integerValue: '2' }, d: { integerValue: '3' } } } },
      },
    });
    assert.equal(upsert.status, 200);
    const exists = await call(url, 'PATCH', `${DOCS}/m/x?currentDocument.exists=false`, { fields: {} });
    assert.equal(exists.status, 409);
    assert.equal(exists.json.error?.status, 'ALREADY_EXISTS');
    const masked = await call(url, 'PATCH', `${DOCS}/m/x?updateMask.fieldPaths=b.c&updateMask.fieldPaths=e`, {
      fields: { b: { mapValue: { fields: { c: { stringValue: 'new' } } } }, a: { integerValue: '100' } },
    });
    assert.deepEqual(masked.json.fields, {
      a: { integerValue: '1' },
      b: { mapValue: { fields: { c: { stringValue: 'new' }, d: { integerValue: '3' } } } },
    });
    const same = await call(url, 'PATCH', `${DOCS}/m/x?updateMask.fieldPaths=a`, {
      fields: { a: { integerValue: '1' } },
    });
    assert.equal(
      same.json.updateTime,
      masked.json.updateTime,
      'a write that changes nothing keeps the update time',
    );
  });

  it('delete: idempotent without a precondition, refused at a stale updateTime', async () => {
    const c = await call(url, 'POST', `${DOCS}/del?documentId=a`, { fields: {} });
    await call(url, 'PATCH', `${DOCS}/del/a`, { fields: { x: { booleanValue: true } } });
    const stale = await call(
      url,
      'DELETE',
      `${DOCS}/del/a?currentDocument.updateTime=${encodeURIComponent(c.json.updateTime as string)}`,
    );
    assert.equal(stale.status, 400);
    assert.equal(stale.json.error?.status, 'FAILED_PRECONDITION');
    const now = (await call(url, 'GET', `${DOCS}/del/a`)).json.updateTime as string;
    const ok = await call(
      url,
      'DELETE',
      `${DOCS}/del/a?currentDocument.updateTime=${encodeURIComponent(now)}`,
    );
    assert.equal(ok.status, 200);
    assert.equal((await call(url, 'GET', `${DOCS}/del/a`)).status, 404);
    assert.equal((await call(url, 'DELETE', `${DOCS}/del/a`)).status, 200);
    assert.equal((await call(url, 'DELETE', `${DOCS}/del/a?currentDocument.exists=true`)).status, 404);
  });

  it('commit is atomic: one failed precondition writes nothing; batchGet reports found and missing', async () => {
    const writes = (ok: boolean) => [
      { update: { name: `${NAME}/batch/one`, fields: { v: { integerValue: '1' } } } },
      { update: { name: `${NAME}/batch/two`, fields: {} }, currentDocument: { exists: ok } },
    ];
    const failed = await call(url, 'POST', `${DB}/documents:commit`, { writes: writes(true) });
    assert.equal(failed.status, 404);
    const got = await call(url, 'POST', `${DB}/documents:batchGet`, { documents: [`${NAME}/batch/one`] });
    assert.deepEqual(Object.keys((got.json as unknown as object[])[0] as object).sort(), [
      'missing',
      'readTime',
    ]);
    const done = await call(url, 'POST', `${DB}/documents:commit`, {
      writes: [...writes(false), { delete: `${NAME}/batch/gone` }],
    });
    assert.equal(done.status, 200, JSON.stringify(done.json));
    const results = done.json.writeResults as { updateTime?: string }[];
    assert.equal(results.length, 3);
    assert.equal(results[0]?.updateTime, done.json.commitTime);
    assert.equal(results[1]?.updateTime, done.json.commitTime);
    assert.deepEqual(results[2], {});
    const both = (
      await call(url, 'POST', `${DB}/documents:batchGet`, {
        documents: [`${NAME}/batch/one`, `${NAME}/batch/nope`],
      })
    ).json as unknown as { found?: { name: string }; missing?: string }[];
    assert.equal(both[0]?.found?.name, `${NAME}/batch/one`);
    assert.equal(both[1]?.missing, `${NAME}/batch/nope`);
  });

  it('refuses what it does not serve with UNIMPLEMENTED, never a silent success', async () => {
    const transform = await call(url, 'POST', `${DB}/documents:commit`, {
      writes: [
        {
          update: { name: `${NAME}/t/x`, fields: {} },
          updateTransforms: [{ fieldPath: 'a', setToServerValue: 'REQUEST_TIME' }],
        },
      ],
    });
    assert.equal(transform.status, 501);
    assert.equal(transform.json.error?.status, 'UNIMPLEMENTED');
    assert.equal((await call(url, 'GET', `${DOCS}/t`)).status, 501);
  });

  it('TTL: the field policy is set by fields.patch; expired documents stay readable until a sweep', async () => {
    const field = `${DB}/collectionGroups/ttl/fields/expire_at`;
    const op = await call(url, 'PATCH', `${field}?updateMask=ttlConfig`, { ttlConfig: {} });
    assert.equal(op.status, 200, JSON.stringify(op.json));
    assert.deepEqual((op.json.response as { ttlConfig: unknown }).ttlConfig, { state: 'ACTIVE' });
    assert.deepEqual((await call(url, 'GET', field)).json.ttlConfig, { state: 'ACTIVE' });
    const past = new Date(Date.now() - 1000).toISOString();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await call(url, 'POST', `${DOCS}/ttl?documentId=old`, {
      fields: { expire_at: { timestampValue: past } },
    });
    await call(url, 'POST', `${DOCS}/ttl?documentId=new`, {
      fields: { expire_at: { timestampValue: future } },
    });
    await call(url, 'POST', `${DOCS}/other?documentId=old`, {
      fields: { expire_at: { timestampValue: past } },
    });
    assert.equal((await call(url, 'GET', `${DOCS}/ttl/old`)).status, 200, 'expired, not yet swept');
    const swept = await run.emulator.sweep();
    assert.deepEqual(swept, [`${NAME}/ttl/old`]);
    assert.equal((await call(url, 'GET', `${DOCS}/ttl/old`)).status, 404);
    assert.equal((await call(url, 'GET', `${DOCS}/ttl/new`)).status, 200);
    assert.equal((await call(url, 'GET', `${DOCS}/other/old`)).status, 200, 'no policy on that group');
    const second = await call(url, 'PATCH', `${DB}/collectionGroups/ttl/fields/other?updateMask=ttlConfig`, {
      ttlConfig: {},
    });
    assert.equal(second.json.error?.status, 'FAILED_PRECONDITION');
  });

  it('N concurrent createDocument calls for one id: exactly one succeeds', async () => {
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call(url, 'POST', `${DOCS}/race?documentId=one`, { fields: { who: { integerValue: String(i) } } }),
      ),
    );
    assert.equal(answers.filter((a) => a.status === 200).length, 1);
    assert.equal(answers.filter((a) => a.status === 409).length, 23);
  });
});
