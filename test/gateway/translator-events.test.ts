/**
 * A translator's event allow-list (issue 33): a translator that takes `event_name` from the
 * payload publishes only the events it lists (`custom:*`: any custom event), one without a list
 * only what its mapping can produce, and the spec check asks for the list; the spec check of
 * `auth` (docs/senders.md) too.
 */
import assert from 'node:assert/strict';
import { translatorViolations } from '../../core/translate/spec.ts';
import {
  FakePublisher,
  fieldsOf,
  fixedTranslators,
  post,
  startTestGateway,
  type TestGateway,
} from './support.ts';

const named = (events?: string[]) => ({
  event: 'page_view',
  format: { type: 'json' },
  ...(events ? { events } : {}),
  fields: [
    { target: 'event_name', source: 'name', transforms: [{ lookup: { seen: 'view_content' } }] },
    { target: 'content_name', source: 'title' },
    { target: 'content_type', value: 'product' },
  ],
});

describe('gateway: a translator publishes only its own events', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let auth: Record<string, string>;
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({
      publisher: pub,
      translators: fixedTranslators({
        listed: named(['view_content', 'custom:*']),
        unlisted: named(),
      }),
    });
    auth = { authorization: `Bearer ${await g.mint(['translate:*'])}` };
  });
  afterEach(() => g.close());

  it('refuses a catalogue event the list does not name, and takes custom events under custom:*', async () => {
    const forged = await post(`${g.url}/v1/translators/listed`, [{ name: 'purchase', title: 'x' }], auth);
    assert.equal(forged.status, 400);
    assert.deepEqual(fieldsOf(forged), ['rows[0].event_name']);
    assert.equal(pub.published, 0);
    const ok = await post(
      `${g.url}/v1/translators/listed`,
      [{ name: 'seen', title: 'Shoe' }, { name: 'newsletter_opened' }],
      auth,
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(pub.published, 2);
  });

  it('without a list, only the names its mapping produces pass', async () => {
    const ok = await post(`${g.url}/v1/translators/unlisted`, [{ name: 'seen', title: 'Shoe' }], auth);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const custom = await post(`${g.url}/v1/translators/unlisted`, [{ name: 'newsletter_opened' }], auth);
    assert.equal(custom.status, 400);
    assert.deepEqual(fieldsOf(custom), ['rows[0].event_name']);
  });

  it('apply asks for `events` when event_name comes from the payload', () => {
    assert.deepEqual(
      translatorViolations(named(), 'spec').map((v) => v.field),
      ['spec.events'],
    );
    assert.deepEqual(translatorViolations(named(['view_content']), 'spec'), []);
  });
});

describe('translators: apply-time checks of auth', () => {
  const base = {
    event: 'lead',
    format: { type: 'json' },
    fields: [{ target: 'user.email', source: 'email' }],
  };
  it('takes generic options only for hmac, a tolerance only where a timestamp is signed, and not url_token beside a signature', () => {
    const fields = (auth: unknown) => translatorViolations({ ...base, auth }, 'spec').map((v) => v.field);
    assert.deepEqual(
      fields({ signature: { scheme: 'hmac', secrets: ['S'], header: 'X-Sig', prefix: 'v1=' } }),
      [],
    );
    assert.deepEqual(
      fields({ signature: { scheme: 'stripe', secrets: ['S', 'T'], tolerance_seconds: 600 } }),
      [],
    );
    assert.deepEqual(fields({ signature: { scheme: 'github', secrets: ['S'], prefix: 'x' } }), [
      'spec.auth.signature.prefix',
    ]);
    assert.deepEqual(fields({ signature: { scheme: 'shopify', secrets: ['S'], tolerance_seconds: 60 } }), [
      'spec.auth.signature.tolerance_seconds',
    ]);
    assert.deepEqual(fields({ signature: { scheme: 'github', secrets: ['S'] }, url_token: true }), [
      'spec.auth.url_token',
    ]);
    assert.deepEqual(fields({ signature: { scheme: 'github', secrets: ['S', 'T', 'U'] } }).length, 1);
    assert.deepEqual(fields({ signature: { scheme: 'github', secrets: ['not a name!'] } }).length, 1);
  });
});
