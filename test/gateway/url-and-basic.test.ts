/**
 * Credentials for senders that cannot send a Bearer token (docs/senders.md): a token scoped to
 * one translator in its URL (path segment or ?key=), rotatable and redacted in our logs, and
 * HTTP Basic with a project token or a server-usable write key as the user name.
 */
import assert from 'node:assert/strict';
import {
  type FakePublisher,
  fixedTranslators,
  loggingGateway,
  ORIGIN,
  post,
  type TestGateway,
} from './support.ts';

const form = (urlToken: boolean) => ({
  event: 'lead',
  format: { type: 'json' },
  ...(urlToken ? { auth: { url_token: true } } : {}),
  fields: [{ target: 'user.email', source: 'email' }],
});
const basic = (user: string, password = '') =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const vc = { event_name: 'view_content', content_name: 'Shoe', content_type: 'product' };

describe('gateway: credentials in a URL and in HTTP Basic', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let logged: Record<string, unknown>[];
  beforeEach(async () => {
    ({ g, pub, logged } = await loggingGateway({
      translators: fixedTranslators({ forms: form(true), closed: form(false) }),
    }));
  });
  afterEach(() => g.close());

  it('a translate:<name> token works in the path or ?key=, is rotatable, and never reaches our logs', async () => {
    const first = await g.mint(['translate:forms']);
    const second = await g.mint(['translate:forms']);
    const body = { email: 'a@b.example' };
    assert.equal((await post(`${g.url}/v1/translators/forms/${first}`, body)).status, 200);
    assert.equal((await post(`${g.url}/v1/translators/forms?key=${second}`, body)).status, 200);
    // Rotation: both work until the first is revoked (the token store's usual revocation).
    assert.equal((await post(`${g.url}/v1/translators/forms/${first}`, body)).status, 200);
    const wrong = await post(`${g.url}/v1/translators/forms/${first.slice(0, -4)}AAAA`, body);
    assert.equal(wrong.status, 401);
    const text = JSON.stringify(logged);
    assert.ok(!text.includes(first.slice(20)), 'the secret part is not logged');
    assert.ok(text.includes('/v1/translators/forms/[redacted]'));
    assert.equal(pub.published, 3);
  });

  it('refuses a broader token in a URL (403), and any URL credential where url_token is off (401)', async () => {
    const broad = await g.mint(['translate:*']);
    const two = await g.mint(['translate:forms', 'translate:closed']);
    assert.equal((await post(`${g.url}/v1/translators/forms/${broad}`, {})).status, 403);
    assert.equal((await post(`${g.url}/v1/translators/forms?key=${two}`, {})).status, 403);
    const own = await g.mint(['translate:closed']);
    assert.equal((await post(`${g.url}/v1/translators/closed/${own}`, {})).status, 401);
    // The same token as a Bearer token is fine there.
    assert.equal(
      (
        await post(
          `${g.url}/v1/translators/closed`,
          { email: 'a@b.example' },
          { authorization: `Bearer ${own}` },
        )
      ).status,
      200,
    );
    const records = logged.flatMap((e) => (e['refusal'] ? [e['refusal'] as Record<string, unknown>] : []));
    assert.deepEqual(
      records.map((r) => [r['status'], r['translator']]),
      [
        [403, 'forms'],
        [403, 'forms'],
        [401, 'closed'],
      ],
    );
  });

  it('HTTP Basic: a token as the user name with its scopes; a password is refused', async () => {
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc, { authorization: basic(g.token) })).status,
      200,
    );
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc, { authorization: basic(g.token, 'x') })).status,
      401,
    );
    const narrow = await g.mint(['publish:page_view']);
    assert.equal((await post(`${g.url}/v1/topics/events`, vc, { authorization: basic(narrow) })).status, 403);
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc, { authorization: basic('nobody') })).status,
      401,
    );
  });

  it('HTTP Basic: a write key only when server-usable; a browser key stays bound to its origins', async () => {
    const server = await g.mintKey({ server: true });
    assert.equal((await post(`${g.url}/v1/topics/events`, vc, { authorization: basic(server) })).status, 200);
    const browser = await g.mintKey();
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc, { authorization: basic(browser) })).status,
      403,
    );
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc, { authorization: basic(browser), origin: ORIGIN })).status,
      200,
    );
  });
});
