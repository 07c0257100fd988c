/**
 * Pinterest, Snapchat and X end to end on the local environment (`eventbus start`, what `npm start`
 * runs), one environment for all three: `pinterest_capi`, `snapchat_capi` and `x_conversions`
 * destinations pointed at the local receiver's strict stand-ins, which accept only the destination's
 * own token (X's: only a request signed with its own OAuth 1.0a secrets). A purchase
 * and a lead with consent, sent to the gateway, reach each stand-in and are `delivered`; a second
 * destination of each with another token is refused with the platform's own reason; a batch over
 * the platform's documented size is refused with its reason; a 429 with `Retry-After` is retried
 * no sooner than asked; and the preview of the stored event is exactly the body that was sent.
 * Identifiers are the person's (issue #62): a project token's event without `device` reaches no
 * stand-in with an address or a user agent (before, the backend's own 127.0.0.1 and `node`), and
 * is not a website's; a write key's event from a page carries the browser's.
 */
import assert from 'node:assert/strict';
import { previewDelivery } from '../../core/delivery/preview.ts';
import { storedEventFromRow } from '../../core/delivery/replay.ts';
import { pinterestDriver } from '../../core/platforms/pinterest/index.ts';
import { snapchatDriver } from '../../core/platforms/snapchat/index.ts';
import { xDriver } from '../../core/platforms/x/index.ts';
import { oauth1Header } from '../../core/platforms/x/oauth1.ts';
import { parseSettings } from '../../core/settings.ts';
import { SCRIPT_PATH } from '../../local/platforms/server.ts';
import type { Settings } from '../../schemas/settings.ts';
import { eventbusIn, localSecret, stopLocalCli } from '../support/local-start.ts';
import { type PlatformEnvironment, startWithDestinations } from '../support/platform-e2e.ts';

// The bad-token destinations share the stand-in of the first (same path) with a token of their
// own, and take only sign_up, so they never consume the answers a test scripts for the others.
const DESTINATIONS = `  - id: pinterest
    type: pinterest_capi
    base_url: http://127.0.0.1:8099/pinterest
    config: { ad_account_id: "549755885175" }
    secrets: { access_token: PINTEREST_ACCESS_TOKEN }
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 5 }
  - id: pinterest-bad
    type: pinterest_capi
    base_url: http://127.0.0.1:8099/pinterest
    config: { ad_account_id: "549755885175" }
    secrets: { access_token: PINTEREST_OTHER_TOKEN }
    events: { allow: [sign_up] }
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 5 }
  - id: snapchat
    type: snapchat_capi
    base_url: http://127.0.0.1:8099/snapchat
    config: { pixel_id: "1ec32188-754e-4be2-8e55-c949a984a39f" }
    secrets: { access_token: SNAPCHAT_ACCESS_TOKEN }
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 5 }
  - id: snapchat-bad
    type: snapchat_capi
    base_url: http://127.0.0.1:8099/snapchat
    config: { pixel_id: "1ec32188-754e-4be2-8e55-c949a984a39f" }
    secrets: { access_token: SNAPCHAT_OTHER_TOKEN }
    events: { allow: [sign_up] }
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 5 }
  - id: x
    type: x_conversions
    base_url: http://127.0.0.1:8099/x
    config: { pixel_id: o8z6j }
    secrets: { consumer_key: X_CONSUMER_KEY, consumer_secret: X_CONSUMER_SECRET, access_token: X_ACCESS_TOKEN, access_token_secret: X_ACCESS_TOKEN_SECRET }
    mappings: { purchase: { event: o87ne }, lead: { event: o87nf } }
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 5 }
  - id: x-bad
    type: x_conversions
    base_url: http://127.0.0.1:8099/x
    config: { pixel_id: o8z6j }
    secrets: { consumer_key: X_CONSUMER_KEY, consumer_secret: X_CONSUMER_SECRET, access_token: X_ACCESS_TOKEN, access_token_secret: X_OTHER_TOKEN_SECRET }
    mappings: { sign_up: { event: o87ng } }
    events: { allow: [sign_up] }
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 5 }
`;

interface Received {
  at: string;
  destination: string;
  path: string;
  eventId?: string;
  status: number;
  body: unknown;
}

