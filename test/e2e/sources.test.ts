/**
 * The source catalogue end to end, on one `eventbus start` for every source: each source is
 * added with `eventbus source add <vendor> --secret … --consent …` (its secret written where the
 * gateway reads it), then its vendor's sample is sent as the vendor sends it
 * (test/support/source-cases.ts). For each sample: a typed row in the warehouse (the event's
 * view for a catalogue event), Meta's stand-in receiving the right event with the value in major
 * units (a JPY 500 is 500), GA4's receiving the client id the payload carries, else a ledger skip
 * saying there is no GA4 client id, never a made-up one; GA4's own `login` from a GA4 MP sender
 * relayed to GA4's stand-in under its name. A source added without `--consent`
 * stores its events and skips Meta for want of consent. Shopify is routed by its topic header: a
 * signed checkouts/create is a begin_checkout row, an orders/create a purchase row.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { lookupEvent } from '../../schemas/catalogue.ts';
import {
  eventbusIn,
  localBigQuery,
  REPO,
  type StartedLocal,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import { SOURCE_CASES, type SourceCase, TEST_SECRET } from '../support/source-cases.ts';
import { until } from '../support/until.ts';

interface Received {
  destination: string;
  body: { data?: { event_id?: string; event_name?: string; custom_data?: Record<string, unknown> }[] } & {
    client_id?: string;
    events?: { name: string; params?: Record<string, unknown> }[];
  };
}

describe('end to end: the source catalogue, every source on one environment', function () {
  this.timeout(300000);
  let local: StartedLocal | undefined;
  let bigquery: BigQuery;
  /** Each case's stored event, by the case's title. */
  const stored = new Map<string, { event_id: string; event_name: string }>();

  before(async () => {
    local = await startLocalCli({ prefix: 'eventbus-sources-' });
    bigquery = await localBigQuery(local.ports);
  });
  after(() => stopLocal(local?.child, local?.dataDir ?? ''));

  const env = (): StartedLocal => {
    assert.ok(local, 'the environment started');
    return local;
  };
  const port = (name: string) => env().ports[name];
  const query = async <T>(sql: string): Promise<T[]> => (await bigquery.query({ query: sql }))[0] as T[];
  const eventbus = (...argv: string[]) => eventbusIn(env().dataDir)(...argv);
  const devToken = () => readFileSync(join(env().dataDir, 'dev-token'), 'utf8').trim();
  const gateway = () => `http://127.0.0.1:${port('gateway')}`;
  const received = async (): Promise<Received[]> =>
    (
      (await (await fetch(`http://127.0.0.1:${port('receiver')}/received.json`)).json()) as {
        received: Received[];
      }
    ).received;
  const ledger = (eventId: string, destination: string) =>
    until(
      `the ${destination} ledger row of ${eventId}`,
      async () => {
        const rows = await query<{ status: string; reason: string | null }>(
          `SELECT status, reason FROM \`local-project.events.deliveries\` WHERE event_id = '${eventId}' AND destination = '${destination}' AND status IN ('delivered', 'skipped', 'rejected')`,
        );
        return rows[0];
      },
      90000,
    );

  /** The URL token of each url_token translator once the gateway has taken it, by translator. */
  const liveUrlTokens = new Map<string, string>();

  /** Sends a case to translator `name` as its vendor would; the message ids the gateway gave. */
  const send = async (
    c: SourceCase,
    name: string,
    auth: string,
    change = (b: string) => b,
    status = 200,
  ): Promise<string[]> => {
    const now = Math.floor(Date.now() / 1000);
    const body = change(c.body(now));
    // The development token stands for the token a person creates for Segment, GA4 and Meta
    // relays; Mailchimp and Snowplow get one scoped to their translator alone, in the URL.
    const urlToken =
      auth === 'url_token'
        ? (await eventbus('token', 'create', '--scope', `translate:${name}`, '--description', c.title)).split(
            '\n',
          )[0]
        : undefined;
    const url = `${gateway()}/v1/translators/${name}${urlToken ? `/${urlToken}` : ''}`;
    const headers = {
      'content-type': c.contentType,
      ...(auth === 'token' ? { authorization: `Bearer ${devToken()}` } : {}),
      ...(await c.headers(body, url, now)),
    };
    const res = await until(
      `translator ${name} live`,
      async () => {
        const r = await fetch(url, { method: 'POST', headers, body });
        // 404 until the gateway reads the new translator, 401 until it reads a new URL token; a
        // 503 with Retry-After (the registry read failed, as it may on a loaded machine) is sent
        // again, as every sender here retries a 503.
        if (r.status === 503 && r.headers.get('retry-after') !== null) {
          await r.body?.cancel();
          return undefined;
        }
        return r.status === 404 || (urlToken && r.status === 401) ? undefined : r;
      },
      45000,
    );
    const text = await res.text();
    assert.equal(res.status, status, `${c.title}: ${text}`);
    if (urlToken) liveUrlTokens.set(name, urlToken);
    if (c.expect.refused) assert.match(text, c.expect.refused, c.title);
    return status === 200 ? (JSON.parse(text) as { messageIds: string[] }).messageIds : [];
  };

  it('adds Stripe with the README’s line', async () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const line = readme.split('\n').find((l) => l.includes('npm run cli -- source add stripe'));
    assert.ok(line, 'the README shows `source add stripe`');
    const argv = (line.split('npm run cli -- ')[1] ?? '')
      .trim()
      .split(/\s+/)
      .map((a) => (a === 'whsec_…' ? TEST_SECRET : a));
    const out = await eventbus(...argv);
    assert.match(out, /secret eventbus-translator-stripe stored in the local Secret Manager emulator/);
    assert.match(out, /Translator\/stripe created 1\.0/);
    assert.match(out, new RegExp(`Endpoint URL: ${gateway()}/v1/translators/stripe\n`));
  });

  it('lists the catalogue, and adds every other source with one command each', async () => {
    const list = await eventbus('source', 'list');
    for (const name of ['stripe', 'shopify', 'woocommerce', 'hubspot', 'paddle', 'typeform', 'calendly'])
      assert.match(list, new RegExp(`^${name}\\t`, 'm'));
    for (const name of new Set(SOURCE_CASES.map((c) => c.source).filter((n) => n !== 'stripe'))) {
      const signs = !['mailchimp', 'snowplow', 'segment', 'ga4-mp', 'meta-capi'].includes(name);
      const out = await eventbus(
        'source',
        'add',
        name,
        ...(signs ? ['--secret', TEST_SECRET] : []),
        '--consent',
        'ads,ad_user_data,analytics',
      );
      assert.match(out, new RegExp(`Translator/${name} created 1\\.0`));
      assert.match(out, new RegExp(`${gateway()}/v1/translators/${name}`));
      assert.match(out, /GA4 client id: /);
    }
    const stripe = await eventbus(
      'source',
      'add',
      'stripe',
      '--name',
      'stripe-plain',
      '--secret',
      TEST_SECRET,
    );
    assert.match(stripe, /secret eventbus-translator-stripe-plain stored/);
    assert.match(stripe, /consent: none granted/);
    assert.match(stripe, /Endpoint URL: http:\/\/127\.0\.0\.1:\d+\/v1\/translators\/stripe-plain\n/);
  });

  it('stores each sample as a typed row', async () => {
    const auth = (source: string) =>
      ['mailchimp', 'snowplow'].includes(source)
        ? 'url_token'
        : ['segment', 'ga4-mp', 'meta-capi'].includes(source)
          ? 'token'
          : 'signature';
    // Where each case's row is found: by the message id the gateway answered, or, for a sample a
    // vendor's library sent (its answer is the library's), by the event id it carries.
    const where = new Map<string, string>();
    for (const c of SOURCE_CASES) {
      if (c.expect.refused) {
        await send(c, c.source, auth(c.source), undefined, 400);
        continue;
      }
      if (c.library) {
        // A library cannot wait for a new URL token to be read: it is given one already taken
        // (the same source's earlier sample made it live).
        const token = auth(c.source) === 'url_token' ? liveUrlTokens.get(c.source) : devToken();
        assert.ok(token, `${c.title}: a live token`);
        const id = (await c.library(gateway(), token)) ?? c.expect.event_id;
        where.set(c.title, `event_id = '${id}'`);
        continue;
      }
      const [id] = await send(c, c.source, auth(c.source));
      assert.ok(id, c.title);
      where.set(c.title, `message_id = '${id}'`);
    }
    for (const c of SOURCE_CASES.filter((x) => !x.expect.refused)) {
      const row = await until(
        `the stored row of ${c.title}`,
        async () =>
          (
            await query<{ event_id: string; event_name: string; anonymous_id: string | null }>(
              `SELECT event_id, event_name, anonymous_id FROM \`local-project.events.events\` WHERE ${where.get(c.title)}`,
            )
          )[0],
        60000,
      );
      assert.equal(row.event_name, c.expect.event_name, c.title);
      if (c.expect.event_id) assert.equal(row.event_id, c.expect.event_id, c.title);
      assert.equal(row.anonymous_id ?? undefined, c.expect.ga4_client_id, c.title);
      stored.set(c.title, row);
      if (!lookupEvent(c.expect.event_name)) continue;
      // A catalogue event has its typed view, its value a number in major units.
      const typed = await query<{ value: number | null; currency: string | null }>(
        `SELECT ${c.expect.value !== undefined ? 'value, currency' : 'event_id'} FROM \`local-project.events.${c.expect.event_name}\` WHERE event_id = '${row.event_id}'`,
      );
      assert.equal(typed.length >= 1, true, `${c.title}: a row in events.${c.expect.event_name}`);
      if (c.expect.value !== undefined) {
        assert.equal(typed[0]?.value, c.expect.value, c.title);
        assert.equal(typed[0]?.currency, c.expect.currency, c.title);
      }
    }
  });

  it('delivers each catalogue event to Meta with its value in major units (JPY 500 is 500)', async () => {
    for (const c of SOURCE_CASES.filter((x) => !x.expect.refused)) {
      const e = stored.get(c.title);
      assert.ok(e, c.title);
      const row = await ledger(e.event_id, 'meta');
      if (!lookupEvent(c.expect.event_name)) {
        assert.equal(row.status, 'skipped', c.title);
        assert.match(row.reason ?? '', /unknown event .* has no mapping for meta_capi/, c.title);
        continue;
      }
      if (c.expect.meta_refusal) {
        assert.equal(row.status, 'rejected', c.title);
        assert.match(row.reason ?? '', c.expect.meta_refusal, c.title);
        continue;
      }
      assert.equal(row.status, 'delivered', `${c.title}: ${row.reason}`);
      const sent = (await received())
        .filter((r) => r.destination === 'meta')
        .flatMap((r) => r.body.data ?? [])
        .find((d) => d.event_id === e.event_id);
      assert.ok(sent, `${c.title}: at the Meta stand-in`);
      if (c.expect.value !== undefined) {
        assert.equal(sent.custom_data?.['value'], c.expect.value, c.title);
        assert.equal(sent.custom_data?.['currency'], c.expect.currency, c.title);
      }
    }
  });

  it('sends GA4 the client id the payload carries, and otherwise records why it did not', async () => {
    for (const c of SOURCE_CASES.filter((x) => !x.expect.refused)) {
      const e = stored.get(c.title);
      assert.ok(e, c.title);
      const row = await ledger(e.event_id, 'ga4');
      if (!lookupEvent(c.expect.event_name) && !c.expect.ga4_params) {
        assert.equal(row.status, 'skipped', c.title);
        continue;
      }
      if (c.expect.ga4_derived) {
        assert.equal(row.status, 'delivered', `${c.title}: ${row.reason}`);
        continue;
      }
      if (c.expect.ga4_client_id === undefined) {
        assert.equal(row.status, 'skipped', c.title);
        assert.match(row.reason ?? '', /^no GA4 client id: /, c.title);
        continue;
      }
      assert.equal(row.status, 'delivered', `${c.title}: ${row.reason}`);
      // A body of several events (GA4 MP's sample) makes one request each, all with its client id.
      const sent = (await received()).filter(
        (r) => r.destination === 'ga4' && r.body.client_id === c.expect.ga4_client_id,
      );
      assert.ok(sent.length > 0, `${c.title}: at the GA4 stand-in with client_id ${c.expect.ga4_client_id}`);
      if (c.expect.value !== undefined)
        assert.ok(
          sent.some((r) => r.body.events?.[0]?.params?.['value'] === c.expect.value),
          `${c.title}: value ${c.expect.value} at GA4`,
        );
      // GA4's own event, relayed as it was sent: its name and its parameters.
      for (const [k, v] of Object.entries(c.expect.ga4_params ?? {}))
        assert.ok(
          sent.some(
            (r) => r.body.events?.[0]?.name === c.expect.event_name && r.body.events[0].params?.[k] === v,
          ),
          `${c.title}: ${c.expect.event_name} with ${k} ${String(v)} at GA4`,
        );
    }
  });

  it('routes Shopify by X-Shopify-Topic: a checkout is a begin_checkout (Meta InitiateCheckout), an order a purchase', async () => {
    const checkout = stored.get('Shopify checkouts/create, the checkout that order was (a begin_checkout)');
    const order = stored.get('Shopify orders/create, an order created with its customer and billing address');
    assert.equal(checkout?.event_name, 'begin_checkout');
    assert.equal(order?.event_name, 'purchase');
    assert.notEqual(checkout?.event_id, order?.event_id);
    const meta = (await received()).filter((r) => r.destination === 'meta').flatMap((r) => r.body.data ?? []);
    assert.deepEqual(
      meta.filter((d) => d.event_id === checkout?.event_id).map((d) => d.event_name),
      ['InitiateCheckout'],
    );
    assert.deepEqual(
      meta.filter((d) => d.event_id === order?.event_id).map((d) => d.event_name),
      ['Purchase'],
    );
  });

  it('stores the events of a source added without --consent, and skips Meta for want of it', async () => {
    const c = SOURCE_CASES.find((x) => x.source === 'stripe');
    assert.ok(c);
    const [id] = await send(c, 'stripe-plain', 'signature', (b) =>
      b.replace('"evt_00000000000000"', '"evt_00000000000000_plain"'),
    );
    assert.ok(id);
    const row = await ledger('evt_00000000000000_plain', 'meta');
    assert.equal(row.status, 'skipped');
    assert.match(row.reason ?? '', /^consent ads missing/);
    const [stored] = await query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM \`local-project.events.purchase\` WHERE event_id = 'evt_00000000000000_plain'`,
    );
    assert.equal(stored?.n, 1);
  });
});
