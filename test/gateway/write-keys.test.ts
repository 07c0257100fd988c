/**
 * What a public credential may do: a write key's event list and rate, the address the gateway
 * observes winning over a browser's device.ip, and every 401/403 logged without its secret.
 */
import assert from 'node:assert/strict';
import type { CredentialCache } from '../../gateway/auth.ts';
import { authenticate } from '../../gateway/auth.ts';
import { EMPTY_CREDENTIALS, issueToken, revoke } from '../../gateway/credentials.ts';
import { baseSettings, FakePublisher, ORIGIN, post, startTestGateway, type TestGateway } from './support.ts';

const vc = (over: Record<string, unknown> = {}) => ({
  event_name: 'view_content',
  content_name: 'Shoe',
  content_type: 'product',
  ...over,
});
const purchase = { event_name: 'purchase', transaction_id: 'T1', value: 1, currency: 'EUR' };

describe('gateway: write keys and refusals', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let logged: Record<string, unknown>[];
  beforeEach(async () => {
    pub = new FakePublisher();
    logged = [];
    // burst 1: a credential's own rate is then its burst too (the test keys have rate 100 000).
    g = await startTestGateway({
      publisher: pub,
      settings: baseSettings({ tokens: { burst: 1 } }),
      log: (e) => logged.push(e),
    });
  });
  afterEach(() => g.close());

  it('a key with an event list publishes only those events, in every form and batch', async () => {
    const key = await g.mintKey({ events: ['view_content', 'page_view'] });
    const h = { origin: ORIGIN, 'x-write-key': key };
    assert.equal((await post(`${g.url}/v1/topics/events`, vc(), h)).status, 200);
    assert.equal(
      (await post(`${g.url}/v1/topics/view_content`, { content_name: 'S', content_type: 'p' }, h)).status,
      200,
    );
    const before = pub.published;
    for (const body of [purchase, [vc(), purchase]]) {
      const a = await post(`${g.url}/v1/topics/events`, body, h);
      assert.equal(a.status, 403);
      assert.equal(a.body.error?.status, 'PERMISSION_DENIED');
    }
    assert.equal(pub.published, before);
    // A key without a list keeps publishing anything.
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, purchase, { origin: ORIGIN, 'x-write-key': g.key })).status,
      200,
    );
  });

  it('rate-limits each key by its own rate', async () => {
    const key = await g.mintKey({ rate: 1 });
    const h = { origin: ORIGIN, 'x-write-key': key };
    assert.equal((await post(`${g.url}/v1/topics/events`, vc(), h)).status, 200);
    const limited = await post(`${g.url}/v1/topics/events`, vc(), h);
    assert.equal(limited.status, 429);
    // Another key is not affected.
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { origin: ORIGIN, 'x-write-key': g.key })).status,
      200,
    );
  });

  it('a write key cannot set device.ip: the observed address wins; a token may forward its user’s', async () => {
    const claimed = vc({ device: { ip: '198.51.100.7', locale: 'en' } });
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, claimed, { origin: ORIGIN, 'x-write-key': g.key })).status,
      200,
    );
    const fromKey = JSON.parse(pub.calls.at(-1)?.messages[0]?.data.toString() ?? '{}');
    assert.equal(fromKey.device.ip, '127.0.0.1');
    assert.equal(fromKey.device.locale, 'en');
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, claimed, { authorization: `Bearer ${g.token}` })).status,
      200,
    );
    const fromToken = JSON.parse(pub.calls.at(-1)?.messages[0]?.data.toString() ?? '{}');
    assert.equal(fromToken.device.ip, '198.51.100.7');
  });

  it('logs every 401 and 403 as a structured line naming the credential, never its secret, and counts them per credential and reason', async () => {
    const revoked = await g.mint(['publish:search']);
    await g.store.update((set) => ({ set: revoke(set, revoked.slice(4, 16), new Date()), result: 0 }));
    const unknown = `ebt_${'a'.repeat(12)}_${'b'.repeat(43)}`;
    const scoped = await g.mint(['publish:search']);
    await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${unknown}` });
    await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${unknown}` });
    await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${revoked}` });
    await post(`${g.url}/v1/topics/events`, vc(), { authorization: 'Bearer not-a-token' });
    await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${scoped}` });
    await post(`${g.url}/v1/topics/events?key=${g.key}`, vc(), { origin: 'https://evil.example' });
    const lines = logged.filter((l) => l['refusal']);
    const refusals = lines.map((l) => l['refusal'] as Record<string, unknown>);
    assert.deepEqual(
      refusals.map((r) => [r['status'], r['reason'], r['credential'], r['count']]),
      [
        [401, 'INVALID_CREDENTIALS', 'token:aaaaaaaaaaaa', 1],
        [401, 'INVALID_CREDENTIALS', 'token:aaaaaaaaaaaa', 2],
        [401, 'INVALID_CREDENTIALS', `token:${revoked.slice(4, 16)}`, 1],
        [401, 'INVALID_CREDENTIALS', refusals[3]?.['credential'], 1],
        [403, 'PERMISSION_DENIED', `token:${scoped.slice(4, 16)}`, 1],
        [403, 'ORIGIN_NOT_ALLOWED', `key:${g.key.slice(4, 16)}`, 1],
      ],
    );
    assert.match(String(refusals[3]?.['credential']), /^sha256:[0-9a-f]{8}$/);
    const text = JSON.stringify(lines);
    for (const secret of [unknown, revoked, scoped, g.key, 'not-a-token']) assert.ok(!text.includes(secret));
    assert.ok(lines.every((l) => l['severity'] === 'WARNING'));
  });
});

describe('gateway authentication: unknown secrets are remembered', () => {
  it('re-reads the store once for an unknown token, then answers its repeats from memory', async () => {
    const set = issueToken(
      EMPTY_CREDENTIALS,
      { scopes: ['publish:*'] },
      (n) => new Uint8Array(n).fill(7),
      new Date(),
    ).set;
    let refreshes = 0;
    const credentials: CredentialCache = {
      current: () => set,
      refreshSoon: async () => {
        refreshes++;
      },
      close: () => {},
    };
    const deps = { credentials, principals: [], now: Date.now };
    const unknown = `ebt_${'c'.repeat(12)}_${'d'.repeat(43)}`;
    const req = {
      rawHeaders: ['Authorization', `Bearer ${unknown}`],
      headers: { authorization: `Bearer ${unknown}` },
    };
    for (let i = 0; i < 3; i++) {
      // biome-ignore lint/suspicious/noExplicitAny: authenticate reads only the headers of the request
      const r = await authenticate(req as any, [], deps);
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.code, 'INVALID_CREDENTIALS');
    }
    assert.equal(refreshes, 1, 'one on-demand re-read, then the repeats are known unknowns');
  });
});

describe('gateway authentication: verdicts per credential kind', () => {
  let g: TestGateway;
  beforeEach(async () => {
    g = await startTestGateway({ publisher: new FakePublisher() });
  });
  afterEach(() => g.close());

  it('a token refused as a write key (?key=) still verifies as a Bearer token at once (issue 33)', async () => {
    const asKey = await post(`${g.url}/v1/topics/events?key=${g.token}`, vc(), { origin: ORIGIN });
    assert.equal(asKey.status, 401);
    const asBearer = await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${g.token}` });
    assert.equal(asBearer.status, 200, JSON.stringify(asBearer.body));
  });
});
