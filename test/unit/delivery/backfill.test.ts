/**
 * Backfilling a destination added after its events were stored (core/delivery/backfill.ts,
 * docs/delivery.md#backfill), through the one slice replay (core/delivery/slice-replay.ts): events
 * stored before the destination went live are marked as a backfill (message and ledger row), the
 * platform's own age limit refuses what it would refuse (a `skipped` row naming the limit), and a
 * later withdrawal of consent by the same person narrows the consent as collected.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  ageRefusal,
  isBackfill,
  laterConsentOf,
  laterConsentParams,
  wentLiveOf,
} from '../../../core/delivery/backfill.ts';
import type { LedgerEntry } from '../../../core/delivery/ledger.ts';
import { DELIVERY_ATTRIBUTES, type DeliveryMessage } from '../../../core/delivery/message.ts';
import { sliceSender } from '../../../core/delivery/slice-replay.ts';
import type { StoredEvent } from '../../../core/event.ts';
import { FACTS_LIST } from '../../../core/platforms/facts.ts';
import type { Destination } from '../../../schemas/settings.ts';

const NOW = new Date('2026-11-27T12:00:00.000Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000).toISOString();

const platform = (type: string, config: Record<string, string>, secret: string): Destination =>
  ({ id: type, type, config, secrets: { [secret]: 'x' } }) as Destination;
const META = platform('meta_capi', { pixel_id: '123456789012345' }, 'access_token');
const GA4 = platform('ga4_mp', { measurement_id: 'G-ABC123' }, 'api_secret');
const HOOK: Destination = {
  id: 'hook',
  type: 'webhook',
  base_url: 'https://hook.example',
  secrets: { signing_key: 'k' },
} as Destination;

const GRANTED = { ads: 'granted', ad_user_data: 'granted', analytics: 'granted' };

function event(id: string, ageHours: number, extra: Partial<StoredEvent> = {}): StoredEvent {
  return {
    event_id: id,
    event_name: 'page_view',
    event_time: hoursAgo(ageHours),
    received_at: hoursAgo(ageHours),
    anonymous_id: `anon-${id}`,
    consent: GRANTED,
    event_data: {},
    payload_digest: `digest-${id}`,
    ...extra,
  } as StoredEvent;
}

/** A stored event as a warehouse row (storedEventFromRow reads it back). */
const row = (e: StoredEvent): Record<string, unknown> => ({ ...e, event_data: JSON.stringify(e.event_data) });

async function send(
  destination: Destination,
  events: readonly StoredEvent[],
  options: { wentLive?: Date; later?: readonly StoredEvent[] } = {},
) {
  const published: DeliveryMessage[] = [];
  const ledger: LedgerEntry[] = [];
  const page = await sliceSender({
    destination,
    publish: async (m) => published.push(...m),
    writeLedger: async (e) => ledger.push(...e),
    now: () => NOW,
    ...(options.wentLive ? { wentLive: options.wentLive } : {}),
    ...(options.later ? { laterConsent: async () => options.later ?? [] } : {}),
  }).page(events.map(row));
  return { page, published, ledger };
}

