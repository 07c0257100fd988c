/**
 * The Secret Manager emulator's REST surface, as `adapters/secrets.ts` and
 * `gateway/token-store.ts` call it: secrets, versions, `latest`, payload limits and checksums,
 * labels, version states, and Google's error shapes and codes.
 */
import assert from 'node:assert/strict';
import { crc32c } from '../names.ts';
import { b64, NUMBER, PROJECT, type Running, rest, seed, start } from './support/harness.ts';

const P = `projects/${PROJECT}`;

describe('secret manager emulator: REST', () => {
  let run: Running;
  let base: string;
  before(async () => {
    run = await start();
    base = run.emulator.url;
  });
  after(() => run.stop());

  it('creates a secret, named with the project number, and refuses a second create with 409', async () => {
    const r = await rest(base, 'POST', `${P}/secrets?secretId=api-key`, {
      replication: { automatic: {} },
      labels: { team: 'data' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.name, `projects/${NUMBER}/secrets/api-key`);
    assert.deepEqual(r.json.replication, { automatic: {} });
    assert.deepEqual(r.json.labels, { team: 'data' });
    assert.match(r.json.createTime, /^\d{4}-\d\d-\d\dT/);
    const again = await rest(base, 'POST', `${P}/secrets?secretId=api-key`, {
      replication: { automatic: {} },
    });
    assert.equal(again.status, 409);
    assert.equal(again.json.error.status, 'ALREADY_EXISTS');
    assert.equal(again.json.error.code, 409);
    // By number, the same secret.
    assert.equal((await rest(base, 'GET', `projects/${NUMBER}/secrets/api-key`)).json.name, r.json.name);
  });

  it('refuses bad secret ids, a missing replication and bad labels with 400 INVALID_ARGUMENT', async () => {
    for (const id of ['has.dot', 'x'.repeat(256), 'sp%20ace']) {
      const r = await rest(base, 'POST', `${P}/secrets?secretId=${id}`, { replication: { automatic: {} } });
      assert.equal(r.status, 400, id);
      assert.equal(r.json.error.status, 'INVALID_ARGUMENT', id);
    }
    const noId = await rest(base, 'POST', `${P}/secrets`, { replication: { automatic: {} } });
    assert.equal(noId.status, 400);
    const noReplication = await rest(base, 'POST', `${P}/secrets?secretId=norep`, {});
    assert.equal(noReplication.status, 400);
    const badLabel = await rest(base, 'POST', `${P}/secrets?secretId=badlabel`, {
      replication: { automatic: {} },
      labels: { Upper: 'x' },
    });
    assert.equal(badLabel.status, 400);
    assert.equal((await rest(base, 'POST', `${P}/secrets?secretId=x`, '{not json')).status, 400);
  });

  it('adds versions, accesses a number and latest, and answers dataCrc32c', async () => {
    await seed(base, 'rotating');
    const one = await rest(base, 'POST', `${P}/secrets/rotating:addVersion`, {
      payload: { data: b64('first') },
    });
    assert.equal(one.status, 200);
    assert.equal(one.json.name, `projects/${NUMBER}/secrets/rotating/versions/1`);
    assert.equal(one.json.state, 'ENABLED');
    assert.equal(one.json.clientSpecifiedPayloadChecksum, false);
    const crc = crc32c(Buffer.from('second'));
    const two = await rest(base, 'POST', `${P}/secrets/rotating:addVersion`, {
      payload: { data: b64('second'), dataCrc32c: String(crc) },
    });
    assert.equal(two.json.clientSpecifiedPayloadChecksum, true);
    const latest = await rest(base, 'GET', `${P}/secrets/rotating/versions/latest:access`);
    assert.equal(latest.status, 200);
    assert.equal(latest.json.name, `projects/${NUMBER}/secrets/rotating/versions/2`);
    assert.equal(Buffer.from(latest.json.payload.data, 'base64').toString(), 'second');
    assert.equal(latest.json.payload.dataCrc32c, String(crc));
    const first = await rest(base, 'GET', `${P}/secrets/rotating/versions/1:access`);
    assert.equal(Buffer.from(first.json.payload.data, 'base64').toString(), 'first');
    const list = await rest(base, 'GET', `${P}/secrets/rotating/versions`);
    assert.deepEqual(
      list.json.versions.map((v: { name: string }) => v.name.split('/').at(-1)),
      ['2', '1'],
    );
    assert.equal(list.json.totalSize, 2);
  });

  it('a checksum that does not match, a payload over 64 KiB: 400 INVALID_ARGUMENT, no version', async () => {
    await seed(base, 'limits');
    const wrong = await rest(base, 'POST', `${P}/secrets/limits:addVersion`, {
      payload: { data: b64('abc'), dataCrc32c: '1' },
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json.error.status, 'INVALID_ARGUMENT');
    const exactly = Buffer.alloc(65_536, 1).toString('base64');
    assert.equal(
      (await rest(base, 'POST', `${P}/secrets/limits:addVersion`, { payload: { data: exactly } })).status,
      200,
    );
    const over = await rest(base, 'POST', `${P}/secrets/limits:addVersion`, {
      payload: { data: Buffer.alloc(65_537, 1).toString('base64') },
    });
    assert.equal(over.status, 400);
    assert.match(over.json.error.message, /64KiB/);
    const list = await rest(base, 'GET', `${P}/secrets/limits/versions`);
    assert.equal(list.json.totalSize, 1);
  });

  it('404 NOT_FOUND: an unknown secret, a secret with no versions, an unknown version', async () => {
    const none = await rest(base, 'GET', `${P}/secrets/nothing-here/versions/latest:access`);
    assert.equal(none.status, 404);
    assert.equal(none.json.error.status, 'NOT_FOUND');
    await seed(base, 'empty');
    const empty = await rest(base, 'GET', `${P}/secrets/empty/versions/latest:access`);
    assert.equal(empty.status, 404);
    assert.match(empty.json.error.message, /not found or has no versions/);
    const v9 = await rest(base, 'GET', `${P}/secrets/empty/versions/9:access`);
    assert.equal(v9.status, 404);
    assert.equal((await rest(base, 'GET', `${P}/secrets/empty/versions/abc:access`)).status, 400);
  });

  it('disabled and destroyed versions: FAILED_PRECONDITION on access; destroyed is final', async () => {
    await seed(base, 'states', 'v1');
    const disabled = await rest(base, 'POST', `${P}/secrets/states/versions/1:disable`, {});
    assert.equal(disabled.json.state, 'DISABLED');
    const refused = await rest(base, 'GET', `${P}/secrets/states/versions/latest:access`);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.status, 'FAILED_PRECONDITION');
    assert.match(refused.json.error.message, /DISABLED/);
    assert.equal(
      (await rest(base, 'POST', `${P}/secrets/states/versions/1:enable`, {})).json.state,
      'ENABLED',
    );
    assert.equal((await rest(base, 'GET', `${P}/secrets/states/versions/1:access`)).status, 200);
    const destroyed = await rest(base, 'POST', `${P}/secrets/states/versions/1:destroy`, {});
    assert.equal(destroyed.json.state, 'DESTROYED');
    assert.ok(destroyed.json.destroyTime);
    const gone = await rest(base, 'GET', `${P}/secrets/states/versions/1:access`);
    assert.equal(gone.json.error.status, 'FAILED_PRECONDITION');
    assert.match(gone.json.error.message, /DESTROYED/);
    assert.equal((await rest(base, 'POST', `${P}/secrets/states/versions/1:enable`, {})).status, 400);
    const stale = await rest(base, 'POST', `${P}/secrets/states:addVersion`, {
      payload: { data: b64('v2') },
    });
    const v2 = stale.json.etag as string;
    const abort = await rest(base, 'POST', `${P}/secrets/states/versions/2:disable`, { etag: `${v2}x` });
    assert.equal(abort.status, 409);
    assert.equal(abort.json.error.status, 'ABORTED');
  });

  it('labels: patched with updateMask, listed by a label filter; delete with an etag', async () => {
    await seed(base, 'labelled-a', undefined, { env: 'dev' });
    await seed(base, 'labelled-b', undefined, { env: 'prod' });
    const patched = await rest(base, 'PATCH', `${P}/secrets/labelled-b?updateMask=labels`, {
      labels: { env: 'dev', owner: 'ops' },
    });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.json.labels, { env: 'dev', owner: 'ops' });
    const dev = await rest(base, 'GET', `${P}/secrets?filter=${encodeURIComponent('labels.env=dev')}`);
    assert.deepEqual(
      dev.json.secrets.map((s: { name: string }) => s.name.split('/').at(-1)),
      ['labelled-a', 'labelled-b'],
    );
    const paged = await rest(base, 'GET', `${P}/secrets?pageSize=1&filter=labels.env%3Ddev`);
    assert.equal(paged.json.secrets.length, 1);
    const next = await rest(
      base,
      'GET',
      `${P}/secrets?pageSize=1&filter=labels.env%3Ddev&pageToken=${paged.json.nextPageToken}`,
    );
    assert.equal(next.json.secrets[0].name.split('/').at(-1), 'labelled-b');
    assert.equal(
      (await rest(base, 'PATCH', `${P}/secrets/labelled-a?updateMask=replication`, {})).status,
      400,
    );
    const wrongEtag = await rest(base, 'DELETE', `${P}/secrets/labelled-a?etag=${encodeURIComponent('"0"')}`);
    assert.equal(wrongEtag.status, 409);
    assert.equal((await rest(base, 'DELETE', `${P}/secrets/labelled-a`)).status, 200);
    assert.equal((await rest(base, 'GET', `${P}/secrets/labelled-a`)).status, 404);
  });

  it('what it does not emulate is 501 UNIMPLEMENTED, never a silent success', async () => {
    const regional = await rest(base, 'GET', `${P}/locations/europe-west1/secrets`);
    assert.equal(regional.status, 501);
    assert.equal(regional.json.error.status, 'UNIMPLEMENTED');
    const ttl = await rest(base, 'POST', `${P}/secrets?secretId=ttl`, {
      replication: { automatic: {} },
      ttl: '60s',
    });
    assert.equal(ttl.status, 501);
  });
});
