import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Io } from '../../cli/output.ts';
import { authenticate, startCredentialCache } from '../../gateway/auth.ts';
import {
  type CredentialSet,
  canPublish,
  EMPTY_CREDENTIALS,
  issueKey,
  issueToken,
  revoke,
  verifySecret,
} from '../../gateway/credentials.ts';
import {
  ensureDevToken,
  fileTokenStore,
  secretTokenStore,
  type TokenStore,
} from '../../gateway/token-store.ts';
import { startFakeSecretManager } from './fake-secret-manager.ts';

const NOW = new Date('2026-01-01T00:00:00Z');

const TOPICS: ReadonlySet<string> = new Set(['events', 'backend_events']);

describe('credentials: tokens and keys', () => {
  it('stores only a salted hash and verifies the secret once issued', () => {
    const { set, secret, record } = issueToken(
      EMPTY_CREDENTIALS,
      { scopes: ['publish:*'] },
      randomBytes,
      NOW,
    );
    assert.match(secret, /^ebt_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    assert.ok(!JSON.stringify(set).includes(secret.slice(17)), 'the secret part never reaches the store');
    assert.equal(verifySecret(set, secret, 'token', NOW.getTime()).ok, true);
    const again = issueToken(EMPTY_CREDENTIALS, { scopes: ['publish:*'] }, randomBytes, NOW);
    assert.notEqual(again.record.salt, record.salt);
    assert.equal(
      verifySecret(set, `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`, 'token', NOW.getTime())
        .ok,
      false,
    );
    assert.equal(verifySecret(set, secret, 'key', NOW.getTime()).ok, false);
  });

  it('refuses revoked and expired credentials', () => {
    const a = issueToken(
      EMPTY_CREDENTIALS,
      { scopes: ['admin'], expiresAt: new Date(NOW.getTime() + 1000) },
      randomBytes,
      NOW,
    );
    assert.equal(verifySecret(a.set, a.secret, 'token', NOW.getTime() + 999).ok, true);
    const expired = verifySecret(a.set, a.secret, 'token', NOW.getTime() + 1000);
    assert.ok(!expired.ok && /expired/.test(expired.reason));
    const revoked = revoke(a.set, a.record.id, NOW);
    const r = verifySecret(revoked, a.secret, 'token', NOW.getTime());
    assert.ok(!r.ok && /revoked/.test(r.reason));
    assert.throws(() => revoke(a.set, 'nope', NOW), /no token/);
  });

  it('validates scopes and origins', () => {
    assert.throws(
      () => issueToken(EMPTY_CREDENTIALS, { scopes: ['write'] }, randomBytes, NOW),
      /not a scope/,
    );
    assert.throws(() => issueToken(EMPTY_CREDENTIALS, { scopes: [] }, randomBytes, NOW), /at least one/);
    assert.throws(
      () => issueKey(EMPTY_CREDENTIALS, { origins: ['shop.example'] }, randomBytes, NOW),
      /not an origin/,
    );
    const k = issueKey(EMPTY_CREDENTIALS, { origins: ['https://shop.example'] }, randomBytes, NOW);
    assert.match(k.secret, /^ebk_/);
    assert.equal(k.record.events, undefined, 'no list: any event');
    assert.throws(
      () =>
        issueKey(
          EMPTY_CREDENTIALS,
          { origins: ['https://shop.example'], events: ['Purchase'] },
          randomBytes,
          NOW,
        ),
      /event "Purchase" must match/,
    );
    const listed = issueKey(
      EMPTY_CREDENTIALS,
      { origins: ['https://shop.example'], events: ['page_view', 'page_view', 'view_content'] },
      randomBytes,
      NOW,
    );
    assert.deepEqual(listed.record.events, ['page_view', 'view_content']);
  });

  it('checks publish scopes by topic and by event', () => {
    assert.equal(canPublish(['publish:*'], 'events', ['x'], TOPICS), true);
    assert.equal(canPublish(['admin'], 'backend_events', ['x'], TOPICS), true);
    assert.equal(canPublish(['publish:backend_events'], 'backend_events', ['x'], TOPICS), true);
    assert.equal(canPublish(['publish:backend_events'], 'events', ['x'], TOPICS), false);
    assert.equal(
      canPublish(['publish:search', 'publish:purchase'], 'events', ['search', 'purchase'], TOPICS),
      true,
    );
    assert.equal(canPublish(['publish:search'], 'events', ['search', 'purchase'], TOPICS), false);
    assert.equal(canPublish(['translate:shop'], 'events', ['search'], TOPICS), false);
    // An event scope never reaches another topic, and a topic's name is never an event scope.
    assert.equal(canPublish(['publish:view_content'], 'backend_events', ['view_content'], TOPICS), false);
    assert.equal(canPublish(['publish:backend_events'], 'events', ['backend_events'], TOPICS), false);
    assert.equal(canPublish(['publish:events'], 'events', ['search'], TOPICS), true);
    assert.equal(canPublish(['publish:events'], 'backend_events', ['search'], TOPICS), false);
  });
});

describe('credentials: token stores', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'token-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('file store: empty when missing, written atomically with mode 0600', async () => {
    const store = fileTokenStore(join(dir, 'sub', 'tokens.json'));
    assert.deepEqual(await store.read(), EMPTY_CREDENTIALS);
    const secret = await store.update((set) => {
      const r = issueToken(set, { scopes: ['publish:*'] }, randomBytes, NOW);
      return { set: r.set, result: r.secret };
    });
    const set = await store.read();
    assert.equal(set.tokens.length, 1);
    assert.equal(verifySecret(set, secret, 'token', NOW.getTime()).ok, true);
    assert.equal(statSync(join(dir, 'sub', 'tokens.json')).mode & 0o777, 0o600);
  });

  it('creates the development token once and writes it to <dataDir>/dev-token', async () => {
    const store = fileTokenStore(join(dir, 'tokens.json'));
    const first = await ensureDevToken(dir, store);
    assert.equal(first.created, true);
    assert.equal(readFileSync(join(dir, 'dev-token'), 'utf8').trim(), first.token);
    const second = await ensureDevToken(dir, store);
    assert.deepEqual([second.created, second.token], [false, first.token]);
    // A revoked dev token is replaced on the next start.
    const id = (await store.read()).tokens[0]?.id as string;
    await store.update((set) => ({ set: revoke(set, id, NOW), result: undefined }));
    const third = await ensureDevToken(dir, store);
    assert.equal(third.created, true);
    assert.notEqual(third.token, first.token);
  });

  it('secret store: reads latest, adds a version per change (Secret Manager REST on loopback)', async () => {
    const fake = await startFakeSecretManager('p1', 'eventbus-tokens');
    try {
      const store = secretTokenStore({
        project: 'p1',
        secret: 'eventbus-tokens',
        baseUrl: fake.url,
        request: fake.request,
      });
      assert.deepEqual(await store.read(), EMPTY_CREDENTIALS);
      const secret = await store.update((set) => {
        const r = issueToken(set, { scopes: ['publish:*'] }, randomBytes, NOW);
        return { set: r.set, result: r.secret };
      });
      await store.update((set) => {
        const r = issueKey(set, { origins: ['https://a.example'] }, randomBytes, NOW);
        return { set: r.set, result: r.secret };
      });
      assert.equal(fake.versions.length, 2);
      const set = await store.read();
      assert.equal(set.keys.length, 1);
      assert.equal(verifySecret(set, secret, 'token', NOW.getTime()).ok, true);
      assert.equal(store.refreshMs, 60_000);
    } finally {
      await fake.close();
    }
  });
});

