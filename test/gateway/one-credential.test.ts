/**
 * Issue 61, a Low: one credential per request, wherever the second one sits (a URL credential
 * beside an Authorization or X-Write-Key header or a second `?key=`), answered 401
 * `INVALID_CREDENTIALS` naming the rule, as two headers always were.
 */
import assert from 'node:assert/strict';
import {
  type FakePublisher,
  fixedTranslators,
  loggingGateway,
  ORIGIN,
  post,
  reasonOf,
  type TestGateway,
} from './support.ts';

const forms = {
  event: 'lead',
  format: { type: 'json' },
  auth: { url_token: true },
  fields: [{ target: 'user.email', source: 'email' }],
};
const body = { email: 'a@b.example' };

describe('gateway: one credential per request (issue 61)', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let token: string;
  beforeEach(async () => {
    ({ g, pub } = await loggingGateway({ translators: fixedTranslators({ forms }) }));
    token = await g.mint(['translate:forms']);
  });
  afterEach(() => g.close());

  it('refuses a URL credential beside a header or a second ?key= with 401 naming the rule', async () => {
    const bearer = { authorization: `Bearer ${g.token}` };
    const cases: [string, string, Record<string, string>][] = [
      ['path + Authorization', `/v1/translators/forms/${token}`, bearer],
      ['?key= + Authorization', `/v1/translators/forms?key=${token}`, bearer],
      ['path + X-Write-Key', `/v1/translators/forms/${token}`, { 'x-write-key': g.key, origin: ORIGIN }],
      ['path + ?key=', `/v1/translators/forms/${token}?key=${token}`, {}],
      ['path + Basic', `/v1/translators/forms/${token}`, { authorization: `Basic ${btoa(`${g.token}:`)}` }],
    ];
    for (const [what, path, headers] of cases) {
      const a = await post(`${g.url}${path}`, body, headers);
      assert.equal(a.status, 401, what);
      assert.equal(a.body.error?.status, 'UNAUTHENTICATED', what);
      assert.equal(reasonOf(a), 'INVALID_CREDENTIALS', what);
      assert.match(a.body.error?.message ?? '', /exactly one credential/, what);
    }
    // The URL check (GET) takes the same rule.
    const check = await fetch(`${g.url}/v1/translators/forms/${token}`, { headers: bearer });
    assert.equal(check.status, 401);
    assert.equal(pub.published, 0);
    // Each alone is accepted.
    assert.equal((await post(`${g.url}/v1/translators/forms/${token}`, body)).status, 200);
    assert.equal(
      (await post(`${g.url}/v1/translators/forms`, body, { authorization: `Bearer ${token}` })).status,
      200,
    );
    assert.equal((await fetch(`${g.url}/v1/translators/forms/${token}`)).status, 200);
  });
});
