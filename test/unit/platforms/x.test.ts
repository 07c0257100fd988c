/**
 * X Conversions API (docs/platforms.md, "X"): OAuth 1.0a signing checked against X's own
 * published signature example, conversions routed to the X event a destination names (an
 * unrouted one is skipped; a name that is not an event id is refused by the settings check),
 * identifiers each of one kind, dedup by conversion_id, batches of at most 500, how X's answers are
 * read — and the driver against its strict local stand-in, which verifies the signature.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decide } from '../../../core/decision/decision.ts';
import { previewDelivery } from '../../../core/delivery/preview.ts';
import type { StoredEvent } from '../../../core/event.ts';
import { plan } from '../../../core/plan.ts';
import type { DriverContext } from '../../../core/platforms/driver.ts';
import { xRequest } from '../../../core/platforms/x/driver.ts';
import { xDriver } from '../../../core/platforms/x/index.ts';
import { hmacSha1, signatureBase } from '../../../core/platforms/x/oauth1.ts';
import { checkSettings } from '../../../core/settings.ts';
import { type PlatformReceiver, startXReceiver } from '../../../local/platforms/index.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { NOW, sendOverHttp, storedEvent } from '../linkage/sample-events.ts';

const h = (s: string) => createHash('sha256').update(s).digest('hex');
const X: Destination = {
  id: 'x',
  type: 'x_conversions',
  config: { pixel_id: 'o8z6j' },
  secrets: {
    consumer_key: 'X_CONSUMER_KEY',
    consumer_secret: 'X_CONSUMER_SECRET',
    access_token: 'X_ACCESS_TOKEN',
    access_token_secret: 'X_ACCESS_TOKEN_SECRET',
  },
  mappings: { purchase: { event: 'o87ne' }, lead: { event: 'tw-o8z6j-o87nf' } },
};
const SECRETS = { consumer_key: 'ck', consumer_secret: 'cs', access_token: 'at', access_token_secret: 'ats' };
const ctxOf = (d: Partial<Destination> = {}, secrets = SECRETS): DriverContext => ({
  destination: { ...X, ...d },
  secrets,
  now: NOW,
});
const conversionOf = (event: StoredEvent) => {
  const p = xDriver.prepare(event, ctxOf());
  if (!p.ok) assert.fail(p.reason);
  return {
    request: p.request,
    conversion: (JSON.parse(p.request.body) as { conversions: Record<string, unknown>[] }).conversions[0],
  };
};

describe('X Conversions API', () => {
  it("OAuth 1.0a: the signature of X's published example ('Creating a signature')", () => {
    const params = {
      status: 'Hello Ladies + Gentlemen, a signed OAuth request!',
      oauth_consumer_key: 'xvz1evFS4wEEPTGEFPHBog',
      oauth_nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
      oauth_signature_method: 'HMAC-SHA1',
      oauth_timestamp: '1318622958',
      oauth_token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
      oauth_version: '1.0',
    };
    const base = signatureBase(
      'post',
      'https://api.twitter.com/1.1/statuses/update.json?include_entities=true',
      params,
    );
    assert.ok(
      base.startsWith(
        'POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key',
      ),
      base,
    );
    assert.equal(
      hmacSha1(
        base,
        'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
        'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
      ),
      'hCtSmYh+iHYCEqBWrE7C7hYmtUk=',
    );
  });

  it('a purchase goes to its X event with the event id as conversion_id, identifiers each of one kind', () => {
    const event = {
      ...storedEvent('purchase'),
      campaign: { twclid: '23opevjt88psuo13lu8d020qkn' },
    } as StoredEvent;
    const { request, conversion } = conversionOf(event);
    assert.equal(request.url, 'https://ads-api.x.com/12/measurement/conversions/o8z6j');
    assert.match(
      request.headers['authorization'] ?? '',
      /^OAuth oauth_consumer_key="ck", oauth_nonce="[0-9a-f]{32}", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1731744000", oauth_token="at", oauth_version="1.0", oauth_signature="[^"]+"$/,
    );
    assert.deepEqual(conversion, {
      event_id: 'o87ne',
      conversion_time: '2024-11-16T07:17:34.567Z',
      conversion_id: 'evt-purchase',
      identifiers: [
        { twclid: '23opevjt88psuo13lu8d020qkn' },
        { hashed_email: h('john_smith@gmail.com') },
        { hashed_phone_number: h('+16505551212') },
        { ip_address: '123.123.123.123', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' },
      ],
      value: 64.9,
      price_currency: 'USD',
      number_items: 4,
      contents: [
        { content_id: 'SKU1', content_name: 'Red Shoe', content_price: 49.9, num_items: 1 },
        { content_id: 'SKU2', content_name: 'Blue Sock', content_price: 5, num_items: 3 },
      ],
    });
    assert.equal(conversionOf(storedEvent('lead')).conversion?.['conversion_id'], 'evt-lead');
    // No test endpoint: test mode counts every conversion on the test event named by test_event_code.
    const test = xDriver.prepare(
      storedEvent('purchase'),
      ctxOf({ test_mode: true, test_event_code: 'o9test' }),
    );
    assert.equal(test.ok && JSON.parse(test.request.body).conversions[0].event_id, 'o9test');
    const untested = xDriver.prepare(storedEvent('purchase'), ctxOf({ test_mode: true }));
    assert.match(untested.ok ? '' : untested.reason, /test_mode needs test_event_code for x_conversions/);
  });

  it('conversion_id is the event id by default, the order id with config.conversion_id: transaction_id', () => {
    const idOf = (event: StoredEvent, config: Destination['config']) => {
      const p = xDriver.prepare(event, ctxOf({ config: { pixel_id: 'o8z6j', ...config } }));
      if (!p.ok) assert.fail(p.reason);
      return (JSON.parse(p.request.body) as { conversions: Record<string, unknown>[] }).conversions[0]?.[
        'conversion_id'
      ];
    };
    assert.equal(idOf(storedEvent('purchase'), {}), 'evt-purchase');
    assert.equal(idOf(storedEvent('purchase'), { conversion_id: 'event_id' }), 'evt-purchase');
    assert.equal(idOf(storedEvent('purchase'), { conversion_id: 'transaction_id' }), 'T-1');
    // An event without an order id keeps its event id.
    assert.equal(idOf(storedEvent('lead'), { conversion_id: 'transaction_id' }), 'evt-lead');
    const bad = checkSettings({
      name: 'shop',
      project: 'shop-project',
      region: 'europe-west1',
      destinations: [{ ...X, config: { pixel_id: 'o8z6j', conversion_id: 'order_id' } }],
    });
    assert.deepEqual(bad.ok ? [] : bad.errors.map((e) => `${e.field}: ${e.description}`), [
      'destinations[0].config.conversion_id: must be event_id or transaction_id for x_conversions',
    ]);
  });

  it('a conversion whose only identifiers are the IP address and user agent is refused; with an e-mail it is sent', () => {
    const ipOnly = { ...storedEvent('lead'), user: undefined, campaign: undefined } as unknown as StoredEvent;
    const refused = xDriver.prepare(ipOnly, ctxOf());
    assert.equal(refused.ok, false);
    assert.match(
      refused.ok ? '' : refused.reason,
      /^x_conversions payload refused: identifiers holds only the IP address and user agent: X needs a second identifier/,
    );
    const withEmail = { ...ipOnly, user: { email: 'a@b.example' } } as unknown as StoredEvent;
    const sent = xDriver.prepare(withEmail, ctxOf());
    if (!sent.ok) assert.fail(sent.reason);
    assert.deepEqual(JSON.parse(sent.request.body).conversions[0].identifiers, [
      { hashed_email: h('a@b.example') },
      { ip_address: '123.123.123.123', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' },
    ]);
  });

  it('an event routed to no X event is skipped saying which setting routes it; one with nothing to match by is refused', () => {
    const settings = {
      name: 'shop',
      project: 'shop-project',
      region: 'europe-west1',
      destinations: [X],
    } as Settings;
    const granted = { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' } as const;
    assert.deepEqual(decide(settings, { ...storedEvent('sign_up'), consent: granted })[0], {
      destination: 'x',
      action: 'skip',
      reason:
        "no X event for event sign_up: set mappings.sign_up.event to the id of its event in X's Events Manager",
    });
    const bare = { ...storedEvent('lead'), user: undefined, device: undefined } as unknown as StoredEvent;
    const p = xDriver.prepare(bare, ctxOf());
    assert.match(
      p.ok ? '' : p.reason,
      /identifiers is empty: X needs a twclid, an e-mail, a phone, or the IP address with the user agent/,
    );
  });

  it('batches of at most 500; answers: 401 and 400 refused with X’s errors, 429 and 5xx retried', () => {
    const events = Array.from({ length: 501 }, (_, i) => ({ ...storedEvent('purchase'), event_id: `p${i}` }));
    assert.deepEqual(
      xDriver.prepareBatch?.(events, ctxOf()).requests.map((r) => r.eventIds.length),
      [500, 1],
    );
    const read = (status: number, body: unknown) =>
      xDriver.interpret({ kind: 'response', status, headers: {}, body: JSON.stringify(body) }, ctxOf());
    assert.deepEqual(
      read(401, {
        errors: [{ code: 'UNAUTHORIZED_ACCESS', message: 'This request is not properly authenticated' }],
      }),
      {
        status: 'rejected',
        reason: 'x HTTP 401 UNAUTHORIZED_ACCESS: This request is not properly authenticated',
        httpStatus: 401,
      },
    );
    assert.equal(read(429, { errors: [{ code: 'OVER_CAPACITY', message: 'slow down' }] }).status, 'retry');
    assert.equal(read(503, 'down').status, 'retry');
    assert.deepEqual(read(200, { data: { conversions_processed: 2 } }), {
      status: 'delivered',
      detail: 'conversions_processed=2',
      httpStatus: 200,
    });
  });

  it('the settings check wants the pixel and the four OAuth secrets and an X event id; preview redacts the signature; plan declares the secrets', () => {
    const base = { name: 'shop', project: 'shop-project', region: 'europe-west1' };
    const bad = checkSettings({
      ...base,
      destinations: [{ id: 'x', type: 'x_conversions', mappings: { lead: { event: 'Lead!' } } }],
    });
    const errors = bad.ok ? [] : bad.errors.map((e) => `${e.field}: ${e.description}`);
    assert.ok(
      errors.includes('destinations[0].config.pixel_id: is required for x_conversions'),
      errors.join('\n'),
    );
    for (const role of ['consumer_key', 'consumer_secret', 'access_token', 'access_token_secret'])
      assert.ok(
        errors.some((e) => e.startsWith(`destinations[0].secrets.${role}: is required for x_conversions`)),
        role,
      );
    assert.ok(
      errors.some((e) => e.startsWith('destinations[0].mappings.lead.event: "Lead!" is not an X event id')),
    );
    const settings = { ...base, destinations: [X] } as Settings;
    assert.equal(checkSettings(settings).ok, true);
    const forward = plan(settings).functions.find((f) => f.name === 'forward');
    for (const name of Object.values(X.secrets ?? {})) assert.ok(forward?.secrets.includes(name), name);
    const preview = previewDelivery(
      settings,
      'x',
      {
        event_name: 'purchase',
        event_time: NOW.toISOString(),
        transaction_id: 'T',
        value: 1,
        currency: 'EUR',
        user: { email: 'a@b.example' },
        consent: { ads: 'granted', ad_user_data: 'granted' },
      },
      NOW,
    );
    assert.equal(preview.outcome, 'send', JSON.stringify(preview));
    if (preview.outcome === 'send') assert.equal(preview.request.headers['authorization'], 'REDACTED');
  });

  describe('against its strict local stand-in', () => {
    let standIn: PlatformReceiver;
    before(async () => {
      standIn = await startXReceiver({
        consumerKey: 'ck',
        consumerSecret: 'cs',
        accessToken: 'at',
        accessTokenSecret: 'ats',
      });
    });
    after(() => standIn.close());
    const deliver = async (secrets = SECRETS) => {
      const ctx = ctxOf({ base_url: standIn.url }, secrets);
      const request = xDriver.prepareBatch?.([storedEvent('purchase'), storedEvent('lead')], ctx).requests[0]
        ?.request;
      assert.ok(request);
      return xDriver.interpret(await sendOverHttp(request), ctx);
    };

    it('a signed purchase and lead pass: the stand-in verifies the signature and the conversions', async () => {
      assert.deepEqual(await deliver(), {
        status: 'delivered',
        detail: 'conversions_processed=2',
        httpStatus: 200,
      });
      assert.deepEqual(standIn.received.at(-1)?.problems, []);
    });

    it('the stand-in refuses a conversion with only the IP address and user agent, as X does', async () => {
      const ctx = ctxOf({ base_url: standIn.url });
      const good = xDriver.prepare(storedEvent('lead'), ctx);
      if (!good.ok) assert.fail(good.reason);
      const body = JSON.parse(good.request.body) as { conversions: Record<string, unknown>[] };
      const ipOnly = {
        conversions: body.conversions.map((c) => ({
          ...c,
          identifiers: [{ ip_address: '123.123.123.123', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' }],
        })),
      };
      // Signed by the driver's own request builder, so only the identifiers differ.
      const outcome = xDriver.interpret(await sendOverHttp(xRequest(ipOnly.conversions, ctx)), ctx);
      assert.equal(outcome.status, 'rejected');
      assert.match(
        outcome.status === 'rejected' ? outcome.reason : '',
        /^x HTTP 400 INVALID_PARAMETER: conversions\[0\]\.identifiers: At least one user identifier must be provided/,
      );
    });

    it('a wrong token secret breaks the signature: refused with X’s 401', async () => {
      const outcome = await deliver({ ...SECRETS, access_token_secret: 'stale' });
      assert.equal(outcome.status, 'rejected');
      assert.match(outcome.status === 'rejected' ? outcome.reason : '', /^x HTTP 401 UNAUTHORIZED_ACCESS/);
    });
  });
});
