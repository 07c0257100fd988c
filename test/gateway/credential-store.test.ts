import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CREDENTIAL_GRACE_MS,
  CREDENTIAL_STORE_LIMIT_BYTES,
  type CredentialSet,
  CredentialStoreFullError,
  EMPTY_CREDENTIALS,
  issueKey,
  issueToken,
  mergeCredentials,
  prepareCredentialWrite,
  pruneCredentials,
  revoke,
  serializeCredentials,
  verifySecret,
} from '../../gateway/credentials.ts';
import { fileTokenStore, secretTokenStore, type TokenStore } from '../../gateway/token-store.ts';
import { type FakeSecretManager, startFakeSecretManager } from './fake-secret-manager.ts';

const NOW = Date.parse('2026-03-01T00:00:00Z');
const DAY = 86_400_000;
const at = (ms: number) => new Date(ms);

const withToken = (set: CredentialSet, extra: { expiresAt?: Date } = {}, when = NOW) =>
  issueToken(set, { scopes: ['publish:*'], ...extra }, randomBytes, at(when));

/** A set whose compact JSON is exactly `bytes` long (a padded description). */
function setOfSize(bytes: number): CredentialSet {
  const { set } = withToken(EMPTY_CREDENTIALS);
  const padded = (n: number): CredentialSet => ({
    ...set,
    tokens: set.tokens.map((t) => ({ ...t, description: 'x'.repeat(n) })),
  });
  const base = Buffer.byteLength(serializeCredentials(padded(1)));
  const out = padded(1 + bytes - base);
  assert.equal(Buffer.byteLength(serializeCredentials(out)), bytes);
  return out;
}

