/**
 * The creator's actions on the studio's admin API (studio/creator-api.ts), over real HTTP with a
 * registry bucket in the Cloud Storage emulator and a token store file: the preview of a draft
 * definition for every destination (a defined event goes to webhooks, to a platform when mapped,
 * consent still decides), `translate:<name>` tokens kept hashed and shown once, and clear refusals
 * for bad requests and for what a studio was started without. Sending and arrivals against the
 * whole environment are in test/e2e/creator.browser.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryClient } from '../../adapters/registry.ts';
import { checkSettings } from '../../core/settings.ts';
import { verifySignature } from '../../core/translate/signatures.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { fileTokenStore } from '../../gateway/token-store.ts';
import type { Settings } from '../../schemas/settings.ts';
import { startStudio } from '../../studio/server.ts';
import { adminCall } from '../support/admin-call.ts';

const TOKEN = 'creator-api-admin-token-0123456789';

function settings(): Settings {
  const r = checkSettings({
    name: 'creator',
    project: 'creator-project',
    region: 'europe-west1',
    destinations: [
      { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:9/hook', secrets: { signing_key: 'k' } },
      {
        id: 'meta',
        type: 'meta_capi',
        base_url: 'http://127.0.0.1:9/meta',
        config: { pixel_id: '123456789012345' },
        secrets: { access_token: 'meta-token' },
      },
    ],
  });
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors));
  return r.settings as Settings;
}

const DRAFT = {
  name: 'quote_asked',
  spec: {
    fields: [{ name: 'amount', type: 'number', required: true }],
    mappings: {
      meta_capi: {
        event: 'Lead',
        fields: {
          'custom_data.value': { from: 'amount', transform: ['number'] },
          'custom_data.currency': { const: 'EUR' },
        },
      },
    },
  },
};

const event = (consent: Record<string, string>) => ({
  event_name: 'quote_asked',
  event_id: 'A-1',
  event_time: new Date(Date.now() - 3_600_000).toISOString(),
  user: { email: 'Ana@Example.com' },
  consent,
  amount: 1234.5,
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('studio creator API: preview, tokens, refusals', () => {
  const fx = emulatorWithFreshBuckets('creator-api');
  let dir: string;
  let studio: Awaited<ReturnType<typeof startStudio>>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'creator-api-'));
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      adminName: 'ana',
      settings: settings(),
      tokens: fileTokenStore(join(dir, 'tokens.json')),
    });
  });
  afterEach(async () => {
    await studio.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function call(path: string, body: unknown, url = studio.url, method = 'POST'): Promise<Answer> {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  type Result = { id: string; result: { outcome: string; reason?: string; request?: { body: unknown } } };
  const results = (a: Answer) =>
    Object.fromEntries((a.body['destinations'] as Result[]).map((d) => [d.id, d.result]));

  it('previews a draft definition: webhooks take it as defined, Meta as the mapped Lead', async () => {
    const a = await call('/v1/admin/preview', {
      definition: DRAFT,
      event: event({ ads: 'granted', ad_user_data: 'granted' }),
    });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const r = results(a);
    assert.equal(r['hook']?.outcome, 'send', JSON.stringify(r['hook']));
    assert.equal(r['meta']?.outcome, 'send', JSON.stringify(r['meta']));
    const body = r['meta']?.request?.body as { data: { event_name: string; custom_data: unknown }[] };
    assert.equal(body.data[0]?.event_name, 'Lead');
    assert.deepEqual(body.data[0]?.custom_data, { value: 1234.5, currency: 'EUR' });
    // The access token is never shown.
    assert.doesNotMatch(JSON.stringify(a.body), /meta-token/);
  });

  it('says why a platform would not receive it: no mapping, or no consent', async () => {
    const unmapped = await call('/v1/admin/preview', {
      definition: { name: 'quote_asked', spec: { fields: DRAFT.spec.fields } },
      event: event({ ads: 'granted', ad_user_data: 'granted' }),
    });
    assert.match(results(unmapped)['meta']?.reason ?? '', /no mapping for meta_capi/);
    const denied = await call('/v1/admin/preview', { definition: DRAFT, event: event({ ads: 'denied' }) });
    assert.equal(results(denied)['meta']?.outcome, 'skipped');
    assert.match(results(denied)['meta']?.reason ?? '', /consent ads denied/);
  });

  it('refuses a bad draft or name naming the field, an unknown action 404, a GET 405', async () => {
    const bad = await call('/v1/admin/preview', {
      definition: { name: 'quote_asked', spec: { fields: [{ name: 'amount', type: 'money' }] } },
      event: event({}),
    });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /fields/);
    const name = await call('/v1/admin/preview', {
      definition: { name: 'Quote Asked', spec: {} },
      event: {},
    });
    assert.equal(name.status, 400);
    assert.match(JSON.stringify(name.body), /"field":"name"/);
    const since = await call('/v1/admin/arrivals', { event: 'quote_asked', since: 'yesterday' });
    assert.equal(since.status, 400);
    assert.equal((await call('/v1/admin/nothing', {})).status, 404);
    assert.equal((await call('/v1/admin/preview', undefined, studio.url, 'GET')).status, 405);
  });

  it('issues a translate:<name> token once, stored only as a hash, authored by the caller', async () => {
    const applied = await call('/v1/admin/apply', {
      documents: [
        {
          kind: 'Translator',
          name: 'quote-asked-csv',
          spec: {
            event: 'view_content',
            format: { type: 'csv' },
            fields: [{ target: 'event_id', source: 'Id' }],
          },
        },
      ],
    });
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    const a = await call('/v1/admin/tokens', { translator: 'quote-asked-csv' });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const secret = String(a.body['secret']);
    assert.match(secret, /^ebt_[0-9a-f]{12}_/);
    assert.deepEqual(a.body['scopes'], ['translate:quote-asked-csv']);
    const file = readFileSync(join(dir, 'tokens.json'), 'utf8');
    assert.ok(!file.includes(secret), 'the secret is not stored');
    const stored = (await fileTokenStore(join(dir, 'tokens.json')).read()).tokens;
    assert.equal(stored.length, 1);
    assert.match(String(stored[0]?.description), /by ana/);
    const bad = await call('/v1/admin/tokens', { translator: '' });
    assert.equal(bad.status, 400);
  });

  it('tells the page the gateway’s event_time window (the settings’ limits), so its row check is the endpoint’s', async () => {
    assert.deepEqual((await call('/v1/admin/limits', {})).body, { limits: {} });
    const narrow = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      settings: { ...settings(), limits: { event_time_past_days: 30, event_time_future_hours: 2 } },
    });
    try {
      const a = await call('/v1/admin/limits', {}, narrow.url);
      assert.equal(a.status, 200);
      assert.deepEqual(a.body, { limits: { event_time_past_days: 30, event_time_future_hours: 2 } });
    } finally {
      await narrow.close();
    }
  });

  it('answers FAILED_PRECONDITION for what the studio was started without', async () => {
    const bare = await startStudio({ registry: new RegistryClient(fx.bucket), adminToken: TOKEN });
    try {
      for (const [action, body] of [
        ['preview', { definition: DRAFT, event: event({}) }],
        ['tokens', { translator: 'x' }],
        ['send', { translator: 'x', token: 't', contentType: 'text/csv', text: 'a' }],
        ['arrivals', { event: 'quote_asked', since: new Date().toISOString() }],
        [
          'signed-send',
          {
            translator: 'x',
            signature: { scheme: 'hmac', secrets: ['S'] },
            secret: 's',
            contentType: 'a/b',
            text: 'a',
          },
        ],
      ] as const) {
        const a = await call(`/v1/admin/${action}`, body, bare.url);
        assert.equal(a.status, 400, action);
        assert.equal((a.body['error'] as { status: string }).status, 'FAILED_PRECONDITION', action);
      }
    } finally {
      await bare.close();
    }
  });
});

describe('studio creator API: a sample signed as the vendor signs it', () => {
  const fx = emulatorWithFreshBuckets('creator-signed');
  /** A stand-in gateway that checks the signature as the gateway does, under the real secret. */
  const received: { url: string; headers: Record<string, string | string[] | undefined>; body: string }[] =
    [];
  const gateway = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      received.push({ url: req.url ?? '', headers: req.headers, body: body.toString() });
      const check = await verifySignature(
        { scheme: 'hmac', secrets: ['eventbus-translator-lemon'], header: 'X-Signature' },
        {
          method: req.method ?? 'POST',
          url: `http://${req.headers.host}${req.url}`,
          header: (n) => req.headers[n] as string | undefined,
          body,
        },
        ['the-real-secret'],
        Date.now(),
      );
      res.writeHead(check.ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(check.ok ? { messageIds: ['1'] } : { error: { code: 401, reason: check.reason } }),
      );
    });
  });
  let studio: Awaited<ReturnType<typeof startStudio>>;
  before(async () => {
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      gatewayUrl: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`,
    });
  });
  after(async () => {
    await studio.close();
    gateway.close();
  });
  const send = async (body: unknown) => {
    const res = await fetch(`${studio.url}/v1/admin/signed-send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const request = (secret: string) => ({
    translator: 'lemon-squeezy-orders',
    signature: { scheme: 'hmac', secrets: ['eventbus-translator-lemon'], header: 'X-Signature' },
    secret,
    contentType: 'application/json',
    text: '{"meta":{"event_name":"order_created"}}',
  });

  it('a contentType with CR LF (a header smuggled in) is a 400 naming the field, nothing sent (#75)', async () => {
    const before = received.length;
    for (const contentType of [
      'application/json\r\nX-Injected: 1',
      'application/json\n',
      'text/plain\u0000',
    ]) {
      const r = await send({ ...request('the-real-secret'), contentType });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body), /contentType/);
    }
    assert.equal(received.length, before, 'nothing reached the gateway');
  });

  it('posts the body as the vendor would, signed, and answers the gateway’s 200; a wrong secret its 401', async () => {
    const good = await send(request('the-real-secret'));
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.deepEqual(good.body, { status: 200, body: { messageIds: ['1'] }, signed: ['x-signature'] });
    const last = received.at(-1);
    // No token, no ?partial: exactly the vendor's request; the body byte for byte.
    assert.equal(last?.url, '/v1/translators/lemon-squeezy-orders');
    assert.equal(last?.headers['authorization'], undefined);
    assert.equal(last?.headers['content-type'], 'application/json');
    assert.equal(last?.body, '{"meta":{"event_name":"order_created"}}');
    const wrong = await send(request('not-the-secret'));
    assert.equal(wrong.status, 200);
    assert.equal(wrong.body['status'], 401);
    assert.match(JSON.stringify(wrong.body['body']), /bad_signature/);
    // The secret typed in the page is never echoed back.
    assert.doesNotMatch(JSON.stringify(good.body), /the-real-secret/);
  });

  it('sends the sample’s own headers with it (a topic header), never a credential or what the post sets', async () => {
    const good = await send({
      ...request('the-real-secret'),
      headers: { 'X-Shopify-Topic': 'orders/create', 'Content-Type': 'text/plain' },
    });
    assert.equal(good.body['status'], 200, JSON.stringify(good.body));
    assert.equal(received.at(-1)?.headers['x-shopify-topic'], 'orders/create');
    assert.equal(received.at(-1)?.headers['content-type'], 'application/json');
    const before = received.length;
    for (const headers of [
      { Authorization: 'Bearer stolen' },
      { 'X-Signature': 'forged' },
      { 'X-Topic': 'a\r\nX-Injected: 1' },
      { 'bad name': 'x' },
      ['X-Topic: a'],
    ]) {
      const r = await send({ ...request('the-real-secret'), headers });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body), /headers/);
    }
    assert.equal(received.length, before, 'nothing reached the gateway');
  });

  it('refuses a signature the translator schema does not take, naming the field', async () => {
    const bad = await send({ ...request('s'), signature: { scheme: 'rot13', secrets: ['S'] } });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /signature\.scheme/);
    const noSecret = await send({ ...request(''), secret: '' });
    assert.equal(noSecret.status, 400);
    assert.match(JSON.stringify(noSecret.body), /secret/);
  });
});

