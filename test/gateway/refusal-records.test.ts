/**
 * Live events' refusal records (docs/console.md#live-events): every error answer of the gateway
 * is handed to the recorder with its status, reason, credential, translator and declared size;
 * never the body, a secret, or a credential in the path. Accepted requests record nothing.
 */
import assert from 'node:assert/strict';
import type { RefusalEvent } from '../../core/console/live-events.ts';
import { FakePublisher, fixedTranslators, post, startTestGateway, type TestGateway } from './support.ts';

const SECRET_FIELD = 'very-private-value-4711';

describe('gateway: refusal records for live events', () => {
  let g: TestGateway;
  const recorded: RefusalEvent[] = [];
  beforeEach(async () => {
    recorded.length = 0;
    g = await startTestGateway({
      publisher: new FakePublisher(),
      translators: fixedTranslators({
        forms: {
          event: 'lead',
          format: { type: 'json' },
          auth: { url_token: true },
          fields: [{ target: 'user.email', source: 'email' }],
        },
      }),
      refusals: { record: (e) => recorded.push(e) },
    });
  });
  afterEach(() => g.close());

  it('records a 401 with its reason and declared size, a 400 with the credential, and nothing for a 200', async () => {
    const body = { event_name: 'view_content', content_name: SECRET_FIELD, content_type: 'product' };
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, body, { authorization: `Bearer ${g.token}` })).status,
      200,
    );
    assert.equal(recorded.length, 0);

    assert.equal(
      (await post(`${g.url}/v1/topics/events`, body, { authorization: 'Bearer nope' })).status,
      401,
    );
    const [unauthenticated] = recorded;
    assert.equal(unauthenticated?.status, 401);
    assert.equal(unauthenticated?.code, 'INVALID_CREDENTIALS');
    assert.equal(unauthenticated?.path, '/v1/topics/events');
    assert.equal(unauthenticated?.size, Buffer.byteLength(JSON.stringify(body)));

    const invalid = await post(
      `${g.url}/v1/topics/events`,
      { event_name: 'purchase', note: SECRET_FIELD },
      {
        authorization: `Bearer ${g.token}`,
      },
    );
    assert.equal(invalid.status, 400);
    const last = recorded.at(-1);
    assert.equal(last?.status, 400);
    assert.equal(last?.reason, 'INVALID_EVENT');
    assert.match(String(last?.credential), /^token:/);
    // What is recorded never holds the body or a secret.
    const text = JSON.stringify(recorded);
    assert.ok(!text.includes(SECRET_FIELD));
    assert.ok(!text.includes(g.token));
  });

  it('records a translator refusal under the translator, with the credential in the path redacted', async () => {
    const wrong = 'ebt_wrong-token-in-the-path-000000000000';
    const r = await post(`${g.url}/v1/translators/forms/${wrong}`, { email: 'a@b.example' });
    assert.equal(r.status, 401);
    const [rec] = recorded;
    assert.equal(rec?.translator, 'forms');
    assert.equal(rec?.path, '/v1/translators/forms/[redacted]');
    assert.ok(!JSON.stringify(recorded).includes(wrong));
  });
});
