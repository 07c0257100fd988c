/**
 * A server source joins the tag's GA4 client (#96): GA4's client id for the tag's events is the
 * `_ga` cookie's (the gateway's `campaign.ga_client_id`), else the tag's anonymous id; a server
 * source that passes the same — Stripe's `metadata.ga_client_id`, written at checkout from the
 * `_ga` cookie's last two parts, else from `analytics.user().anonymousId()` — joins it. Through the
 * stock Stripe translator and the GA4 driver, both events give one `client_id`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { StoredEvent } from '../../../core/event.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { translate } from '../../../core/translate/index.ts';
import { sourceTranslator } from '../../../core/translate/sources.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { sourceCatalogue } from '../../support/source-catalogue.ts';

const GA4: Destination = { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-TEST' } };
const SAMPLE = 'examples/translators/samples/stripe-checkout-session-completed.json';
/** The tag's anonymous id for a visitor who granted analytics (kept in its cookie). */
const TAG_ID = '6f1c2a4e-3b7d-4c1e-9a8b-2d5e7f901234';

function clientIdOf(event: StoredEvent): unknown {
  const prepared = ga4MpDriver.prepare(event, {
    destination: GA4,
    secrets: { api_secret: 's' },
    now: new Date(),
  });
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  return (JSON.parse(prepared.request.body) as Record<string, unknown>)['client_id'];
}

describe('GA4 client id: a server source joins the tag’s visitor (#96)', () => {
  /** The Stripe purchase whose metadata carries `ga_client_id`, as stored. */
  function stripePurchase(gaClientId: string): StoredEvent {
    const stripe = sourceCatalogue().find((s) => s.name === 'stripe');
    assert.ok(stripe);
    const { spec } = sourceTranslator(stripe, { consent: ['analytics'] });
    const body = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { data: { object: Record<string, unknown> } };
    body.data.object['metadata'] = { ga_client_id: gaClientId };
    const r = translate({
      translator: 'stripe',
      spec: spec as never,
      eventName: String(spec['event'] ?? 'purchase'),
      body: new TextEncoder().encode(JSON.stringify(body)),
      contentType: 'application/json',
      headers: {},
    });
    assert.ok(r.ok && r.rows.length === 1, JSON.stringify(r));
    return { ...(r.rows[0]?.event as object), event_data: {} } as unknown as StoredEvent;
  }

  it('Stripe’s metadata.ga_client_id carrying the tag’s anonymous id gives GA4 the same client_id (no _ga)', () => {
    const fromStripe = stripePurchase(TAG_ID);
    assert.equal(fromStripe.anonymous_id, TAG_ID);
    const fromTag: StoredEvent = {
      event_name: 'page_view',
      event_id: 'e-tag',
      event_time: new Date(Date.now() - 60_000).toISOString(),
      anonymous_id: TAG_ID,
      consent: { analytics: 'granted' },
      event_data: {},
    };
    assert.equal(clientIdOf(fromTag), TAG_ID);
    assert.equal(clientIdOf({ ...fromStripe, event_time: fromTag.event_time }), TAG_ID);
  });

  it('with a _ga on the page, its client id in the metadata gives GA4 the tag events’ client_id', () => {
    const GA = '1874934510.1700000001';
    const fromStripe = stripePurchase(GA);
    const fromTag: StoredEvent = {
      event_name: 'page_view',
      event_id: 'e-tag',
      event_time: new Date(Date.now() - 60_000).toISOString(),
      anonymous_id: TAG_ID,
      campaign: { ga_client_id: GA },
      consent: { analytics: 'granted' },
      event_data: {},
    };
    assert.equal(clientIdOf(fromTag), GA);
    assert.equal(clientIdOf({ ...fromStripe, event_time: fromTag.event_time }), GA);
  });
});