describe('credentials: pruning, merging, the size limit (pure)', () => {
  it('drops records revoked or expired more than 30 days ago, keeps recent and active ones', () => {
    let set = EMPTY_CREDENTIALS;
    const ids: Record<string, string> = {};
    const add = (name: string, extra: { expiresAt?: Date } = {}) => {
      const r = withToken(set, extra, NOW - 100 * DAY);
      set = r.set;
      ids[name] = r.record.id;
    };
    add('active');
    add('activeUntilLater', { expiresAt: at(NOW + DAY) });
    add('expiredYesterday', { expiresAt: at(NOW - DAY) });
    add('expiredAtGrace', { expiresAt: at(NOW - CREDENTIAL_GRACE_MS) });
    add('expiredPastGrace', { expiresAt: at(NOW - CREDENTIAL_GRACE_MS - 1) });
    add('revokedRecently');
    add('revokedPastGrace');
    set = revoke(set, ids['revokedRecently'] as string, at(NOW - 29 * DAY));
    set = revoke(set, ids['revokedPastGrace'] as string, at(NOW - 31 * DAY));
    const key = issueKey(set, { origins: ['https://a.example'] }, randomBytes, at(NOW - 100 * DAY));
    set = revoke(key.set, key.record.id, at(NOW - 31 * DAY));

    const pruned = pruneCredentials(set, NOW);
    assert.deepEqual(
      pruned.tokens.map((t) => t.id),
      ['active', 'activeUntilLater', 'expiredYesterday', 'expiredAtGrace', 'revokedRecently'].map(
        (n) => ids[n],
      ),
    );
    assert.deepEqual(pruned.keys, []);
    assert.equal(CREDENTIAL_GRACE_MS, 30 * DAY);
  });

  it('merges two writers: union by id, a revocation on either side wins', () => {
    const a = withToken(EMPTY_CREDENTIALS);
    const base = a.set;
    const ours = withToken(base).set;
    const theirs = revoke(withToken(base).set, a.record.id, at(NOW));
    const merged = mergeCredentials(ours, theirs);
    assert.equal(merged.tokens.length, 3);
    assert.deepEqual(merged.tokens.slice(0, 2), [
      { ...ours.tokens[0], revoked_at: at(NOW).toISOString() },
      ours.tokens[1],
    ]);
    assert.deepEqual(merged.tokens[2], theirs.tokens[1]);
    // The earlier revocation is kept whichever side has it.
    const later = revoke(base, a.record.id, at(NOW + DAY));
    assert.equal(mergeCredentials(later, theirs).tokens[0]?.revoked_at, at(NOW).toISOString());
    assert.equal(mergeCredentials(theirs, later).tokens[0]?.revoked_at, at(NOW).toISOString());
  });

  it('accepts a set of exactly 64 KiB and refuses one byte more with a structured error', () => {
    assert.equal(CREDENTIAL_STORE_LIMIT_BYTES, 65_536);
    assert.equal(prepareCredentialWrite(setOfSize(65_536), NOW).text.length, 65_536);
    assert.throws(
      () => prepareCredentialWrite(setOfSize(65_537), NOW),
      (err: unknown) =>
        err instanceof CredentialStoreFullError &&
        err.code === 'CREDENTIAL_STORE_FULL' &&
        err.bytes === 65_537 &&
        err.active === 1 &&
        /1 active credentials/.test(err.message) &&
        /Revoke tokens or keys/.test(err.message),
    );
  });

  it('fills up at a couple of hundred active tokens, and the error counts them', () => {
    let set = EMPTY_CREDENTIALS;
    let count = 0;
    for (;;) {
      const next = issueToken(
        set,
        { scopes: ['publish:*'], description: 'backend' },
        randomBytes,
        at(NOW),
      ).set;
      try {
        set = prepareCredentialWrite(next, NOW).set;
        count++;
      } catch (err) {
        assert.ok(err instanceof CredentialStoreFullError);
        assert.equal(err.active, count + 1);
        assert.match(
          err.message,
          new RegExp(`${count + 1} active credentials of ${count + 1} tokens and 0 write keys`),
        );
        break;
      }
    }
    assert.ok(count > 150 && count < 400, `${count} tokens fit`);
    // Revoking is what makes room again, once the grace period has passed.
    const revokedAll = set.tokens.reduce((s, t) => revoke(s, t.id, at(NOW)), set);
    const later = NOW + CREDENTIAL_GRACE_MS + 1;
    const fresh = issueToken(revokedAll, { scopes: ['publish:*'] }, randomBytes, at(later)).set;
    assert.equal(prepareCredentialWrite(fresh, later).set.tokens.length, 1);
  });
});

/** Writes `set` as the whole store (the change functions the CLI passes are like this). */
const replaceWith = (store: TokenStore, set: CredentialSet) =>
  store.update(() => ({ set, result: undefined }));

