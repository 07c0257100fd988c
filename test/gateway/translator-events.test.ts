/**
 * A translator's event allow-list (issue 33): a translator that takes `event_name` from the
 * payload publishes only the events it lists (`custom:*`: any custom event), one without a list
 * only what its mapping can produce, and the spec check asks for the list.
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
