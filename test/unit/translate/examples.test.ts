/**
 * The ready-made translators of examples/translators/ (moving existing traffic over): each is a
 * valid Translator, and recorded Segment, RudderStack and GA4 Measurement Protocol payloads become
 * events the gateway accepts, with their names, ids, times, users, pages and commerce fields.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { normalizeEvent, normalizeOptions } from '../../../core/event.ts';
import { translate } from '../../../core/translate/index.ts';
import { translatorViolations } from '../../../core/translate/spec.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';

const DIR = join(import.meta.dirname, '../../../examples/translators');

function translator(file: string, name: string): TranslatorSpec {
  const docs = parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d) => d.toJS());
  const doc = docs.find((d) => d.name === name);
  assert.ok(doc, `${name} in ${file}`);
  assert.equal(doc.kind, 'Translator');
  assert.deepEqual(translatorViolations(doc.spec, 'spec'), []);
  return doc.spec as TranslatorSpec;
}

const ctx = {
  options: normalizeOptions({ name: 'test', project: 'test-project', region: 'europe-west1' }),
  now: Date.parse('2026-11-22T00:00:00.000Z'),
  newId: () => 'minted',
};

/** The sample through the translator, then through the gateway's normaliser: the stored events. */
function events(spec: TranslatorSpec, name: string, sample: string) {
  const r = translate({
    translator: name,
    spec,
    eventName: spec.event,
    body: readFileSync(join(DIR, 'samples', sample)),
    contentType: 'application/json',
  });
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.problems, []);
  return r.rows.map((row) => {
    const n = normalizeEvent(row.event, ctx);
    assert.ok(n.ok, `${sample} row ${row.row}: ${JSON.stringify(n)}`);
    return n.event;
  });
}

describe('example translators: moving Segment, RudderStack and GA4 traffic over', () => {
  const segment = translator('segment-rudderstack.yaml', 'segment');
  const ga4 = translator('ga4-measurement-protocol.yaml', 'ga4-mp');

  it('turns a Segment track call (Order Completed) into a purchase', () => {
    const [e] = events(segment, 'segment', 'segment-track.json');
    assert.equal(e?.event_name, 'purchase');
    assert.equal(e?.event_id, 'api-1xT9b2mQz');
    assert.equal(e?.event_time, '2026-11-20T14:03:11.276Z');
    assert.equal(e?.user_id, '97980cfea0067');
    assert.equal(e?.anonymous_id, '507f191e810c19729de860ea');
    assert.equal(e?.user?.email, 'Ana.Lima@Example.com');
    assert.equal(e?.page?.url, 'https://shop.example/checkout/thanks');
    assert.equal(e?.campaign?.source, 'newsletter');
    assert.equal(e?.device?.ip, '203.0.113.10');
    assert.deepEqual(
      [e?.event_data['transaction_id'], e?.event_data['value'], e?.event_data['currency']],
      ['50314b8e9bcf000000000000', 25, 'EUR'],
    );
    assert.deepEqual(e?.event_data['items'], [
      {
        item_id: '507f1f77bcf86cd799439011',
        item_name: 'Monopoly: 3rd Edition',
        item_category: 'Games',
        price: 19,
        quantity: 1,
      },
      {
        item_id: '505bd76785ebb509fc183733',
        item_name: 'Uno Card Game',
        item_category: 'Games',
        price: 3,
        quantity: 2,
      },
    ]);
    assert.equal(e?.event_data['content_type'], undefined, 'only Product Viewed gets a content_type');
  });

  it('turns a Segment batch (page, Product Viewed, a custom track, identify) into four events', () => {
    const es = events(segment, 'segment', 'segment-batch.json');
    assert.deepEqual(
      es.map((e) => e.event_name),
      ['page_view', 'view_content', 'newsletter_opened', 'user_identified'],
    );
    const [page, view, custom, identify] = es;
    assert.equal(page?.page?.referrer, 'https://search.example/?q=shop');
    assert.equal(page?.device?.user_agent?.startsWith('Mozilla/5.0 (X11'), true, "the batch's context");
    assert.deepEqual(
      [view?.event_data['content_name'], view?.event_data['content_type'], view?.event_data['content_id']],
      ['Monopoly: 3rd Edition', 'product', '507f1f77bcf86cd799439011'],
    );
    assert.equal(custom?.user_id, '42', 'a numeric userId becomes text');
    assert.deepEqual([identify?.user?.email, identify?.user?.first_name], ['ben@example.com', 'Ben']);
  });

  it('turns a RudderStack batch into add_to_cart and search, timed by originalTimestamp', () => {
    const [added, searched] = events(segment, 'segment', 'rudderstack-batch.json');
    assert.equal(added?.event_name, 'add_to_cart');
    assert.equal(added?.event_time, '2026-11-20T09:15:03.114Z');
    assert.equal(added?.event_id, '2116ef8c-efc3-4ca4-851b-02ee60dad6ff');
    assert.equal((added?.event_data['items'] as unknown[] | undefined)?.length, 1);
    assert.equal(searched?.event_name, 'search');
    assert.equal(searched?.event_data['search_term'], 'board games');
  });

  it('turns a GA4 Measurement Protocol body into one event per event, with its client, user and consent', () => {
    const es = events(ga4, 'ga4-mp', 'ga4-mp.json');
    assert.deepEqual(
      es.map((e) => e.event_name),
      ['purchase', 'view_content', 'lead'],
    );
    const [purchase, view, lead] = es;
    assert.equal(purchase?.anonymous_id, '1874934510.1700000000');
    assert.equal(purchase?.user_id, 'u-9912');
    assert.equal(purchase?.event_time, '2026-11-20T14:00:00.000Z');
    assert.deepEqual(purchase?.consent, { ad_user_data: 'granted', ad_personalization: 'denied' });
    assert.deepEqual(purchase?.event_data['items'], [
      {
        item_id: 'SKU_12345',
        item_name: 'Stan and Friends Tee',
        item_category: 'Apparel',
        price: 10.01,
        quantity: 3,
      },
    ]);
    assert.equal(view?.event_time, '2026-11-20T13:58:20.000Z', "an event's own timestamp_micros wins");
    assert.equal(view?.event_data['content_type'], 'product');
    assert.deepEqual([lead?.event_data['value'], lead?.event_data['currency']], [99, 'EUR']);
  });
});