describe('credentials: file store limit, pruning and concurrent writers', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'credential-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a 64 KiB set and refuses one byte more, leaving the file as it was', async () => {
    const path = join(dir, 'tokens.json');
    const store = fileTokenStore(path, { now: () => NOW });
    await replaceWith(store, setOfSize(65_536));
    assert.equal(statSync(path).size, 65_536);
    const before = readFileSync(path, 'utf8');
    await assert.rejects(replaceWith(store, setOfSize(65_537)), CredentialStoreFullError);
    assert.equal(readFileSync(path, 'utf8'), before);
  });

  it('prunes long-revoked records on the next update', async () => {
    const store = fileTokenStore(join(dir, 'tokens.json'), { now: () => NOW });
    const old = withToken(EMPTY_CREDENTIALS, {}, NOW - 60 * DAY);
    await replaceWith(store, revoke(old.set, old.record.id, at(NOW - 31 * DAY)));
    assert.equal((await store.read()).tokens.length, 0);
  });

  it('two processes creating tokens at once lose none of them (lock file)', async function () {
    this.timeout(20_000);
    const path = join(dir, 'tokens.json');
    const storeModule = resolve('gateway/token-store.ts');
    const coreModule = resolve('gateway/credentials.ts');
    // Each writer loads its modules, says "ready" and waits for "go" on stdin, so both write
    // at the same time instead of one finishing before the other has started.
    const script = `
      const { fileTokenStore } = await import(${JSON.stringify(storeModule)});
      const { issueToken } = await import(${JSON.stringify(coreModule)});
      const { randomBytes } = await import('node:crypto');
      const store = fileTokenStore(${JSON.stringify(path)});
      process.stdout.write('ready\\n');
      await new Promise((go) => process.stdin.once('data', go));
      for (let i = 0; i < 120; i++) {
        await store.update((set) => ({ set: issueToken(set, { scopes: ['publish:*'] }, randomBytes, new Date()).set, result: 0 }));
      }
      process.stdin.destroy();`;
    const writers = [0, 1].map(() => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => {
        err += c;
      });
      const ready = new Promise<void>((ok) => child.stdout.once('data', () => ok()));
      const done = new Promise<void>((ok, fail) =>
        child.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`writer exited ${code}: ${err}`)))),
      );
      return { child, ready, done };
    });
    try {
      await Promise.all(writers.map((w) => w.ready));
      for (const w of writers) w.child.stdin.write('go\n');
      await Promise.all(writers.map((w) => w.done));
    } finally {
      for (const w of writers) if (w.child.exitCode === null) w.child.kill();
    }
    assert.equal((await fileTokenStore(path).read()).tokens.length, 240);
  });
});

