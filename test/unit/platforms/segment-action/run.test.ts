/**
 * The runtime (adapters/segment-actions/run.ts) with an injected fetch: URLs moved under
 * `base_url`, the settings the actions see, OAuth destinations' access token as a bearer token,
 * and what it refuses before any request.
 */
import assert from 'node:assert/strict';
import { runSegmentAction, runSegmentEvent, underBaseUrl } from '../../../../adapters/segment-actions/run.ts';
import type { StoredEvent } from '../../../../core/event.ts';
import type { Destination } from '../../../../schemas/settings.ts';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const identify: StoredEvent = {
  event_name: 'user_identified',
  event_id: 'evt-9',
  event_time: '2026-11-24T11:00:00.000Z',
  user_id: 'u-9',
  user: { email: 'ada@example.com', first_name: 'Ada' },
  event_data: {},
};

/** A segment_action destination of that folder, with the rest of its settings. */
const segmentDestination = (slug: string, rest: Partial<Destination>): Destination => ({
  id: slug,
  type: 'segment_action',
  destination: slug,
  ...rest,
});

/** A fetch that records each call and answers 200 with a JSON body. */
function recording(body: unknown = {}) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init });
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

describe('segment_action: the runtime', () => {
  it('moves a URL under base_url with its host as the first path segment, query kept', () => {
    assert.equal(
      underBaseUrl('https://a.klaviyo.com/api/events/?x=1', 'http://127.0.0.1:8099/capture/'),
      'http://127.0.0.1:8099/capture/a.klaviyo.com/api/events/?x=1',
    );
    assert.equal(underBaseUrl('https://a.klaviyo.com/api/', undefined), 'https://a.klaviyo.com/api/');
  });

  it('HubSpot (OAuth): the access_token secret is sent as a bearer token; upsertContact from its presets', async () => {
    const { fetch, calls } = recording({ id: '1' });
    const hubspot: Destination = {
      id: 'hubspot',
      type: 'segment_action',
      destination: 'hubspot',
      base_url: 'http://stand.in',
      secrets: { access_token: 'HUBSPOT_TOKEN' },
      actions: [{ action: 'upsertContact' }],
    };
    const r = await runSegmentAction(
      identify,
      hubspot,
      { access_token: 'pat-na1-secret' },
      { fetch, now: NOW },
    );
    assert.deepEqual(r.outcomes, [
      { action: 'upsertContact', outcome: { status: 'delivered', httpStatus: 200 } },
    ]);
    const first = calls[0];
    assert.ok(first);
    assert.match(first.url, /^http:\/\/stand\.in\/api\.hubapi\.com\//);
    assert.equal(new Headers(first.init?.headers).get('authorization'), 'Bearer pat-na1-secret');
    assert.match(String(first.init?.body), /ada@example\.com/);
    // What the ledger and the debugger see: the platform's URL without its query.
    assert.match(r.requests[0]?.url ?? '', /^https:\/\/api\.hubapi\.com\//);
  });

  it('an OAuth destination without its access token is refused before any request', async () => {
    const { fetch, calls } = recording();
    const r = await runSegmentAction(
      identify,
      { id: 'h', type: 'segment_action', destination: 'hubspot', actions: [{ action: 'upsertContact' }] },
      {},
      { fetch, now: NOW },
    );
    assert.equal(r.outcomes[0]?.outcome.status, 'rejected');
    assert.match(
      r.outcomes[0]?.outcome.status === 'rejected' ? r.outcomes[0].outcome.reason : '',
      /name an oauth2 connection/,
    );
    assert.equal(calls.length, 0);
  });

  it('refuses an unknown destination, settings its schema refuses, and an unknown action, sending nothing', async () => {
    const { fetch, calls } = recording();
    const reasonOf = async (d: Destination, secrets: Record<string, string> = {}) => {
      const r = await runSegmentAction(identify, d, secrets, { fetch, now: NOW });
      const o = r.outcomes[0]?.outcome;
      return o && o.status === 'rejected' ? o.reason : o?.status;
    };
    const d: Destination = {
      id: 'k',
      type: 'segment_action',
      destination: 'klaviyo',
      actions: [{ action: 'upsertProfile' }],
    };
    assert.equal(
      await reasonOf({ ...d, destination: '../klaviyo' }),
      'no Segment Action Destination "../klaviyo" is installed',
    );
    assert.match(String(await reasonOf(d)), /^settings refused by klaviyo: .*api_key/);
    assert.equal(
      await reasonOf({ ...d, actions: [{ action: 'nope' }] }, { api_key: 'k' }),
      'klaviyo has no action nope',
    );
    assert.equal(calls.length, 0);
  });

  it('an action whose subscription does not take the event is left out of the outcomes', async () => {
    const { fetch, calls } = recording();
    const r = await runSegmentAction(
      identify,
      { id: 'k', type: 'segment_action', destination: 'klaviyo', actions: [{ action: 'trackEvent' }] },
      { api_key: 'k' },
      { fetch, now: NOW },
    );
    assert.deepEqual(r.outcomes, []);
    assert.equal(calls.length, 0);
  });

  it('runs a Segment event as given; a field mapped to null is not sent; what an action threw is kept as thrown', async () => {
    const { fetch, calls } = recording();
    const slack = segmentDestination('slack', {
      actions: [
        {
          action: 'postToChannel',
          when: 'type = "track"',
          mapping: {
            url: 'https://hooks.slack.com/services/T/B/X',
            text: { '@path': '$.event' },
            username: null,
          },
        },
      ],
    });
    const event = { type: 'track', event: 'Quote Requested', messageId: 'm-1', timestamp: NOW.toISOString() };
    const r = await runSegmentEvent(event, slack, {}, { fetch, now: NOW });
    assert.equal(r.outcomes[0]?.outcome.status, 'delivered');
    assert.deepEqual(r.thrown, []);
    const body = JSON.parse(String(calls[0]?.init?.body)) as Record<string, unknown>;
    assert.equal(body['text'], 'Quote Requested');
    // Its default (`Segment`) is cleared: the field is left out, not sent as null.
    assert.equal(Object.hasOwn(body, 'username'), false);
    const noText = {
      ...slack,
      actions: [
        {
          action: 'postToChannel',
          when: 'type = "track"',
          mapping: { url: 'https://hooks.slack.com/services/T/B/X', text: null },
        },
      ],
    };
    const refused = await runSegmentEvent(event, noText, {}, { fetch, now: NOW });
    assert.equal(refused.outcomes[0]?.outcome.status, 'rejected');
    assert.equal(
      (refused.thrown[0] as Error).message,
      "The root value is missing the required field 'text'.",
    );
    assert.equal(calls.length, 1);
  });

  it('sends header names as the request was built (Twilio’s form body: node-fetch’s `Content-Type`)', async () => {
    const { fetch, calls } = recording();
    const twilio = segmentDestination('twilio', {
      config: { accountId: 'AC1', phoneNumber: '+15550000000' },
      actions: [{ action: 'sendSMS', mapping: { To: '+15551111111', Body: 'Hi' } }],
    });
    const event = { type: 'track', event: 'Signed Up', messageId: 'm-2', timestamp: NOW.toISOString() };
    const r = await runSegmentEvent(event, twilio, { token: 'tok' }, { fetch, now: NOW });
    assert.equal(r.outcomes[0]?.outcome.status, 'delivered');
    assert.deepEqual(Object.keys(calls[0]?.init?.headers ?? {}).sort(), [
      'Content-Type',
      'authorization',
      'user-agent',
    ]);
    assert.equal(String(calls[0]?.init?.body), 'From=%2B15550000000&To=%2B15551111111&Body=Hi');
  });

  describe('Segment’s presets', () => {
    // The identify's person, as a purchase and as a page view.
    const as = (over: Partial<StoredEvent>): StoredEvent => ({ ...identify, ...over });
    const purchase = as({
      event_name: 'purchase',
      event_id: 'evt-p1',
      event_data: {
        transaction_id: 'o-1',
        value: 42.5,
        currency: 'EUR',
        items: [{ item_id: 'sku-1', item_name: 'Mug', price: 42.5, quantity: 1 }],
      },
    });
    const page = as({
      event_name: 'page_view',
      event_id: 'evt-pv',
      page: { url: 'https://shop.example/mugs', title: 'Mugs' },
    });
    const run = async (
      slug: string,
      event: StoredEvent,
      secrets: Record<string, string>,
      actions?: Destination['actions'],
    ) => {
      const { fetch, calls } = recording({ code: 200, events_ingested: 1, msg: 'ok' });
      const d: Destination = {
        id: slug,
        type: 'segment_action',
        destination: slug,
        base_url: 'http://stand.in',
        secrets: Object.fromEntries(Object.keys(secrets).map((k) => [k, k.toUpperCase()])),
        ...(actions ? { actions } : {}),
      };
      const r = await runSegmentAction(event, d, secrets, { fetch, now: NOW });
      return { r, calls };
    };

    it('Iterable without actions: a purchase is one trackPurchase request with its total; a page view none', async () => {
      const { r, calls } = await run('iterable', purchase, { apiKey: 'k-iterable' });
      assert.deepEqual(
        r.outcomes.map((o) => o.action),
        ['trackPurchase'],
      );
      assert.deepEqual(
        calls.map((c) => new URL(c.url).pathname),
        ['/api.iterable.com/api/commerce/trackPurchase'],
      );
      const body = JSON.parse(String(calls[0]?.init?.body)) as { total?: number; items?: { id?: string }[] };
      assert.equal(body.total, 42.5);
      assert.equal(body.items?.[0]?.id, 'sku-1');
      const none = await run('iterable', page, { apiKey: 'k-iterable' });
      assert.deepEqual([none.r.outcomes, none.calls.length], [[], 0]);
    });

    it('Mixpanel and Amplitude without actions: one request per purchase, carrying revenue', async () => {
      for (const [slug, secrets, action] of [
        ['mixpanel', { projectToken: 'k-token', apiSecret: 'k-secret' }, 'trackPurchase'],
        ['amplitude', { apiKey: 'k-amplitude', secretKey: 'k-secret' }, 'logPurchase'],
      ] as const) {
        const { r, calls } = await run(slug, purchase, secrets);
        assert.deepEqual(
          r.outcomes.map((o) => o.action),
          [action],
          slug,
        );
        assert.equal(calls.length, 1, `${slug}: ${calls.map((c) => c.url).join(', ')}`);
        assert.match(String(calls[0]?.init?.body), /"revenue":42\.5/, slug);
      }
      // A server's event has no device IP: Mixpanel gets its documented "0", not the function's address.
      const { calls } = await run('mixpanel', purchase, { projectToken: 'k-token', apiSecret: 'k-secret' });
      assert.match(decodeURIComponent(String(calls[0]?.init?.body)), /"ip":"0"/);
    });

    it('a named action without when runs under its presets: Mixpanel trackEvent takes a page view as “Viewed …”', async () => {
      const { r, calls } = await run('mixpanel', page, { projectToken: 'k-token', apiSecret: 'k-secret' }, [
        { action: 'trackEvent' },
        { action: 'trackPurchase' },
      ]);
      assert.deepEqual(
        r.outcomes.map((o) => o.action),
        ['trackEvent'],
      );
      assert.match(String(calls[0]?.init?.body), /"event":"Viewed Mugs"/);
      const bought = await run('mixpanel', purchase, { projectToken: 'k-token', apiSecret: 'k-secret' }, [
        { action: 'trackEvent' },
        { action: 'trackPurchase' },
      ]);
      assert.deepEqual(
        bought.r.outcomes.map((o) => o.action),
        ['trackPurchase'],
      );
    });
  });
});
