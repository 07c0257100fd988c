/**
 * No secret in any log (#75, docs/security.md "Logs"): the whole local environment (`eventbus
 * start`) runs a flow that makes and uses every kind of credential — the studio's admin token (as
 * a Bearer and as `?token=`), the development token, a write key (as a header and as `?key=`), a
 * Stripe signing secret (a good and a bad signature), every destination secret the environment
 * generated (webhook signing key, Meta and TikTok access tokens, GA4's API secret, a Google Ads
 * OAuth credentials file), the OAuth access tokens the Google Ads stand-in issues, and made-up
 * bearer tokens the gateway refuses — and an event whose mapped URL is the studio's admin API
 * with the admin token in its query, which the egress gate refuses (a `rejected` ledger row and a
 * live events line). Locally a catalogue destination's requests go under its `base_url` (without
 * one, to the receiver's capturing stand-in, which the allow-list lets through); the hook's is a
 * loopback port off the allow-list, so the gate itself refuses it, and were it broken the request
 * would meet a closed loopback port, never leave the machine. After the environment stops, every log of the run (<data>/logs: each
 * emulator, the gateway, the studio, every function, the receiver) and the supervisor's own
 * output are searched for each secret's value: none may appear. The supervisor's output prints the
 * development token and the studio's link on purpose (for the person who ran `npm start`); those
 * two are searched for in the logs only.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readSecret, secretIds } from '../../local/local-secrets.ts';
import { adminCall } from '../support/admin-call.ts';
import { addSdkAndStripeSources, eventbusIn, REPO } from '../support/local-start.ts';
import {
  GOOGLE_ADS_DESTINATION,
  type PlatformEnvironment,
  startWithDestinations,
} from '../support/platform-e2e.ts';
import { stripeHeader, TEST_SECRET } from '../support/source-cases.ts';
import { until } from '../support/until.ts';

const DESTINATIONS = `${GOOGLE_ADS_DESTINATION}  - id: hook
    type: segment_action
    destination: webhook
    base_url: http://127.0.0.1:9
    # The URL comes from the event: an opt-in with allowed_hosts, or start refuses it (#98).
    allow_event_urls: true
    allowed_hosts: [127.0.0.1]
    actions:
      - action: send
        when: 'type = "track"'
        mapping:
          url: { "@path": "$.properties.callback" }
          method: POST
          data: { "@path": "$.properties" }
`;

const ORIGIN = 'https://shop.example';
/** What starts each log file in the run's logs as the test reads them (the supervisor's own headers start with `=== `). */
const FILE_MARK = '\n##### log file ';