describe('studio creator API: arrivals of an endpoint of several event types', () => {
  const fx = emulatorWithFreshBuckets('creator-arrivals');
  /** The warehouse's answers by table, and the queries asked of it. */
  const asked: { sql: string; params: Record<string, unknown> }[] = [];
  const TABLE_ROWS: Record<string, Record<string, unknown>[]> = {
    payment_succeeded: [{ event_id: 'evt_1', amount: 49.9 }],
    subscription_renewed: [{ event_id: 'evt_2', plan: { value: 'gold' } }],
    deliveries: [{ destination: 'hook', status: 'delivered', events: 1, reason: null }],
  };
  let studio: Awaited<ReturnType<typeof startStudio>>;

  beforeEach(async () => {
    asked.length = 0;
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      warehouse: {
        table: (name) => `\`p.events.${name}\``,
        query: async (sql, params) => {
          asked.push({ sql, params });
          const table = /FROM `p\.events\.(\w+)`/.exec(sql)?.[1] ?? '';
          // The ledger holds every event's rows: only the asked event's are its answer.
          if (table === 'deliveries')
            return params['name'] === 'payment_succeeded' ? (TABLE_ROWS['deliveries'] ?? []) : [];
          return TABLE_ROWS[table] ?? [];
        },
      },
    });
  });
  afterEach(() => studio.close());

  const call = async (body: unknown) => {
    const { status, json } = await adminCall<Record<string, unknown>>(studio.url, TOKEN, 'arrivals', body);
    return { status, body: json };
  };

  it('looks at every type’s typed view and ledger, each row saying whose it is', async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    const a = await call({ events: ['payment_succeeded', 'subscription_renewed'], since });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(a.body['stored'], [
      { event_name: 'payment_succeeded', event_id: 'evt_1', amount: 49.9 },
      { event_name: 'subscription_renewed', event_id: 'evt_2', plan: 'gold' },
    ]);
    assert.deepEqual(a.body['deliveries'], [
      { event_name: 'payment_succeeded', destination: 'hook', status: 'delivered', events: 1, reason: null },
    ]);
    // Each event's own view, and the ledger asked per event by a parameter, never by text in the SQL.
    assert.ok(asked.some((q) => q.sql.includes('`p.events.subscription_renewed`')));
    assert.ok(asked.every((q) => !/'(payment_succeeded|subscription_renewed)'/.test(q.sql)));
    // One event as before: rows as stored, no event_name added.
    const one = await call({ event: 'subscription_renewed', since });
    assert.deepEqual(one.body['stored'], [{ event_id: 'evt_2', plan: 'gold' }]);
  });

  it('refuses a bad list of events, naming the field', async () => {
    const since = new Date().toISOString();
    for (const [events, field] of [
      [[], 'events'],
      ['payment_succeeded', 'events'],
      [Array.from({ length: 21 }, (_, i) => `event_${i}`), 'events'],
      [['payment_succeeded', 'Bad Name'], 'events[1]'],
      [['payment_succeeded', 'payment_succeeded'], 'events[1]'],
    ] as const) {
      const a = await call({ events, since });
      assert.equal(a.status, 400, JSON.stringify(events));
      const violations = (a.body['error'] as { details: { fieldViolations?: { field: string }[] }[] }).details
        .flatMap((d) => d.fieldViolations ?? [])
        .map((v) => v.field);
      assert.deepEqual(violations, [field], JSON.stringify(events));
    }
    assert.equal(asked.length, 0, 'nothing asked of the warehouse');
  });
});