describe('credentials: the gateway re-reads its store on demand (no CPU between requests)', () => {
  it('keeps no timer: a set older than refreshMs is re-read, once, before it answers again', async () => {
    let clock = 0;
    let reads = 0;
    let current = EMPTY_CREDENTIALS;
    const store = {
      where: 'memory',
      refreshMs: 60_000,
      onDemandMinMs: 5_000,
      read: async () => {
        reads++;
        return current;
      },
      update: async () => assert.fail('not written'),
    } as unknown as TokenStore;
    const cache = await startCredentialCache(
      store,
      () => {},
      () => clock,
      5_000,
      'on-demand',
    );
    assert.equal(reads, 1, 'read once at start');
    clock = 59_999;
    assert.equal(cache.stale?.(), undefined, 'fresh enough: nothing to wait for');
    assert.equal(reads, 1);
    // A token is revoked (here: a new set) while the instance sleeps an hour without CPU.
    const next = issueToken(EMPTY_CREDENTIALS, { scopes: ['publish:*'] }, randomBytes, NOW).set;
    current = next;
    clock = 3_600_000;
    const waits = [cache.stale?.(), cache.stale?.()];
    assert.ok(waits[0] instanceof Promise);
    assert.equal(waits[0], waits[1], 'requests that find it stale share one read');
    await waits[0];
    assert.equal(reads, 2);
    assert.equal(cache.current(), next, 'answered with the re-read set');
    assert.equal(cache.stale?.(), undefined);
    cache.close();
  });
});

