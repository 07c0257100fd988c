/**
 * The `credential` attribute (core/event.ts, CREDENTIAL_ATTRIBUTE; issue #61): every event the
 * gateway publishes names the kind of credential it came with, which the identity graph reads to
 * tell a write key's events (public: they may attach an anonymous id, never join two persons) from
 * a project token's. A producer cannot choose it: its own value is replaced.
 */
import assert from 'node:assert/strict';
import { CREDENTIAL_ATTRIBUTE } from '../../core/event.ts';
import {
  FakePublisher,
  fixedTranslators,
  ORIGIN,
  post,
  startTestGateway,
  type TestGateway,
} from './support.ts';

const event = { event_name: 'login', anonymous_id: 'a-1', user_id: 'u-1' };
const data = Buffer.from(JSON.stringify(event)).toString('base64');

describe('gateway: each event names the kind of credential it came with', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({
      publisher: pub,
      translators: fixedTranslators({
        logins: {
          event: 'login',
          format: { type: 'json' },
          fields: [{ target: 'user_id', source: 'user' }],
        },
      }),
    });
  });
  afterEach(() => g.close());

  /** The credential attribute of every message published so far. */
  const kinds = () => pub.calls.flatMap((c) => c.messages.map((m) => m.attributes[CREDENTIAL_ATTRIBUTE]));

  it('a project token’s events say token, a write key’s say key, in both request forms', async () => {
    const token = { authorization: `Bearer ${g.token}` };
    const key = { origin: ORIGIN, 'x-write-key': g.key };
    const publish = `${g.url}/v1/projects/test-project/topics/events:publish`;
    for (const headers of [token, key]) {
      assert.equal((await post(`${g.url}/v1/topics/events`, event, headers)).status, 200);
      assert.equal((await post(publish, { messages: [{ data }] }, headers)).status, 200);
    }
    assert.deepEqual(kinds(), ['token', 'token', 'key', 'key']);
  });

  it('a producer’s own `credential` attribute is replaced, never taken', async () => {
    const res = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      { messages: [{ data, attributes: { [CREDENTIAL_ATTRIBUTE]: 'token', origin_system: 'web' } }] },
      { origin: ORIGIN, 'x-write-key': g.key },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(kinds(), ['key']);
    assert.equal(pub.calls[0]?.messages[0]?.attributes['origin_system'], 'web');
  });

  it('a translator’s events name the credential that called it', async () => {
    const auth = { authorization: `Bearer ${await g.mint(['translate:logins'])}` };
    const res = await post(`${g.url}/v1/translators/logins`, [{ user: 'u-2' }], auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(kinds(), ['token']);
  });
});
