/**
 * The debugger's `destination-attempts` over the BigQuery emulator (docs/console.md#debugger): a
 * destination's last attempts newest first, each joined to its stored event by event_id and
 * payload_digest, with the platform columns; filters by status and by text in the reason; the
 * limit's default and bounds; no personal datum in clear anywhere in the answer (event or request,
 * raw or hashed); the request rebuilt by preview with the credential redacted, a catalogue
 * (`segment_action`) destination's as its actions build it, sending nothing; the one-event
 * `replay-start` body; who may send again; and refusals naming their field.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { RegistryClient } from '../../adapters/registry.ts';
import { sha256 } from '../../core/pii.ts';
import { plan } from '../../core/plan.ts';
import { ok } from '../../core/step.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { adminCall } from '../support/admin-call.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'destination-attempts-admin-token-0123456789';
const META_TOKEN = 'EAAGm0PX4ZCpsBAsecret-access-token';
const MINUTE = 60_000;
/** What must never be in an answer: the person's data as sent, and hashed as platforms take it. */
const PERSONAL = [
  'john.smith@example.com',
  sha256('john.smith@example.com'),
  '+16505551212',
  sha256('16505551212'),
  sha256('us'),
  '203.0.113.7',
  'Mozilla/5.0 (X11; Linux x86_64) Debugger',
  'u-4711',
  'anon-4711',
  'fb.1.1558571054389.1098115397',
  META_TOKEN,
];

interface Attempt {
  recorded_at: string;
  event_id: string;
  status: string;
  reason: string | null;
  http_status: number | null;
  replay: boolean;
  identifiers: string[];
  platform_ref: string | null;
  platform_events_received: number | null;
  platform_response: unknown;
  event: Record<string, unknown> | null;
  sent: {
    outcome: string;
    request?: { url: string; headers: Record<string, string>; body: unknown };
  } | null;
  resend: Record<string, unknown> | null;
}
interface Answer {
  destination: string;
  destinations: { id: string; type: string }[];
  can_resend: boolean;
  attempts: Attempt[];
}

