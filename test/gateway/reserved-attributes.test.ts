/**
 * Reserved message attributes (docs/security.md): the attributes the pipeline writes and trusts —
 * a rule's `origin` and `hops`, `translator`, `replay`, a delivery's `destination` and
 * `payload_digest` — are refused with a 400 naming the attribute, for a token and for a write key.
 * Before, `hops=3` stopped every rule from firing on the event and the forged values were stored
 * as provenance.
 */
import assert from 'node:assert/strict';
import { RESERVED_ATTRIBUTES } from '../../gateway/envelope.ts';
import { FakePublisher, ORIGIN, post, reasonOf, startTestGateway, type TestGateway } from './support.ts';

const data = Buffer.from(
  JSON.stringify({ event_name: 'view_content', content_name: 'Shoe', content_type: 'product' }),
).toString('base64');

describe('gateway: reserved message attributes', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  before(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub });
  });
  after(() => g.close());

  it('names the pipeline’s own attributes', () => {
    assert.deepEqual([...RESERVED_ATTRIBUTES].sort(), [
      'destination',
      'first',
      'force',
      'hops',
      'origin',
      'payload_digest',
      'replay',
      'server_fields',
      'sighted_at',
      'translator',
    ]);
  });

  it('refuses each of them with a 400 naming it, whatever the credential, and publishes nothing', async () => {
    const key = await g.mintKey({});
    const credentials = [{ authorization: `Bearer ${g.token}` }, { origin: ORIGIN, 'x-write-key': key }];
    for (const headers of credentials) {
      for (const name of RESERVED_ATTRIBUTES) {
        const value = name === 'hops' ? '3' : name === 'origin' ? 'Rule/high-value' : 'x';
        const res = await post(
          `${g.url}/v1/projects/test-project/topics/events:publish`,
          { messages: [{ data, attributes: { [name]: value } }] },
          headers,
        );
        assert.equal(res.status, 400, `${name} ${JSON.stringify(res.body)}`);
        assert.equal(reasonOf(res), 'INVALID_ENVELOPE');
        assert.match(res.body.error?.message ?? '', new RegExp(`"${name}" is reserved`));
      }
    }
    assert.equal(pub.published, 0);
    // Other attributes still pass.
    const ok = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      { messages: [{ data, attributes: { origin_system: 'crm' } }] },
      { authorization: `Bearer ${g.token}` },
    );
    assert.equal(ok.status, 200);
  });
});