describe('credentials: Secret Manager store limit, destroyed versions and concurrent writers', () => {
  let fake: FakeSecretManager;
  beforeEach(async () => {
    fake = await startFakeSecretManager('p1', 'eventbus-tokens');
  });
  afterEach(() => fake.close());
  const open = (request = fake.request, warn?: (m: string) => void) =>
    secretTokenStore({
      project: 'p1',
      secret: 'eventbus-tokens',
      baseUrl: fake.url,
      request,
      now: () => NOW,
      ...(warn ? { warn } : {}),
    });
  const createToken = (store: TokenStore) =>
    store.update((set) => {
      const r = withToken(set);
      return { set: r.set, result: r };
    });

  it('writes a 64 KiB set and refuses one byte more before calling addVersion', async () => {
    const store = open();
    await replaceWith(store, setOfSize(65_536));
    assert.equal(Buffer.byteLength(fake.latestText() as string), 65_536);
    const adds = () => fake.seen.filter((s) => s.endsWith(':addVersion')).length;
    const before = adds();
    await assert.rejects(replaceWith(store, setOfSize(65_537)), (err: unknown) => {
      assert.ok(err instanceof CredentialStoreFullError);
      assert.doesNotMatch(err.message, /HTTP 400/);
      return true;
    });
    assert.equal(adds(), before, 'no addVersion was sent');
    assert.equal(fake.versions.length, 1);
  });

  it('destroys the superseded version after each write; readers of latest never see an error', async () => {
    const reader = open();
    const duringDestroy: string[] = [];
    // Reads `latest` as the gateway does, at the moment each old version is being destroyed.
    const store = open(async (opts) => {
      if (opts.url.endsWith(':destroy')) {
        const set = await reader.read();
        duringDestroy.push(set.tokens.map((t) => t.id).join(','));
      }
      return fake.request(opts);
    });
    const first = await createToken(store);
    assert.deepEqual(
      fake.versions.map((v) => v.state),
      ['ENABLED'],
    );
    const second = await createToken(store);
    const third = await createToken(store);
    assert.deepEqual(
      fake.versions.map((v) => v.state),
      ['DESTROYED', 'DESTROYED', 'ENABLED'],
    );
    assert.ok(fake.versions.slice(0, 2).every((v) => v.data === undefined));
    assert.deepEqual(duringDestroy, [
      [first.record.id, second.record.id].join(','),
      [first.record.id, second.record.id, third.record.id].join(','),
    ]);
    const set = await reader.read();
    assert.equal(verifySecret(set, third.secret, 'token', NOW).ok, true);
    assert.deepEqual(
      fake.seen.filter((s) => s.endsWith(':destroy')),
      [
        'POST /v1/projects/p1/secrets/eventbus-tokens/versions/1:destroy',
        'POST /v1/projects/p1/secrets/eventbus-tokens/versions/2:destroy',
      ],
    );
  });

  it('warns, but keeps the write, when an old version cannot be destroyed', async () => {
    const warnings: string[] = [];
    const store = open(
      async (opts) => (opts.url.endsWith(':destroy') ? { status: 403, data: {} } : fake.request(opts)),
      (m) => warnings.push(m),
    );
    await createToken(store);
    const second = await createToken(store);
    assert.equal(verifySecret(await store.read(), second.secret, 'token', NOW).ok, true);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] as string, /version 1 was not destroyed \(HTTP 403\)/);
  });

  it('prunes long-revoked records on the next update', async () => {
    const store = open();
    const old = withToken(EMPTY_CREDENTIALS, {}, NOW - 60 * DAY);
    await replaceWith(store, revoke(old.set, old.record.id, at(NOW - 31 * DAY)));
    assert.equal((await store.read()).tokens.length, 0);
  });

  it('a latest version disabled by hand is an error, not an empty store, and nothing is written', async () => {
    const store = open();
    await createToken(store);
    const disabled = await fake.request({
      url: `${fake.url}/v1/projects/p1/secrets/eventbus-tokens/versions/1:disable`,
      method: 'POST',
      data: {},
    });
    assert.equal(disabled.status, 200);
    await assert.rejects(store.read(), /access latest returned HTTP 400/);
    await assert.rejects(createToken(store), /access latest returned HTTP 400/);
    assert.equal(fake.versions.length, 1, 'no version was added over it');
  });

  it('gives up, asking to run the command again, when other writers keep adding versions', async () => {
    // Before each of our addVersion calls another writer adds a version with a token of its own.
    const store = open(async (opts) => {
      if (opts.url.endsWith(':addVersion')) {
        const theirs = Buffer.from(JSON.stringify(withToken(EMPTY_CREDENTIALS).set)).toString('base64');
        await fake.request({ url: opts.url, method: 'POST', data: { payload: { data: theirs } } });
      }
      return fake.request(opts);
    });
    await assert.rejects(createToken(store), /other writers kept adding versions; run the command again/);
    // The first write and five merged rewrites, each after another writer's version.
    assert.equal(fake.versions.length, 12);
  });

  it('two writers that read the same version keep both new tokens and a revocation', async () => {
    const a = open();
    const seed = await createToken(a);
    let aResult: { secret: string } | undefined;
    let raced = false;
    // B reads version 1, then A completes a whole update (revoking the seed token and creating
    // one) before B's addVersion reaches the server: B's first write lacks A's changes.
    const b = open(async (opts) => {
      if (opts.url.endsWith(':addVersion') && !raced) {
        raced = true;
        aResult = await a.update((set) => {
          const r = withToken(revoke(set, seed.record.id, at(NOW)));
          return { set: r.set, result: r };
        });
      }
      return fake.request(opts);
    });
    const bResult = await createToken(b);
    assert.ok(raced && aResult);
    const final = await a.read();
    assert.equal(verifySecret(final, aResult.secret, 'token', NOW).ok, true, "A's token survived");
    assert.equal(verifySecret(final, bResult.secret, 'token', NOW).ok, true, "B's token survived");
    const seedCheck = verifySecret(final, seed.secret, 'token', NOW);
    assert.ok(!seedCheck.ok && /revoked/.test(seedCheck.reason), "A's revocation survived");
    assert.deepEqual(
      fake.versions.map((v) => v.state),
      ['DESTROYED', 'DESTROYED', 'DESTROYED', 'ENABLED'],
      'one enabled version holds hashes',
    );
  });
});