describe('studio: destination-attempts, the debugger over the ledger and the stored events', function () {
  this.timeout(120_000);
  const settings = testSettings({
    destinations: [
      {
        id: 'meta',
        type: 'meta_capi',
        base_url: 'http://127.0.0.1:9/meta',
        config: { pixel_id: '123456789012345' },
        secrets: { access_token: 'META_TOKEN' },
      },
      { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:9/hook' },
      // A catalogue destination: the actions build its request, run without sending.
      {
        id: 'klaviyo',
        type: 'segment_action',
        destination: 'klaviyo',
        secrets: { api_key: 'KLAVIYO_KEY' },
        actions: [
          {
            action: 'trackEvent',
            mapping: {
              profile: {
                email: { '@path': '$.context.traits.email' },
                phone_number: { '@path': '$.context.traits.phone' },
                external_id: { '@path': '$.userId' },
                // A field name the ledger's identifier table does not know: hidden by its value.
                anonymous_id: { '@path': '$.anonymousId' },
              },
            },
          },
        ],
      },
    ],
  });
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('destination-attempts');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  const ago = (minutes: number) => new Date(Date.now() - minutes * MINUTE).toISOString();
  const eventTime = ago(30);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-attempts-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const dataset = bigquery.dataset(p.dataset);
    const event = (id: string) => ({
      event_id: id,
      event_name: 'purchase',
      event_time: eventTime,
      received_at: eventTime,
      stored_at: eventTime,
      topic: 'events',
      message_id: `m-${id}`,
      schema_version: 1,
      payload_digest: `d-${id}`,
      user_id: 'u-4711',
      anonymous_id: 'anon-4711',
      source: 'web',
      user: { email: 'john.smith@example.com', phone: '+16505551212', country: 'US' },
      device: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Debugger', locale: 'en-US' },
      campaign: { source: 'newsletter', fbp: 'fb.1.1558571054389.1098115397' },
      consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
      event_data: JSON.stringify({
        value: 49.9,
        currency: 'EUR',
        transaction_id: `t-${id}`,
        note: 'write to john.smith@example.com',
      }),
    });
    await dataset.table('events').insert([event('e1'), event('e2'), event("e'3")]);
    const row = (id: string, destination: string, status: string, minutes: number, more: object = {}) => ({
      event_id: id,
      event_name: 'purchase',
      destination,
      status,
      replay: false,
      recorded_at: ago(minutes),
      payload_digest: `d-${id}`,
      attempt: 1,
      ...more,
    });
    await dataset.table('deliveries').insert([
      row('e1', 'meta', 'failed', 20, { reason: 'HTTP 500: upstream', http_status: 500 }),
      row('e1', 'meta', 'delivered', 19, {
        attempt: 2,
        http_status: 200,
        identifiers: ['email', 'ip', 'phone'],
        platform_ref: 'AbCdEfGh123',
        platform_events_received: 1,
        platform_response: JSON.stringify({ events_received: 1, fbtrace_id: 'AbCdEfGh123' }),
      }),
      row('e2', 'meta', 'rejected', 10, {
        reason: 'HTTP 400: Invalid parameter',
        http_status: 400,
        platform_ref: 'ZyXw987',
        platform_response: JSON.stringify({ error: { code: 100, type: 'OAuthException' } }),
      }),
      row("e'3", 'meta', 'delivered', 5, { http_status: 200, replay: true }),
      // An attempt whose event is not in the events table (erased): shown without it.
      row('gone', 'meta', 'dead_lettered', 3, { reason: 'HTTP 500: upstream', attempt: 5 }),
      row('e1', 'hook', 'delivered', 4, { http_status: 204 }),
      row('e2', 'klaviyo', 'rejected', 6, {
        reason: 'trackEvent: HTTP 400: invalid profile',
        http_status: 400,
      }),
      // Older than the debugger reads.
      row('e1', 'meta', 'failed', 60 * 24 * 40, { reason: 'ancient' }),
    ]);
    const [bucket] = await fx.run.storage.createBucket('attempts-registry');
    studio = await startStudio({
      registry: new RegistryClient(bucket),
      adminToken: TOKEN,
      settings,
      warehouse: studioWarehouse(bigquery, settings.project, p),
      runs: { start: async () => undefined },
      // Behind IAP: the signed header names the caller (verified by a stand-in here).
      iap: {
        verify: async (jwt) => ok(jwt),
        access: { viewers: ['user:vera@acme.example'], editors: ['user:ed@acme.example'] },
      },
    });
  });
  after(async () => {
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const attempts = (body: unknown) => adminCall<Answer>(studio.url, TOKEN, 'destination-attempts', body);

  it("gives the destination's last attempts newest first, with the platform's answer", async () => {
    const { status, json } = await attempts({ destination: 'meta' });
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual(
      json.attempts.map((a) => [a.event_id, a.status, a.http_status, a.replay]),
      [
        ['gone', 'dead_lettered', null, false],
        ["e'3", 'delivered', 200, true],
        ['e2', 'rejected', 400, false],
        ['e1', 'delivered', 200, false],
        ['e1', 'failed', 500, false],
      ],
    );
    const delivered = json.attempts[3];
    assert.equal(delivered?.platform_ref, 'AbCdEfGh123');
    assert.equal(delivered?.platform_events_received, 1);
    assert.deepEqual(delivered?.platform_response, { events_received: 1, fbtrace_id: 'AbCdEfGh123' });
    assert.deepEqual(delivered?.identifiers, ['email', 'ip', 'phone']);
    assert.deepEqual(json.attempts[2]?.platform_response, { error: { code: 100, type: 'OAuthException' } });
    assert.equal(json.attempts[0]?.event, null, 'an attempt without its stored event');
    assert.equal(json.attempts[0]?.sent, null);
    assert.deepEqual(
      json.destinations.map((d) => d.id),
      ['meta', 'hook', 'klaviyo'],
    );
  });

  it('shows the stored event with its identifiers as kinds, and what happened in clear', async () => {
    const { json } = await attempts({ destination: 'meta', status: 'rejected' });
    const event = json.attempts[0]?.event as Record<string, Record<string, unknown>>;
    assert.deepEqual(event['user'], { email: '[email]', phone: '[phone]', country: '[country]' });
    assert.deepEqual(event['device'], { ip: '[ip]', user_agent: '[user_agent]', locale: 'en-US' });
    assert.deepEqual(event['campaign'], { source: 'newsletter', fbp: '[fbp]' });
    assert.equal(event['user_id'], '[user_id]');
    assert.equal(event['anonymous_id'], '[anonymous_id]');
    assert.equal(event['event_data']?.['value'], 49.9);
    assert.equal(event['event_data']?.['transaction_id'], 't-e2');
    assert.equal(event['event_data']?.['note'], 'write to REDACTED');
  });

  it('rebuilds the request Meta gets with preview: token redacted, identifiers as kinds', async () => {
    const { json } = await attempts({ destination: 'meta', status: 'rejected' });
    const sent = json.attempts[0]?.sent;
    assert.equal(sent?.outcome, 'send', JSON.stringify(sent));
    const body = sent?.request?.body as { data: { user_data: Record<string, unknown>; event_id: string }[] };
    const user = body.data[0]?.user_data ?? {};
    assert.deepEqual(user['em'], ['[email]']);
    assert.deepEqual(user['ph'], ['[phone]']);
    assert.equal(user['client_ip_address'], '[ip]');
    assert.equal(user['client_user_agent'], '[user_agent]');
    // Hashed fields the ledger's identifiers do not count are kinds too.
    assert.deepEqual(user['country'], ['[country]']);
    assert.equal(body.data[0]?.event_id, 'e2');
    assert.doesNotMatch(sent?.request?.url ?? '', /EAAG|secret/);
  });

  it("rebuilds a catalogue destination's request with its actions: secret:<role>, identifiers as kinds", async () => {
    const { json } = await attempts({ destination: 'klaviyo' });
    const [attempt] = json.attempts;
    assert.deepEqual([attempt?.event_id, attempt?.status], ['e2', 'rejected']);
    const sent = attempt?.sent as NonNullable<Attempt['sent']> & {
      requests: unknown[];
      outcomes: { action: string; outcome: { status: string } }[];
    };
    assert.equal(sent.outcome, 'send', JSON.stringify(sent));
    assert.equal(sent.requests.length, 1);
    assert.deepEqual(sent.requests[0], sent.request);
    assert.deepEqual(
      sent.outcomes.map((o) => [o.action, o.outcome.status]),
      [['trackEvent', 'delivered']],
    );
    const request = sent.request as {
      method: string;
      url: string;
      headers: Record<string, string>;
      body: unknown;
    };
    assert.equal(request.method, 'POST');
    assert.equal(request.url, 'https://a.klaviyo.com/api/events/');
    assert.equal(request.headers['authorization'], 'Klaviyo-API-Key secret:api_key');
    type Data<T> = { data: { attributes: T } };
    const { attributes } = (
      request.body as Data<{
        unique_id: string;
        metric: Data<{ name: string }>;
        properties: { value: number };
        profile: Data<Record<string, string>>;
      }>
    ).data;
    assert.equal(attributes.unique_id, 'e2');
    assert.equal(attributes.metric.data.attributes.name, 'Order Completed');
    assert.equal(attributes.properties.value, 49.9);
    assert.deepEqual(attributes.profile.data.attributes, {
      email: '[email]',
      phone_number: '[phone]',
      external_id: '[external_id]',
      anonymous_id: '[anonymous_id]',
    });
  });

  it('keeps every personal datum and the credential out of the whole answer', async () => {
    for (const destination of ['meta', 'klaviyo']) {
      const { json } = await attempts({ destination });
      const text = JSON.stringify(json);
      for (const datum of PERSONAL)
        assert.ok(!text.includes(datum), `${destination}: the answer holds ${datum}`);
    }
  });

  it('filters by status and by text in the reason, and bounds the limit', async () => {
    const failed = await attempts({ destination: 'meta', status: 'failed' });
    assert.deepEqual(
      failed.json.attempts.map((a) => a.reason),
      ['HTTP 500: upstream'],
    );
    const upstream = await attempts({ destination: 'meta', reason: ' UPSTREAM ' });
    assert.deepEqual(
      upstream.json.attempts.map((a) => [a.event_id, a.status]),
      [
        ['gone', 'dead_lettered'],
        ['e1', 'failed'],
      ],
    );
    const one = await attempts({ destination: 'meta', limit: 1 });
    assert.deepEqual(
      one.json.attempts.map((a) => a.event_id),
      ['gone'],
    );
    const hook = await attempts({ destination: 'hook' });
    assert.deepEqual(
      hook.json.attempts.map((a) => [a.event_id, a.status]),
      [['e1', 'delivered']],
    );
    // Without a destination: the environment's first.
    assert.equal((await attempts({})).json.destination, 'meta');
  });

  it('gives the one-event replay-start body, its event_id quoted for BigQuery', async () => {
    const { json } = await attempts({ destination: 'meta', status: 'delivered' });
    const quoted = json.attempts.find((a) => a.event_id === "e'3");
    const ms = Date.parse(eventTime);
    assert.deepEqual(quoted?.resend, {
      destination: 'meta',
      source: 'slice',
      from: new Date(ms).toISOString(),
      to: new Date(ms + 1).toISOString(),
      where: "event_id = 'e\\'3'",
    });
    assert.equal(json.can_resend, true);
  });

  it('refuses what is not a destination, a status or a limit, naming the field', async () => {
    for (const [body, field] of [
      [{ destination: 'nope' }, 'destination'],
      [{ destination: 'meta', status: 'lost' }, 'status'],
      [{ destination: 'meta', limit: 201 }, 'limit'],
      [{ destination: 'meta', limit: 'ten' }, 'limit'],
      [{ destination: 'meta', reason: 'x'.repeat(201) }, 'reason'],
    ] as const) {
      const r = await attempts(body);
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.ok(JSON.stringify(r.json).includes(`"field":"${field}"`), JSON.stringify(r.json));
    }
  });

  it('lets a viewer read the attempts but not send one again; an editor may', async () => {
    const as = (email: string, action: string, body: unknown) =>
      fetch(`${studio.url}/v1/admin/${action}`, {
        method: 'POST',
        headers: { 'x-goog-iap-jwt-assertion': email, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const viewer = await as('vera@acme.example', 'destination-attempts', { destination: 'meta' });
    assert.equal(viewer.status, 200);
    const answer = (await viewer.json()) as Answer;
    assert.equal(answer.can_resend, false);
    const resend = answer.attempts.find((a) => a.resend)?.resend;
    assert.equal((await as('vera@acme.example', 'replay-start', resend)).status, 403);
    const editor = (await (await as('ed@acme.example', 'destination-attempts', {})).json()) as Answer;
    assert.equal(editor.can_resend, true);
    assert.equal((await as('ed@acme.example', 'replay-start', resend)).status, 200);
  });

  it('answers a GET with 405 and a caller without a token with 401', async () => {
    const get = await fetch(`${studio.url}/v1/admin/destination-attempts`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(get.status, 405);
    const anonymous = await fetch(`${studio.url}/v1/admin/destination-attempts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(anonymous.status, 401);
  });
});
