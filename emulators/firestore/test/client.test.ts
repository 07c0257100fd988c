/**
 * Google's Firestore client (`@google-cloud/firestore`) in REST mode (`preferRest: true`), finding
 * the emulator through FIRESTORE_EMULATOR_HOST as a deployed function would: create, the
 * ALREADY_EXISTS of a second create, update at a last update time (FAILED_PRECONDITION when
 * stale), delete at one, batched writes and getAll.
 */
import assert from 'node:assert/strict';
import { GRPC, rejectsWithCode } from '@eventbus/emulator-common/test-support/grpc-codes.ts';
import { Firestore, Timestamp } from '@google-cloud/firestore';
import { OAuth2Client } from 'google-auth-library';
import { createDatabase, type Running, start } from './support/harness.ts';

describe('firestore emulator: the Google client in REST mode', () => {
  let run: Running;
  let db: Firestore;
  const before_ = process.env.FIRESTORE_EMULATOR_HOST;
  before(async () => {
    run = await start();
    await createDatabase(run.emulator.url, 'client-db', 'client-project');
    process.env.FIRESTORE_EMULATOR_HOST = run.emulator.host;
    // In REST mode the client still asks google-auth-library for request headers, and finds no
    // credentials on a machine without an account: a client holding the emulator's conventional
    // token `owner` (the one the client itself adds for an emulator) stands in.
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: 'owner', expiry_date: Date.now() + 86_400_000 });
    db = new Firestore({
      projectId: 'client-project',
      databaseId: 'client-db',
      preferRest: true,
      authClient: auth,
    });
  });
  after(async () => {
    await db.terminate();
    if (before_ === undefined) delete process.env.FIRESTORE_EMULATOR_HOST;
    else process.env.FIRESTORE_EMULATOR_HOST = before_;
    await run.stop();
  });

  it('creates once, reads typed values back, and refuses a second create', async () => {
    const ref = db.collection('sends').doc('a'.repeat(64));
    const when = Timestamp.fromMillis(Date.UTC(2026, 10, 25, 12));
    const res = await ref.create({
      state: 'sending',
      attempt: 1,
      ok: true,
      ratio: 0.5,
      expire_at: when,
      nested: { x: [1, 'y'] },
    });
    const snap = await ref.get();
    assert.ok(snap.exists);
    assert.equal(snap.get('state'), 'sending');
    assert.equal(snap.get('attempt'), 1);
    assert.equal(snap.get('ratio'), 0.5);
    assert.ok((snap.get('expire_at') as Timestamp).isEqual(when));
    assert.deepEqual(snap.get('nested'), { x: [1, 'y'] });
    assert.ok(snap.updateTime?.isEqual(res.writeTime));
    await rejectsWithCode(ref.create({ state: 'other' }), GRPC.ALREADY_EXISTS);
  });

  it('updates and deletes at a last update time; a stale one is FAILED_PRECONDITION', async () => {
    const ref = db.collection('sends').doc('b'.repeat(64));
    const first = await ref.create({ n: 0 });
    const second = await ref.update({ n: 1 }, { lastUpdateTime: first.writeTime });
    assert.ok(second.writeTime.toMillis() >= first.writeTime.toMillis());
    assert.ok(!second.writeTime.isEqual(first.writeTime));
    await rejectsWithCode(
      ref.update({ n: 2 }, { lastUpdateTime: first.writeTime }),
      GRPC.FAILED_PRECONDITION,
    );
    await rejectsWithCode(ref.delete({ lastUpdateTime: first.writeTime }), GRPC.FAILED_PRECONDITION);
    await ref.delete({ lastUpdateTime: second.writeTime });
    assert.equal((await ref.get()).exists, false);
    await rejectsWithCode(ref.update({ n: 3 }), GRPC.NOT_FOUND);
  });

  it('commits a batch atomically and reads several documents with getAll', async () => {
    const a = db.collection('identities').doc('c'.repeat(64));
    const b = db.collection('identities').doc('d'.repeat(64));
    await a.create({ v: 1 });
    await rejectsWithCode(db.batch().set(b, { v: 2 }).create(a, { v: 3 }).commit(), GRPC.ALREADY_EXISTS);
    const [sa, sb] = await db.getAll(a, b);
    assert.equal(sa?.get('v'), 1);
    assert.equal(sb?.exists, false, 'the failed batch wrote nothing');
  });
});
