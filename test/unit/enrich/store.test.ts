/**
 * The enrichment step where the event is used: in `store` (after the digest, before the PII
 * policy, in the `enriched` column), in the decision layer (bots), in the Meta and GA4 mappings,
 * in the preview and in replays, each switch of settings.enrichment on its own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { countryDatabasePath, countryLookup, loadReferrerList } from '../../../adapters/enrichment.ts';
import { decideOne } from '../../../core/decision/decision.ts';
import { previewDelivery } from '../../../core/delivery/preview.ts';
import { storedEventFromRow } from '../../../core/delivery/replay.ts';
import { createEnricher, referrerTable } from '../../../core/enrich/index.ts';
import type { StoredEvent } from '../../../core/event.ts';
import { plan } from '../../../core/plan.ts';
import { decodeStorePush } from '../../../core/store/message.ts';
import { messageRows, type StoreConfig, storeConfig } from '../../../core/store/store.ts';
import { eventColumns } from '../../../core/warehouse/warehouse.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 6.2) AppleWebKit/536.6 (KHTML, like Gecko) Chrome/20.0.1090.0 Safari/536.6';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const EVENT_TIME = '2026-11-02T09:30:00.250Z';

const base: Settings = {
  name: 'test',
  project: 'test-project',
  region: 'europe-west1',
  topics: ['events'],
  enrichment: { geo: 'country' },
  pii: { drop: ['device.ip'] },
  destinations: [
    { id: 'meta', type: 'meta_capi', config: { pixel_id: '123456789012345' }, consent: [] },
    { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-ABC123' }, consent: [] },
    { id: 'hook', type: 'webhook', config: { url: 'https://hooks.example/in' }, consent: [] },
  ],
};
const data = {
  referrers: referrerTable(loadReferrerList()),
  geo: countryLookup(readFileSync(countryDatabasePath())),
};

const landing = {
  event_name: 'page_view',
  event_id: 'landing-1',
  event_time: EVENT_TIME,
  page: {
    url: 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=boots&gclid=Cj0KCQ-g&fbclid=IwAR-f',
    referrer: 'https://www.google.com/',
  },
  device: { ip: '193.0.6.139', user_agent: CHROME },
};

function configFor(settings: Settings): StoreConfig {
  const enrich = createEnricher(settings, data);
  return { ...storeConfig(settings, plan(settings)), ...(enrich ? { enrich } : {}) };
}

function rows(event: unknown, settings: Settings = base) {
  const decoded = decodeStorePush({
    message: {
      data: Buffer.from(JSON.stringify(event)).toString('base64'),
      attributes: {},
      messageId: '42',
      publishTime: EVENT_TIME,
    },
    subscription: 'projects/test-project/subscriptions/events-store',
  });
  assert.ok(decoded.ok);
  const out = messageRows(decoded.message, configFor(settings), Date.parse(EVENT_TIME));
  assert.equal(out.kind, 'event');
  if (out.kind !== 'event') throw new Error('not stored');
  return out;
}

describe('enrichment: in store, decisions, mappings, preview and replays', () => {
  it('stores what it derived in the enriched column, with the identity of the unenriched event', () => {
    const stored = rows(landing);
    const plain = rows(landing, { ...base, enrichment: { attribution: false, device: false, bots: false } });
    assert.equal(stored.row.json['payload_digest'], plain.row.json['payload_digest']);
    assert.equal(plain.row.json['enriched'], undefined);
    assert.deepEqual(stored.row.json['enriched'], {
      campaign: {
        source: 'google',
        medium: 'cpc',
        name: 'boots',
        gclid: 'Cj0KCQ-g',
        fbclid: 'IwAR-f',
        fbc: `fb.1.${Date.parse(EVENT_TIME)}.IwAR-f`,
      },
      channel: 'paid_search',
      referrer_host: 'www.google.com',
      referrer_source: 'Google',
      device: {
        browser: 'Chrome',
        browser_version: '20.0.1090.0',
        os: 'Windows',
        os_version: '8',
        type: 'desktop',
      },
      bot: false,
      geo: { country: 'NL' },
    });
  });

  it('derives the country from the full IP before the PII policy drops it', () => {
    const stored = rows(landing);
    assert.equal((stored.row.json['device'] as Record<string, unknown>)['ip'], undefined);
    assert.deepEqual((stored.row.json['enriched'] as Record<string, unknown>)['geo'], { country: 'NL' });
    assert.equal(
      stored.event.device?.['ip'],
      '193.0.6.139',
      'the decision layer still sees the event as sent',
    );
  });

  it('applies pii.drop and pii.hash_in_warehouse to enriched paths too', () => {
    const stored = rows(landing, {
      ...base,
      pii: { drop: ['enriched.campaign.gclid'], hash_in_warehouse: ['enriched.campaign.fbclid'] },
    });
    const campaign = (stored.row.json['enriched'] as { campaign: Record<string, string> }).campaign;
    assert.equal(campaign['gclid'], undefined);
    assert.match(campaign['fbclid'] ?? '', /^[0-9a-f]{64}$/);
    assert.equal(stored.event.enriched?.campaign?.gclid, 'Cj0KCQ-g', 'the decision layer still sees it');
  });

  it('each switch turns its enrichment off', () => {
    const e = (enrichment: NonNullable<Settings['enrichment']>) =>
      rows(landing, { ...base, enrichment }).row.json['enriched'] as Record<string, unknown>;
    assert.equal(e({ attribution: false, geo: 'country' })['channel'], undefined);
    assert.equal(e({ device: false })['device'], undefined);
    assert.equal(e({ bots: false })['bot'], undefined);
    assert.equal(e({})['geo'], undefined, 'geography is off by default');
  });

  it('the events table gains one nullable RECORD column, at the end, so BigQuery adds it in place', () => {
    const columns = eventColumns();
    const last = columns.find((c) => c.name === 'enriched');
    // Only columns added later follow it, NULLABLE too (trace_id: docs/observability.md).
    assert.deepEqual(
      columns.slice(columns.indexOf(last as (typeof columns)[number]) + 1).map((c) => `${c.name} ${c.mode}`),
      ['trace_id NULLABLE'],
    );
    assert.equal(last?.name, 'enriched');
    assert.equal(last?.type, 'RECORD');
    assert.equal(last?.mode, 'NULLABLE');
    assert.deepEqual(
      last?.fields?.map((f) => f.name),
      ['campaign', 'channel', 'referrer_host', 'referrer_source', 'device', 'bot', 'geo'],
    );
    const campaign = columns.find((c) => c.name === 'campaign');
    // Appended at the campaign's end (a nested field BigQuery adds in place): the later platforms'
    // click ids, then GA4's client id from `_ga` (#96).
    assert.deepEqual(
      campaign?.fields?.slice(-11).map((f) => f.name),
      [
        'gbraid',
        'wbraid',
        'msclkid',
        'sccid',
        'scid',
        'epik',
        'li_fat_id',
        'rdt_cid',
        'rdt_uuid',
        'twclid',
        'ga_client_id',
      ],
    );
  });

  describe('bots and the decision layer', () => {
    const bot: StoredEvent = { ...rows({ ...landing, device: { user_agent: GOOGLEBOT } }).event };
    const options = { isKnownEvent: () => true };
    const dest = (id: string) => base.destinations?.find((d) => d.id === id) as Destination;

    it('a crawler is flagged and kept from every platform by default', () => {
      assert.equal(bot.enriched?.bot, true);
      for (const id of ['meta', 'ga4']) {
        const d = decideOne(dest(id), bot, options);
        assert.equal(d.action, 'skip');
        assert.match(d.action === 'skip' ? d.reason : '', /^bot:/);
      }
    });

    it('conditions read the derived fields (enriched.geo.country, enriched.channel)', () => {
      const human = rows(landing).event;
      const only = (field: string, value: string) =>
        decideOne({ ...dest('meta'), conditions: [{ field, op: 'eq', value }] }, human, options).action;
      assert.equal(only('enriched.geo.country', 'NL'), 'send');
      assert.equal(only('enriched.geo.country', 'DE'), 'skip');
      assert.equal(only('enriched.channel', 'paid_search'), 'send');
    });

    it('webhooks get it by default, and a platform with bots: send', () => {
      assert.equal(decideOne(dest('hook'), bot, options).action, 'send');
      assert.equal(decideOne({ ...dest('meta'), bots: 'send' }, bot, options).action, 'send');
    });
  });

  describe('mappings and the preview', () => {
    const enrich = createEnricher(base, data);
    const preview = (id: string, event: Record<string, unknown>) => {
      const p = previewDelivery(base, id, event, new Date(EVENT_TIME), enrich ? { enrich } : {});
      assert.equal(p.outcome, 'send', JSON.stringify(p));
      return p.outcome === 'send' ? p.request.body : undefined;
    };

    it('Meta receives the fbc store built from the landing URL’s fbclid', () => {
      const body = preview('meta', landing) as { data: { user_data: { fbc?: string } }[] };
      assert.equal(body.data[0]?.user_data.fbc, `fb.1.${Date.parse(EVENT_TIME)}.IwAR-f`);
    });

    it('GA4 receives the campaign derived from the landing URL', () => {
      const body = preview('ga4', { ...landing, anonymous_id: 'a-1' }) as {
        events: { params: Record<string, unknown> }[];
      };
      const params = body.events[0]?.params ?? {};
      assert.deepEqual([params['source'], params['medium'], params['campaign']], ['google', 'cpc', 'boots']);
    });
  });

  it('a replay rebuilds the enrichment from its row, without BigQuery’s nulls', () => {
    const event = storedEventFromRow({
      event_id: 'e',
      event_name: 'page_view',
      event_time: EVENT_TIME,
      event_data: '{}',
      enriched: { campaign: { source: 'google', fbc: null }, bot: false, geo: null, channel: 'paid_search' },
    });
    assert.deepEqual(event.enriched, { campaign: { source: 'google' }, bot: false, channel: 'paid_search' });
  });
});
