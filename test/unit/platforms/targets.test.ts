import assert from 'node:assert/strict';
import { checkGa4Request, ga4NameProblem, trimGa4Request } from '../../../core/platforms/ga4/target.ts';
import { checkMetaRequest } from '../../../core/platforms/meta/target.ts';
import { checkTikTokRequest } from '../../../core/platforms/tiktok/target.ts';

const NOW = new Date('2024-11-16T08:00:00.000Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const H = '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f';

const metaEvent = (over: Record<string, unknown> = {}) => ({
  event_name: 'ViewContent',
  event_time: NOW_S - 60,
  action_source: 'website',
  event_source_url: 'https://shop.example/p/1',
  user_data: { em: [H], client_user_agent: 'Mozilla/5.0', client_ip_address: '1.2.3.4' },
  ...over,
});
const fields = (v: readonly { field: string }[]) => v.map((x) => x.field);

describe('targets: Meta CAPI', () => {
  it('accepts the documented example shape', () => {
    assert.deepEqual(checkMetaRequest({ data: [metaEvent()], test_event_code: 'TEST123' }, NOW), []);
  });
  it('refuses more than 1000 events and an empty batch', () => {
    assert.deepEqual(
      fields(checkMetaRequest({ data: Array.from({ length: 1001 }, () => metaEvent()) }, NOW)),
      ['data'],
    );
    assert.deepEqual(fields(checkMetaRequest({ data: [] }, NOW)), ['data']);
  });
  it('refuses event_time older than 7 days (62 for physical_store)', () => {
    const old = NOW_S - 8 * 86400;
    assert.deepEqual(fields(checkMetaRequest({ data: [metaEvent({ event_time: old })] }, NOW)), [
      'data[0].event_time',
    ]);
    const store = metaEvent({ event_time: old, action_source: 'physical_store' });
    assert.deepEqual(checkMetaRequest({ data: [store] }, NOW), []);
  });
  it('website events need client_user_agent and event_source_url', () => {
    const e = metaEvent({ event_source_url: undefined, user_data: { em: [H] } });
    assert.deepEqual(fields(checkMetaRequest({ data: [e] }, NOW)).sort(), [
      'data[0].event_source_url',
      'data[0].user_data.client_user_agent',
    ]);
    assert.deepEqual(checkMetaRequest({ data: [{ ...e, action_source: 'system_generated' }] }, NOW), []);
  });
  it('refuses unhashed PII and hashed ip/user agent/fbp', () => {
    const plain = metaEvent({ user_data: { em: ['john@example.com'], client_user_agent: 'x' } });
    assert.deepEqual(fields(checkMetaRequest({ data: [plain] }, NOW)), ['data[0].user_data.em']);
    const hashedIp = metaEvent({ user_data: { em: H, client_user_agent: 'x', client_ip_address: H } });
    assert.deepEqual(fields(checkMetaRequest({ data: [hashedIp] }, NOW)), [
      'data[0].user_data.client_ip_address',
    ]);
  });
  it('Purchase needs value and currency', () => {
    const v = checkMetaRequest({ data: [metaEvent({ event_name: 'Purchase' })] }, NOW);
    assert.deepEqual(fields(v).sort(), ['data[0].custom_data.currency', 'data[0].custom_data.value']);
  });
});

const ga4 = (over: Record<string, unknown> = {}, params: Record<string, unknown> = {}) => ({
  client_id: '123.456',
  events: [{ name: 'view_item', params: { currency: 'USD', value: 1, ...params } }],
  ...over,
});

describe('targets: GA4 MP', () => {
  it('accepts the documented example', () => {
    assert.deepEqual(checkGa4Request(ga4({ timestamp_micros: NOW.getTime() * 1000 - 1000 }), NOW), []);
  });
  it('limits: 25 events, 25 params, < 130 kB, 100-character values', () => {
    const many = { client_id: 'c', events: Array.from({ length: 26 }, () => ({ name: 'x' })) };
    assert.deepEqual(fields(checkGa4Request(many, NOW)), ['events']);
    const params = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`p${i}`, i]));
    assert.deepEqual(fields(checkGa4Request({ client_id: 'c', events: [{ name: 'x', params }] }, NOW)), [
      'events[0].params',
    ]);
    const items = Array.from({ length: 1500 }, (_, i) => ({
      item_id: `SKU-${i}`,
      item_name: 'n'.repeat(90),
    }));
    const big = { client_id: 'c', events: [{ name: 'purchase', params: { items } }] };
    assert.ok(fields(checkGa4Request(big, NOW)).includes('(root)'));
    assert.deepEqual(fields(checkGa4Request(ga4({}, { long: 'x'.repeat(101) }), NOW)), [
      'events[0].params.long',
    ]);
    assert.deepEqual(checkGa4Request(ga4({}, { page_location: `https://x/${'a'.repeat(900)}` }), NOW), []);
  });
  it('name rules, reserved names and prefixes', () => {
    assert.match(ga4NameProblem('_badEventName', 'event') ?? '', /reserved prefix/);
    assert.match(ga4NameProblem('1abc', 'event') ?? '', /start with a letter/);
    assert.match(ga4NameProblem('session_start', 'event') ?? '', /reserved/);
    assert.match(ga4NameProblem('firebase_conversion', 'param') ?? '', /reserved/);
    assert.match(ga4NameProblem('a'.repeat(41), 'event') ?? '', /longer than 40/);
    assert.match(ga4NameProblem('a'.repeat(25), 'user_property') ?? '', /longer than 24/);
    assert.equal(ga4NameProblem('quote_requested', 'event'), undefined);
    assert.deepEqual(fields(checkGa4Request(ga4({}, { ga_x: 1 }), NOW)), ['events[0].params.ga_x']);
  });
  it('72 h backdating, client_id for web, items need an id or a name', () => {
    const old = (NOW.getTime() - 73 * 3600 * 1000) * 1000;
    assert.deepEqual(fields(checkGa4Request(ga4({ timestamp_micros: old }), NOW)), ['timestamp_micros']);
    assert.deepEqual(fields(checkGa4Request(ga4({ client_id: undefined }), NOW)), ['client_id']);
    assert.deepEqual(fields(checkGa4Request(ga4({}, { items: [{ price: 1 }] }), NOW)), [
      'events[0].params.items[0]',
    ]);
  });
});

