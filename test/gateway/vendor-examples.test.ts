/**
 * Every published vendor example (test/support/vendor-examples.ts) through the gateway's
 * translator endpoint, as `eventbus source add` makes each source's translator, signed as the
 * vendor signs: each becomes its event (name, value, currency, transaction and person ids), or is
 * kept in invalid_events with its reasons and answered 200 (`unmappable: store`), or is refused
 * with its reasons (`unmappable: refuse`). Never a 5xx, never a crash. Also: a delivery a storing
 * source cannot map at all (an event type it does not know) is kept, not refused.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INVALID_ERRORS_ATTRIBUTE } from '../../core/store/invalid-call.ts';
import { signed } from '../support/source-cases.ts';
import { sourceCatalogue } from '../support/source-catalogue.ts';
import { VENDOR_EXAMPLES } from '../support/vendor-examples.ts';
import { catalogueByName, startCatalogueGateway } from './catalogue-gateway.ts';
import { baseSettings, type FakePublisher, post, type TestGateway } from './support.ts';

interface Published {
  event_name?: string;
  invalid_call?: unknown;
  user?: { external_id?: string };
  event_data?: Record<string, unknown>;
}

describe('gateway: every published vendor example through its catalogue source', function () {
  this.timeout(60_000);
  const catalogue = sourceCatalogue();
  const bySource = catalogueByName();
  let g: TestGateway;
  let pub: FakePublisher;
  before(async () => {
    ({ g, pub } = await startCatalogueGateway({
      // The examples keep their own times, some years old: the mapping is under test, not the window.
      settings: baseSettings({ limits: { event_time_past_days: 36_500 } }),
    }));
  });
  after(() => g.close());

  const send = async (
    source: string,
    contentType: string,
    body: string,
    headers: (b: string, u: string, now: number) => Promise<Record<string, string>>,
  ) => {
    const entry = bySource.get(source);
    assert.ok(entry, source);
    const token = entry.auth === 'signature' ? undefined : await g.mint([`translate:${source}`]);
    const url = `${g.url}/v1/translators/${source}${entry.auth === 'url_token' ? `/${token}` : ''}`;
    const before = pub.calls.length;
    const a = await post(
      url,
      body,
      {
        'content-type': contentType,
        ...(entry.auth === 'token' ? { authorization: `Bearer ${token}` } : {}),
        ...(await headers(body, url, Math.floor(Date.now() / 1000))),
      },
      true,
    );
    const messages = pub.calls.slice(before).flatMap((c) => c.messages);
    return { a, messages, published: messages.map((m) => JSON.parse(m.data.toString()) as Published) };
  };

  it('covers every source of the catalogue', () => {
    assert.deepEqual(
      [...new Set(VENDOR_EXAMPLES.map((e) => e.source))].sort(),
      catalogue
        .map((s) => s.name)
        .filter((n) => n !== 'ga4-mp' && n !== 'snowplow')
        .sort(),
    );
  });

  for (const ex of VENDOR_EXAMPLES) {
    it(`${ex.source}: ${ex.title}`, async () => {
      const { a, messages, published } = await send(ex.source, ex.contentType, ex.body, ex.headers);
      const said = JSON.stringify(a.body);
      assert.ok(a.status < 500, `never a 5xx: ${a.status} ${said}`);
      const x = ex.expect;
      if ('refused' in x) {
        assert.equal(a.status, 400, said);
        assert.match(said, x.refused);
        assert.equal(messages.length, 0, 'nothing published');
        return;
      }
      assert.equal(a.status, 200, said);
      if ('stored' in x) {
        assert.equal(published.length, 1, said);
        assert.ok(published[0] && 'invalid_call' in published[0], 'kept as sent, for invalid_events');
        assert.match(messages[0]?.attributes?.[INVALID_ERRORS_ATTRIBUTE] ?? '', x.stored);
        assert.match(said, /"invalidRows":1/);
        return;
      }
      const e = published[0];
      assert.ok(e && published.length >= 1, said);
      assert.equal(e.event_name, x.event_name);
      const data = e.event_data ?? {};
      if (x.value !== undefined) assert.equal(data['value'], x.value);
      if (x.currency !== undefined) assert.equal(data['currency'], x.currency);
      if (x.transaction_id !== undefined) assert.equal(data['transaction_id'] ?? null, x.transaction_id);
      if (x.external_id !== undefined) assert.equal(e.user?.external_id, x.external_id);
    });
  }

  it('keeps a delivery a storing source cannot map in invalid_events, answered 200 with its reasons', async () => {
    // Calendly's routing form submissions are no invitee: their type is not among the source's events.
    const body = JSON.stringify({
      event: 'routing_form_submission.created',
      created_at: '2026-11-01T10:00:00.000000Z',
      payload: { uri: 'https://api.calendly.com/routing_form_submissions/X1', questions_and_answers: [] },
    });
    const { a, messages, published } = await send('calendly', 'application/json', body, signed('calendly'));
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(a.body.messageIds, [null]);
    assert.equal(published.length, 1);
    assert.deepEqual(published[0]?.invalid_call, JSON.parse(body));
    assert.match(
      messages[0]?.attributes?.[INVALID_ERRORS_ATTRIBUTE] ?? '',
      /event_name.*routing_form_submission/,
    );
    assert.equal(messages[0]?.attributes?.['translator'], 'calendly');
  });

  it('publishes the rest of a HubSpot batch and keeps the one notification it cannot map', async () => {
    const good = JSON.parse(
      readFileSync(join(import.meta.dirname, '../fixtures/sources/hubspot/contact-creation.json'), 'utf8'),
    ) as Record<string, unknown>[];
    // The same notification with a time that is no epoch: that one cannot become an event.
    const body = JSON.stringify([...good, { ...good[0], eventId: 2, occurredAt: 'yesterday' }]);
    const { a, messages, published } = await send('hubspot', 'application/json', body, signed('hubspot'));
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.messageIds?.length, 2);
    assert.equal(a.body.messageIds?.[1], null);
    assert.equal(published[0]?.event_name, 'lead');
    assert.deepEqual(published[1]?.invalid_call, { ...good[0], eventId: 2, occurredAt: 'yesterday' });
    assert.match(messages[1]?.attributes?.[INVALID_ERRORS_ATTRIBUTE] ?? '', /event_time/);
  });

  it('still refuses what a refusing source cannot map, and a bad signature whatever the source', async () => {
    const body = JSON.stringify({ data: [{ event_name: 'Purchase', event_time: 1_700_000_000 }] });
    const refused = await send('meta-capi', 'application/json', body, async () => ({}));
    assert.equal(refused.a.status, 400);
    assert.equal(refused.messages.length, 0);
    const forged = await send('calendly', 'application/json', '{"event":"invitee.created"}', async () => ({
      'calendly-webhook-signature': 't=1,v1=00',
    }));
    assert.equal(forged.a.status, 401);
    assert.equal(forged.messages.length, 0);
  });
});