describe('backfill: a destination added after its events were stored', () => {
  it('knows when the destination went live from its first ledger row outside a replay, else now', () => {
    assert.equal(
      wentLiveOf([{ went_live: { value: '2026-11-26T08:00:00.000Z' } }], NOW).toISOString(),
      '2026-11-26T08:00:00.000Z',
    );
    assert.equal(wentLiveOf([{ went_live: null }], NOW), NOW);
    assert.equal(wentLiveOf([], NOW), NOW);
    const live = new Date(hoursAgo(10));
    assert.equal(isBackfill(event('a', 11), live), true);
    assert.equal(isBackfill(event('b', 9), live), false);
    assert.equal(isBackfill(event('c', 11), undefined), false);
  });

  it('marks the messages and skipped rows of events stored before it went live, and only those', async () => {
    const r = await send(HOOK, [event('old', 20), event('new', 2)], { wentLive: new Date(hoursAgo(10)) });
    assert.deepEqual([r.page.republished, r.page.backfilled], [2, 1]);
    const marked = r.published.map((m) => [
      m.attributes[DELIVERY_ATTRIBUTES.eventId],
      m.attributes[DELIVERY_ATTRIBUTES.backfill],
      m.attributes[DELIVERY_ATTRIBUTES.replay],
    ]);
    assert.deepEqual(marked, [
      ['old', 'true', 'true'],
      ['new', undefined, 'true'],
    ]);
    // A refusal of a backfilled event is a skipped row that says so.
    const denying = { ...HOOK, events: { deny: ['page_view'] } } as Destination;
    const refused = await send(denying, [event('off', 20)], { wentLive: new Date(hoursAgo(10)) });
    const skip = refused.ledger[0]?.row;
    assert.ok(skip);
    assert.deepEqual([skip.status, skip.replay, skip.backfill], ['skipped', true, true]);
  });

  it('skips what the platform’s age limit refuses, naming the limit and its source, and counts by reason', async () => {
    // Meta: 7 days for web events; GA4: 72 hours; a webhook has none.
    const r = await send(META, [event('young', 24 * 6), event('old', 24 * 8), event('older', 24 * 9)]);
    assert.deepEqual([r.page.republished, r.page.skipped], [1, 2]);
    const reason = r.ledger[0]?.row.reason ?? '';
    assert.match(reason, /^age limit: .* older than Meta's 7-day limit for web events/);
    assert.match(reason, /developers\.facebook\.com/);
    assert.deepEqual(Object.values(r.page.reasons), [2]);
    assert.match(Object.keys(r.page.reasons)[0] ?? '', /Meta's 7-day limit/);
    assert.doesNotMatch(Object.keys(r.page.reasons)[0] ?? '', /event_time/);

    const ga4 = await send(GA4, [event('a', 71), event('b', 73)]);
    assert.deepEqual(
      ga4.ledger.map((e) => e.row.event_id),
      ['b'],
    );
    assert.match(ga4.ledger[0]?.row.reason ?? '', /GA4's 72-hour limit/);
    assert.equal((await send(HOOK, [event('c', 24 * 400)])).page.republished, 1);
  });

  it('takes the longer limit a destination’s config selects (Meta physical_store: 62 days)', () => {
    const store = { ...META, config: { pixel_id: '123456789012345', action_source: 'physical_store' } };
    assert.equal(ageRefusal(store as Destination, event('s', 24 * 30), NOW), undefined);
    assert.match(ageRefusal(store as Destination, event('s', 24 * 63), NOW) ?? '', /62-day limit/);
    assert.match(ageRefusal(META, event('w', 24 * 30), NOW) ?? '', /7-day limit/);
  });

  it('narrows consent as collected by the same person’s later withdrawal, never widens it', async () => {
    const granted = event('e1', 20, { user_id: 'u1' } as Partial<StoredEvent>);
    const withdrawn = event('later', 5, {
      user_id: 'u1',
      consent: { ads: 'denied', ad_user_data: 'denied', analytics: 'granted' },
    } as Partial<StoredEvent>);
    const r = await send(META, [granted], { later: [withdrawn] });
    assert.equal(r.page.republished, 0);
    assert.match(r.ledger[0]?.row.reason ?? '', /^consent withdrawn after collection: /);

    // An event collected without consent stays unsent, whatever the person granted later.
    const refused = event('e2', 20, { user_id: 'u2', consent: { ads: 'denied' } } as Partial<StoredEvent>);
    const regranted = event('later2', 5, { user_id: 'u2', consent: GRANTED } as Partial<StoredEvent>);
    const r2 = await send(META, [refused], { later: [regranted] });
    assert.equal(r2.page.republished, 0);
    assert.doesNotMatch(r2.ledger[0]?.row.reason ?? '', /withdrawn/);

    // Another person's withdrawal, or one recorded before the event, changes nothing.
    const before = { ...withdrawn, received_at: hoursAgo(30), event_time: hoursAgo(30) };
    const other = { ...withdrawn, user_id: 'u9' };
    assert.equal((await send(META, [granted], { later: [before, other] })).page.republished, 1);
  });

  it('names every platform’s age limit and its source in docs/delivery.md', () => {
    const docs = readFileSync(new URL('../../../docs/delivery.md', import.meta.url), 'utf8');
    const limits = FACTS_LIST.filter((f) => f.ageLimit !== undefined);
    assert.ok(limits.length >= 3);
    for (const f of limits) {
      const table = docs.slice(docs.indexOf('### Age limits'));
      const line = table.split('\n').find((l) => l.startsWith(`| ${f.names.short} |`));
      assert.ok(line?.includes(f.ageLimit?.source ?? '?'), `${f.names.short}: ${line}`);
    }
  });

  it('picks the person’s newest later consent and asks only for the persons of a page', () => {
    const e = event('e', 20, { user_id: 'u' } as Partial<StoredEvent>);
    const l1 = event('l1', 10, { user_id: 'u', consent: { ads: 'denied' } } as Partial<StoredEvent>);
    const l2 = event('l2', 5, { user_id: 'u', consent: GRANTED } as Partial<StoredEvent>);
    assert.deepEqual(laterConsentOf(e, [l2, l1]), GRANTED);
    const params = laterConsentParams([e, event('x', 30)]);
    assert.deepEqual(params?.users, ['u']);
    assert.deepEqual(params?.anonymous, ['anon-e', 'anon-x']);
    assert.equal(params?.since.toISOString(), hoursAgo(30));
    assert.equal(
      laterConsentParams([{ ...e, user_id: undefined, anonymous_id: undefined } as never]),
      undefined,
    );
  });
});