const tiktok = (row: Record<string, unknown> = {}) => ({
  event_source: 'web',
  event_source_id: 'CABC',
  data: [{ event: 'ViewContent', event_time: NOW_S, user: { email: H, ip: '1.2.3.4' }, ...row }],
});

describe('targets: TikTok Events API', () => {
  it('accepts a valid request', () => {
    assert.deepEqual(checkTikTokRequest(tiktok()), []);
  });
  it('refuses more than 1000 rows and unhashed email/phone/external_id', () => {
    const many = { ...tiktok(), data: Array.from({ length: 1001 }, () => tiktok().data[0]) };
    assert.deepEqual(fields(checkTikTokRequest(many)), ['data']);
    assert.deepEqual(fields(checkTikTokRequest(tiktok({ user: { phone: '+16505551212' } }))), [
      'data[0].user.phone',
    ]);
    assert.deepEqual(fields(checkTikTokRequest(tiktok({ user: { ip: H } }))), ['data[0].user.ip']);
  });
  it('refuses a contents line without its content_id, which TikTok requires', () => {
    const lines = (contents: unknown[]) => tiktok({ properties: { contents, currency: 'USD', value: 3 } });
    assert.deepEqual(checkTikTokRequest(lines([{ content_id: 'SKU1', quantity: 1 }])), []);
    assert.deepEqual(fields(checkTikTokRequest(lines([{ content_id: 'SKU1' }, { quantity: 2, price: 1 }]))), [
      'data[0].properties.contents[1].content_id',
    ]);
  });
  it('needs event_source_id and a known event_source', () => {
    const v = checkTikTokRequest({ ...tiktok(), event_source: 'tv', event_source_id: undefined });
    assert.deepEqual(fields(v).sort(), ['event_source', 'event_source_id']);
  });
});

describe('targets: GA4 parts cut or left out instead of losing the event', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('cuts a parameter to its limit (100, page_location 1000) and leaves the rest alone', () => {
    const body = {
      client_id: 'c1',
      events: [
        {
          name: 'page_view',
          params: { page_title: 't'.repeat(301), page_location: 'u'.repeat(900), note: 'n'.repeat(101) },
        },
      ],
    };
    const note = trimGa4Request(body, now);
    const params = body.events[0]!.params;
    assert.equal(params.page_title.length, 300);
    assert.equal(params.page_location.length, 900);
    assert.equal(params.note.length, 100);
    assert.equal(
      note,
      'cut events[0].params.page_title to 300 characters (was 301); cut events[0].params.note to 100 characters (was 101)',
    );
    assert.deepEqual(checkGa4Request(body, now), []);
  });

  it('changes nothing in a clean request', () => {
    const body = {
      client_id: 'c1',
      timestamp_micros: now.getTime() * 1000 - 1,
      events: [{ name: 'purchase', params: { value: 1, currency: 'EUR' } }],
    };
    assert.equal(trimGa4Request(body, now), undefined);
    assert.equal(body.events[0]!.params.value, 1);
  });
});