describe('end to end: Pinterest, Snapchat and X on the local environment', function () {
  this.timeout(240000);
  let env: PlatformEnvironment;
  let settings: Readonly<Settings>;
  const run = `ps${Date.now().toString(36)}`;
  const consent = { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' };
  const person = {
    user: { email: 'Jane.Doe@Example.com', phone: '+44 844 412 4653' },
    page: { url: 'https://shop.example/checkout' },
    campaign: { epik: 'dj0yJnU9epik', sccid: 'sc-click-1' },
    consent,
  };

  before(async () => {
    env = await startWithDestinations('eventbus-pinterest-snapchat-x-', DESTINATIONS);
    const parsed = parseSettings(env.settingsText);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    settings = parsed.settings;
  });
  after(() => stopLocalCli(env));

  const receiver = () => `http://127.0.0.1:${env.ports['receiver']}`;
  const post = (topic: string, body: Record<string, unknown>) => env.post(topic, body);
  const ledger = (id: string, destination: string) => env.ledger(id, destination);
  const arrivals = async (destination: string, id: string): Promise<Received[]> => {
    const res = await fetch(`${receiver()}/received.json`);
    const list = ((await res.json()) as { received: Received[] }).received;
    return list.filter((r) => r.destination === destination && r.eventId === id).reverse();
  };
  /** The first `data` row of the first request a stand-in received for an event. */
  const firstRow = async (destination: string, id: string) => {
    const [first] = await arrivals(destination, id);
    const data = (first?.body as { data?: Record<string, Record<string, unknown>>[] } | undefined)?.data;
    assert.ok(data?.[0], `${destination} received ${id}`);
    return data[0];
  };
  /** The first conversion X's stand-in received for an event. */
  const firstConversion = async (id: string) => {
    const [first] = await arrivals('x', id);
    const list = (first?.body as { conversions?: unknown[] } | undefined)?.conversions;
    assert.ok(list?.[0], `x received ${id}`);
    return list[0];
  };
  const destinationOf = (id: string) => {
    const d = settings.destinations?.find((x) => x.id === id);
    assert.ok(d);
    return d;
  };
  const secret = (name: string) => localSecret(env.ports, name);

  it('a purchase and a lead with consent reach each stand-in and are delivered', async () => {
    await post('purchase', {
      ...person,
      event_id: `${run}-p`,
      transaction_id: `T-${run}`,
      value: 59.9,
      currency: 'EUR',
    });
    await post('lead', { ...person, event_id: `${run}-l`, lead_type: 'quote' });
    for (const id of [`${run}-p`, `${run}-l`]) {
      const pin = await ledger(id, 'pinterest');
      assert.equal(pin.status, 'delivered', pin.reason ?? '');
      assert.match(pin.reason ?? '', /num_events_processed=1 of 1/);
      const snap = await ledger(id, 'snapchat');
      assert.equal(snap.status, 'delivered', snap.reason ?? '');
      assert.match(snap.reason ?? '', /status=SUCCESS/);
      const x = await ledger(id, 'x');
      assert.equal(x.status, 'delivered', x.reason ?? '');
      assert.match(x.reason ?? '', /conversions_processed=1/);
    }
    const row = await firstRow('pinterest', `${run}-p`);
    assert.equal(row?.['event_name'], 'checkout');
    assert.equal(row?.['user_data']?.['click_id'], 'dj0yJnU9epik');
    const lead = await firstRow('snapchat', `${run}-l`);
    assert.equal(lead?.['event_name'], 'CUSTOM_EVENT_1');
    // Snap's published example, hashed after its normalisation (digits with country code, no +).
    assert.deepEqual(lead?.['user_data']?.['ph'], [
      'dc008fda46e2e64002cf2f82a4906236282d431c4f75e5b60bfe79fc48546383',
    ]);
  });

  it("a destination with a token the platform does not know is rejected with the platform's reason", async () => {
    await post('sign_up', { ...person, event_id: `${run}-s`, method: 'email' });
    const pin = await ledger(`${run}-s`, 'pinterest-bad');
    assert.equal(pin.status, 'rejected');
    assert.equal(pin.reason, 'pinterest HTTP 401 (code 2): Authentication failed.');
    const snap = await ledger(`${run}-s`, 'snapchat-bad');
    assert.equal(snap.status, 'rejected');
    assert.match(snap.reason ?? '', /^snapchat HTTP 401 INVALID: Unauthorized/);
    assert.equal((await ledger(`${run}-s`, 'pinterest')).status, 'delivered');
    const x = await ledger(`${run}-s`, 'x-bad');
    assert.equal(x.status, 'rejected');
    assert.equal(x.reason, 'x HTTP 401 UNAUTHORIZED_ACCESS: This request is not properly authenticated');
  });

  it("a batch over the platform's documented size is refused with its reason", async () => {
    const send = async (
      url: string,
      headers: Record<string, string>,
      n: number,
      row: unknown,
      key = 'data',
    ) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ [key]: Array.from({ length: n }, () => row) }),
      });
      return { kind: 'response' as const, status: res.status, headers: {}, body: await res.text() };
    };
    const pin = await send(
      `${receiver()}/pinterest/v5/ad_accounts/549755885175/events`,
      { authorization: `Bearer ${await secret('PINTEREST_ACCESS_TOKEN')}` },
      1001,
      await firstRow('pinterest', `${run}-l`),
    );
    const pinOutcome = pinterestDriver.interpret(pin, {
      destination: destinationOf('pinterest'),
      secrets: {},
      now: new Date(),
    });
    assert.equal(pinOutcome.status, 'rejected');
    assert.match(
      pinOutcome.status === 'rejected' ? pinOutcome.reason : '',
      /pinterest HTTP 400 \(code 1\): .*1 to 1000 events, got 1001/,
    );
    const snap = await send(
      `${receiver()}/snapchat/v3/1ec32188-754e-4be2-8e55-c949a984a39f/events?access_token=${await secret('SNAPCHAT_ACCESS_TOKEN')}`,
      {},
      2001,
      await firstRow('snapchat', `${run}-l`),
    );
    const snapOutcome = snapchatDriver.interpret(snap, {
      destination: destinationOf('snapchat'),
      secrets: {},
      now: new Date(),
    });
    assert.match(
      snapOutcome.status === 'rejected' ? snapOutcome.reason : '',
      /snapchat HTTP 400 INVALID: data must hold 1 to 2000 events, got 2001/,
    );
    const xUrl = `${receiver()}/x/12/measurement/conversions/o8z6j`;
    const signed = oauth1Header(
      'POST',
      xUrl,
      {
        consumerKey: await secret('X_CONSUMER_KEY'),
        consumerSecret: await secret('X_CONSUMER_SECRET'),
        token: await secret('X_ACCESS_TOKEN'),
        tokenSecret: await secret('X_ACCESS_TOKEN_SECRET'),
      },
      'e2e-over-limit-nonce',
      Math.floor(Date.now() / 1000),
    );
    const x = await send(
      xUrl,
      { authorization: signed },
      501,
      await firstConversion(`${run}-l`),
      'conversions',
    );
    const xOutcome = xDriver.interpret(x, { destination: destinationOf('x'), secrets: {}, now: new Date() });
    assert.match(
      xOutcome.status === 'rejected' ? xOutcome.reason : '',
      /^x HTTP 400 INVALID_PARAMETER: conversions must hold 1 to 500 conversion events, got 501/,
    );
  });

  it('a 429 with Retry-After is failed, then sent again no sooner than asked, and delivered', async () => {
    const throttle = async (prefix: string, body: unknown) => {
      const res = await fetch(`${receiver()}/${prefix}${SCRIPT_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ answers: [{ status: 429, body, headers: { 'retry-after': '4' } }] }),
      });
      assert.equal(res.status, 204);
    };
    await throttle('pinterest', { code: 8, message: 'Rate limit exceeded' });
    await throttle('snapchat', { status: 'INVALID', reason: 'Too many requests' });
    await throttle('x', { errors: [{ code: 'OVER_CAPACITY', message: 'Over capacity' }] });
    await post('purchase', {
      ...person,
      event_id: `${run}-t`,
      transaction_id: `T-${run}-t`,
      value: 10,
      currency: 'EUR',
    });
    for (const destination of ['pinterest', 'snapchat', 'x']) {
      assert.equal((await ledger(`${run}-t`, destination)).status, 'delivered');
      // X's conversion_id is the event id, as every platform's de-duplication key (config.conversion_id).
      const calls = await arrivals(destination, `${run}-t`);
      assert.equal(calls[0]?.status, 429, JSON.stringify(calls));
      const later = calls.find((c) => c.status === 200);
      assert.ok(later, JSON.stringify(calls));
      const waited = Date.parse(later.at) - Date.parse(calls[0]?.at ?? '');
      assert.ok(waited >= 4000, `${destination}: sent again after ${waited} ms, Retry-After asked 4 s`);
      const [failed] = await env.bigquery.query({
        query: `SELECT reason FROM \`local-project.events.deliveries\` WHERE event_id = '${run}-t' AND destination = '${destination}' AND status = 'failed'`,
      });
      assert.ok(
        (failed as { reason: string }[]).some((r) => /HTTP 429/.test(r.reason)),
        JSON.stringify(failed),
      );
    }
  });

  it('a server token’s event without device reaches no platform with an IP or user agent; a browser’s carries the browser’s', async () => {
    const lead = { user: person.user, consent, lead_type: 'quote' };
    // A backend with the project token: Node's fetch says `user-agent: node` from 127.0.0.1.
    await post('lead', { ...lead, event_id: `${run}-server` });
    for (const destination of ['pinterest', 'snapchat', 'x'])
      assert.equal((await ledger(`${run}-server`, destination)).status, 'delivered', destination);
    // A page's script with a write key bound to its origin.
    const origin = 'http://127.0.0.1:8080';
    const created = await eventbusIn(env.dataDir)('key', 'create', '--origin', origin);
    const key = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0];
    assert.ok(key, created);
    const UA =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const res = await fetch(`http://127.0.0.1:${env.ports['gateway']}/v1/topics/lead`, {
      method: 'POST',
      headers: { origin, 'x-write-key': key, 'user-agent': UA, 'content-type': 'application/json' },
      body: JSON.stringify({ ...lead, page: person.page, event_id: `${run}-browser` }),
    });
    assert.equal(res.status, 200, await res.text());
    for (const destination of ['pinterest', 'snapchat', 'x'])
      assert.equal((await ledger(`${run}-browser`, destination)).status, 'delivered', destination);

    const server = {
      pinterest: await firstRow('pinterest', `${run}-server`),
      snapchat: await firstRow('snapchat', `${run}-server`),
      x: await firstConversion(`${run}-server`),
    };
    for (const [destination, sent] of Object.entries(server)) {
      const text = JSON.stringify(sent);
      for (const field of ['client_ip_address', 'client_user_agent', 'ip_address', 'user_agent'])
        assert.ok(!text.includes(`"${field}"`), `${destination} got ${field} for a server’s event: ${text}`);
      assert.ok(!text.includes('127.0.0.1') && !text.includes('"node"'), `${destination}: ${text}`);
    }
    // A backend's lead without a page did not happen on a website.
    assert.equal(server.pinterest['action_source'], 'offline');
    assert.equal(server.snapchat['action_source'], 'OFFLINE');

    const pin = await firstRow('pinterest', `${run}-browser`);
    assert.equal(pin['user_data']?.['client_ip_address'], '127.0.0.1');
    assert.equal(pin['user_data']?.['client_user_agent'], UA);
    assert.equal(pin['action_source'], 'web');
    const snap = await firstRow('snapchat', `${run}-browser`);
    assert.equal(snap['user_data']?.['client_ip_address'], '127.0.0.1');
    assert.equal(snap['user_data']?.['client_user_agent'], UA);
    assert.equal(snap['action_source'], 'WEB');
    const x = JSON.stringify(await firstConversion(`${run}-browser`));
    assert.ok(x.includes('"ip_address":"127.0.0.1"') && x.includes(`"user_agent":"${UA}"`), x);
  });

  it('the preview of the stored event is exactly what each stand-in received', async () => {
    const [rows] = await env.bigquery.query({
      query: `SELECT * FROM \`local-project.events.events\` WHERE event_id = '${run}-p'`,
    });
    const stored = storedEventFromRow((rows as Record<string, unknown>[])[0] ?? {});
    for (const destination of ['pinterest', 'snapchat', 'x']) {
      const preview = previewDelivery(settings, destination, undefined, new Date(), { stored });
      assert.equal(preview.outcome, 'send', JSON.stringify(preview));
      const [sent] = await arrivals(destination, `${run}-p`);
      assert.deepEqual(preview.outcome === 'send' ? preview.request.body : undefined, sent?.body);
    }
  });
});