describe('end to end: no secret the run created or used appears in any log', function () {
  this.timeout(420_000);
  let env: PlatformEnvironment;
  const run = `s${Date.now().toString(36)}`;
  /** Secret values by what they are. */
  const secrets = new Map<string, string>();
  let logs = '';
  let supervisorOutput = '';
  let liveLine: Record<string, unknown> | undefined;
  let hookRow: { status: string; reason: string | null } | undefined;

  before(async () => {
    env = await startWithDestinations('eventbus-log-secrets-', DESTINATIONS);
    const gateway = `http://127.0.0.1:${env.ports['gateway']}`;
    const studio = `http://127.0.0.1:${env.ports['studio']}`;
    const eventbus = eventbusIn(env.dataDir);
    const admin = readFileSync(join(env.dataDir, 'admin-token'), 'utf8').trim();
    const dev = readFileSync(join(env.dataDir, 'dev-token'), 'utf8').trim();
    secrets.set('admin token', admin);
    secrets.set('development token', dev);
    // Every secret the environment generated for its destinations (API keys, the OAuth file).
    const secretManager = `http://127.0.0.1:${env.ports['secret-manager']}`;
    for (const name of await secretIds(secretManager, 'local-project'))
      secrets.set(`secret ${name}`, (await readSecret(secretManager, 'local-project', name)) ?? '');
    const credentials = JSON.parse(secrets.get('secret GOOGLE_ADS_CREDENTIALS') ?? '{}') as Record<
      string,
      string
    >;
    for (const field of ['client_secret', 'refresh_token'])
      if (credentials[field]) secrets.set(`Google Ads ${field}`, credentials[field]);

    await addSdkAndStripeSources(env.dataDir, TEST_SECRET);
    secrets.set('Stripe signing secret', TEST_SECRET);
    const created = await eventbus('key', 'create', '--origin', ORIGIN);
    const key = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0] ?? '';
    assert.ok(key, created);
    secrets.set('write key', key);
    const madeUpToken = `ebt_0123456789ab_${randomBytes(16).toString('hex')}`;
    const madeUpBearer = `ya29.${randomBytes(24).toString('base64url')}`;
    const wrongAdmin = randomBytes(24).toString('base64url');
    secrets.set('a made-up project token', madeUpToken);
    secrets.set('a made-up Google bearer', madeUpBearer);
    secrets.set('a wrong admin token', wrongAdmin);

    const consent = {
      ads: 'granted',
      ad_user_data: 'granted',
      ad_personalization: 'granted',
      analytics: 'granted',
    };
    // Deliveries that use every destination's secret, Google Ads' through its OAuth exchange.
    await env.post('purchase', {
      event_id: `${run}-p`,
      transaction_id: `T-${run}`,
      value: 59.9,
      currency: 'EUR',
      campaign: { gclid: 'Cj0KCQ-local' },
      user: { email: `buyer-${run}@example.com` },
      consent,
    });
    // A browser's event (a write key, as the red team sent it) whose mapped URL is the studio's
    // admin API, the admin token in its query and the write key in its path (forward-catalog
    // holds neither as a secret: only their shape gives them away).
    const hook = await fetch(`${gateway}/v1/topics/purchase`, {
      method: 'POST',
      headers: { 'x-write-key': key, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({
        event_id: `${run}-hook`,
        transaction_id: `T-${run}-hook`,
        value: 1,
        currency: 'EUR',
        properties: { callback: `${studio}/v1/admin/apply/${key}?token=${admin}` },
        consent,
      }),
    });
    assert.equal(hook.status, 200, await hook.text());
    // A write key as a header and in the query (Segment's /v1/t, a browser's call).
    const track = (id: string) =>
      JSON.stringify({
        type: 'track',
        event: 'Product Viewed',
        messageId: `${run}-${id}`,
        anonymousId: `anon-${run}`,
        properties: { product_id: 'SKU-1', price: 49.9, currency: 'EUR' },
      });
    await until(
      'the segment translator and the key live',
      async () => {
        const r = await fetch(`${gateway}/v1/t`, {
          method: 'POST',
          headers: { 'x-write-key': key, origin: ORIGIN, 'content-type': 'text/plain' },
          body: track('h'),
        });
        return r.status === 200 ? true : undefined;
      },
      60_000,
    );
    await fetch(`${gateway}/v1/t?key=${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'text/plain' },
      body: track('q'),
    });
    // A Stripe webhook signed with the secret, and one with a signature made with another.
    const fixture = JSON.parse(
      readFileSync(
        join(REPO, 'test', 'fixtures', 'sources', 'stripe', 'checkout-session-completed.json'),
        'utf8',
      ),
    ) as Record<string, unknown>;
    const body = JSON.stringify({
      ...fixture,
      id: `evt_${run}`,
      created: Math.floor(Date.now() / 1000) - 60,
    });
    const stripe = (headers: Record<string, string>) =>
      fetch(`${gateway}/v1/translators/stripe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
        body,
      });
    assert.equal((await stripe(await stripeHeader(body))).status, 200);
    assert.equal((await stripe({ 'stripe-signature': `t=1,v1=${'0'.repeat(64)}` })).status >= 400, true);
    // Credentials the gateway and the studio refuse, in headers and in URLs.
    for (const [url, headers] of [
      [`${gateway}/v1/topics/purchase`, { authorization: `Bearer ${madeUpToken}` }],
      [`${gateway}/v1/topics/purchase`, { authorization: `Bearer ${madeUpBearer}` }],
      [`${gateway}/v1/topics/purchase?token=${dev}`, {}],
      [`${studio}/v1/admin/live?token=${wrongAdmin}`, {}],
      [`${studio}/v1/admin/live?token=${admin}`, {}],
    ] as const) {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
      await r.arrayBuffer();
    }

    // The refusal: a rejected ledger row naming the gate, and a live events line.
    hookRow = await env.ledger(`${run}-hook`, 'hook');
    assert.equal((await env.ledger(`${run}-p`, 'google-ads')).status, 'delivered');
    liveLine = await until(
      'the egress refusal on the live events page',
      async () => {
        const { json } = await adminCall(studio, admin, 'live', {
          since: new Date(Date.now() - 3_600_000).toISOString(),
          filter: 'destination:hook',
        });
        return json['refused']?.find((r) => r['path'] === `event:${run}-hook`);
      },
      60_000,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; the hook's row: ${JSON.stringify(hookRow)}`);
    });
    // Let the last lines land, then stop as a user does, so every log is complete.
    await new Promise((r) => setTimeout(r, 2000));
    if (env.child.exitCode === null) {
      const gone = new Promise((r) => env.child.once('exit', r));
      env.child.kill('SIGINT');
      await gone;
    }
    const dir = join(env.dataDir, 'logs');
    for (const name of readdirSync(dir))
      logs += `${FILE_MARK}${name}\n${readFileSync(join(dir, name), 'utf8')}`;
    supervisorOutput = env.output();
  });

  after(() => {
    if (env && env.child.exitCode === null) env.child.kill('SIGINT');
    if (env && !process.env.KEEP) rmSync(env.dataDir, { recursive: true, force: true });
  });

  it('the mapped URL at the studio is refused by the egress gate: a rejected row and a live events line', () => {
    assert.equal(hookRow?.status, 'rejected', JSON.stringify(hookRow));
    assert.match(hookRow?.reason ?? '', /^egress refused: .*loopback/);
    assert.equal(liveLine?.['code'], 'EGRESS_REFUSED');
    assert.equal(liveLine?.['reason'], hookRow?.reason);
    assert.equal(liveLine?.['source'], 'destination:hook');
  });

  it("the gate's log line went through forward-catalog's redaction: the path's write key is [redacted]", () => {
    const line = logs.split('\n').find((l) => l.includes('egress refused') && l.includes('"url"'));
    assert.ok(line, 'the egress refusal is logged');
    assert.match(line, /\/v1\/admin\/apply\/\[redacted\]"/);
  });

  it('the logs were written by every service of the run', () => {
    for (const service of [
      'gateway',
      'studio',
      'store',
      'forward',
      'forward-catalog',
      'schedule',
      'receiver',
    ])
      assert.ok(logs.includes(`${FILE_MARK}${service}.log\n`), service);
    assert.ok(secrets.size >= 12, [...secrets.keys()].join(', '));
  });

  it('no secret appears in any log, plain or percent-encoded', () => {
    const leaks: string[] = [];
    for (const [what, value] of secrets) {
      assert.ok(value.length >= 8, what);
      for (const form of new Set([value, encodeURIComponent(value)])) {
        if (logs.includes(form)) leaks.push(`${what} in ${whereIn(logs, form)}`);
        const printedOnPurpose = what === 'development token' || what === 'admin token';
        if (!printedOnPurpose && supervisorOutput.includes(form))
          leaks.push(`${what} in the supervisor's output`);
      }
    }
    // An OAuth access token the stand-in issued (`ya29.local-…`) or any Bearer credential.
    for (const m of logs.matchAll(/ya29\.[A-Za-z0-9._-]+|Bearer\s+[A-Za-z0-9._~+/=-]{8,}/g))
      leaks.push(`${m[0].slice(0, 12)}… in ${whereIn(logs, m[0])}`);
    assert.deepEqual(leaks, []);
  });
});

/** The log file and line a value first appears in (the value itself left out). */
function whereIn(logs: string, value: string): string {
  const at = logs.indexOf(value);
  const file = logs.lastIndexOf(FILE_MARK, at);
  const name = logs.slice(file + FILE_MARK.length, logs.indexOf('\n', file + 1));
  const start = logs.lastIndexOf('\n', at) + 1;
  return `${name}: ${logs.slice(start, Math.min(at, start + 200)).replaceAll(value, '<secret>')}<secret>…`;
}