describe('credentials: a token created while the gateway reads its store', () => {
  it('is looked for in a read that begins after it was seen, not in the read already under way', async () => {
    let reads = 0;
    let current = EMPTY_CREDENTIALS;
    const pending: (() => void)[] = [];
    const store = {
      where: 'memory',
      refreshMs: 1_000,
      onDemandMinMs: 0,
      // Each read takes the set as it is when it begins, and ends when the test lets it.
      read: () => {
        reads++;
        const seen = current;
        return new Promise<CredentialSet>((resolve) => pending.push(() => resolve(seen)));
      },
      update: async () => assert.fail('not written'),
    } as unknown as TokenStore;
    const starting = startCredentialCache(store, () => {}, Date.now, 0, 'on-demand');
    pending.shift()?.();
    const cache = await starting;
    // A read begins (another request's unknown credential) and is still under way...
    const first = cache.refreshSoon();
    // ...when a token is created and presented.
    const { set: next, secret } = issueToken(EMPTY_CREDENTIALS, { scopes: ['publish:*'] }, randomBytes, NOW);
    current = next;
    const waits = [cache.refreshSoon(), cache.refreshSoon()];
    assert.equal(waits[0], waits[1], 'credentials seen meanwhile share one more read');
    pending.shift()?.();
    await first;
    assert.equal(cache.current(), EMPTY_CREDENTIALS, 'the read under way began before the token');
    await new Promise((r) => setImmediate(r));
    assert.equal(reads, 3, 'one more read, not one per request');
    pending.shift()?.();
    await waits[0];
    assert.equal(verifySecret(cache.current() as CredentialSet, secret, 'token', NOW.getTime()).ok, true);
    cache.close();
  });
});

describe('credentials: CLI token and key commands', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'token-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  // In-process (a child per command would spend seconds loading every command module).
  const cli = async (args: string[]) => {
    const { run } = await import('../../cli/main.ts');
    let stdout = '';
    let stderr = '';
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => {
      stdout += chunk;
      return true;
    }) as typeof process.stdout.write;
    try {
      const code = await run([...args, '--store', `file:${join(dir, 'tokens.json')}`], {
        out: (s: string) => {
          stdout += s;
        },
        err: (s: string) => {
          stderr += s;
        },
      } satisfies Io);
      if (code !== 0) throw new Error(`exit ${code}: ${stderr}`);
    } finally {
      process.stdout.write = write;
    }
    return { stdout };
  };

  it('creates (shown once), lists without secrets, and revokes', async () => {
    const created = await cli(['token', 'create', '--scope', 'publish:view_content', '--expires', '30d']);
    const secret = created.stdout.split('\n')[0] as string;
    assert.match(secret, /^ebt_/);
    const listed = await cli(['token', 'list', '--format', 'json']);
    const rows = JSON.parse(listed.stdout) as { id: string; scopes: string; state: string }[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.scopes, 'publish:view_content');
    assert.ok(!listed.stdout.includes(secret.slice(17)));
    await cli(['token', 'revoke', rows[0]?.id as string]);
    const after = JSON.parse((await cli(['token', 'list', '--format', 'json'])).stdout) as {
      state: string;
    }[];
    assert.equal(after[0]?.state, 'revoked');
    await assert.rejects(cli(['token', 'create', '--scope', 'bogus']), /not a scope/);
    const key = await cli(['key', 'create', '--origin', 'https://elsewhere.example']);
    assert.match(key.stdout, /^ebk_/);
    assert.match(key.stdout, /producers\.origins/);
    assert.ok(existsSync(join(dir, 'tokens.json')));
  });
});

describe('gateway authentication: verified secrets are remembered per credential set', () => {
  const request = (secret: string) =>
    ({
      rawHeaders: ['authorization', `Bearer ${secret}`],
      headers: { authorization: `Bearer ${secret}` },
    }) as unknown as IncomingMessage;

  it('still refuses a remembered token once it expires or a re-read set revokes it', async () => {
    const a = issueToken(
      EMPTY_CREDENTIALS,
      { scopes: ['publish:*'], expiresAt: new Date(NOW.getTime() + 1000) },
      randomBytes,
      NOW,
    );
    let current: CredentialSet = a.set;
    let now = NOW.getTime();
    const deps = {
      credentials: { current: () => current, refreshSoon: async () => {}, close: () => {} },
      principals: [],
      now: () => now,
    };
    for (let i = 0; i < 2; i++) {
      const ok = await authenticate(request(a.secret), [], deps);
      assert.ok(ok.ok && ok.principal.id === a.record.id);
    }
    const wrong = await authenticate(
      request(`${a.secret.slice(0, -1)}${a.secret.endsWith('A') ? 'B' : 'A'}`),
      [],
      deps,
    );
    assert.ok(!wrong.ok && wrong.error.http === 401);
    now += 1000;
    const expired = await authenticate(request(a.secret), [], deps);
    assert.ok(!expired.ok && /expired/.test(expired.error.body.error.message));
    now = NOW.getTime();
    current = revoke(a.set, a.record.id, NOW);
    const revoked = await authenticate(request(a.secret), [], deps);
    assert.ok(!revoked.ok && /revoked/.test(revoked.error.body.error.message));
  });
});
