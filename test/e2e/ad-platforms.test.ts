/**
 * LinkedIn, Microsoft Advertising (UET) and Reddit end to end on one local environment
 * (`eventbus start`, what `npm start` runs), each destination pointed at the receiver's strict
 * stand-in of its platform, and a second one per platform at the same stand-in with a token the
 * platform did not issue. Per platform: a purchase and a lead with consent are `delivered`; a
 * sign-up sent with the wrong token is `rejected` with the platform's own reason; a batch over the
 * platform's documented size, built by the platform's driver, is refused with the platform's
 * reason; a 429 with `Retry-After` is honoured (no call before the time it names) and the event
 * then delivered; and what `eventbus preview` shows is what the stand-in received.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Driver, DriverContext } from '../../core/platforms/driver.ts';
import { linkedinDriver } from '../../core/platforms/linkedin/index.ts';
import { LINKEDIN_MAX_EVENTS } from '../../core/platforms/linkedin/target.ts';
import { microsoftDriver } from '../../core/platforms/microsoft/index.ts';
import { MICROSOFT_MAX_EVENTS } from '../../core/platforms/microsoft/target.ts';
import type { MappedPayload } from '../../core/platforms/platform.ts';
import { PLATFORMS } from '../../core/platforms/platforms.ts';
import { redditDriver } from '../../core/platforms/reddit/index.ts';
import { REDDIT_MAX_EVENTS } from '../../core/platforms/reddit/target.ts';
import { parseSettings } from '../../core/settings.ts';
import { SCRIPT_PATH } from '../../local/platforms/server.ts';
import type { Destination } from '../../schemas/settings.ts';
import { localBigQuery, localSecret, REPO, startLocalCli, stopLocalCli } from '../support/local-start.ts';
import { until } from '../support/until.ts';

/**
 * Per platform, a destination and a second one at the same stand-in whose token it refuses: the
 * first takes everything but sign-ups, the second only sign-ups (so each test knows which one an
 * answer went to). `lines` are the platform's own settings (config, mappings).
 */
function pair(id: string, type: string, lines: string): string {
  const one = (suffix: string, secret: string, events: string) => `  - id: ${id}${suffix}
    type: ${type}
    base_url: http://127.0.0.1:8099/${id}
${lines}    secrets: { access_token: ${secret} }
    events: ${events}
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 10 }
`;
  const name = id.toUpperCase();
  return (
    one('', `${name}_TOKEN`, '{ deny: [sign_up] }') +
    one('-bad-token', `${name}_REVOKED`, '{ allow: [sign_up] }')
  );
}

const DESTINATIONS = [
  pair(
    'linkedin',
    'linkedin_capi',
    '    mappings: { purchase: { event: "111" }, lead: { event: "222" }, sign_up: { event: "333" } }\n',
  ),
  pair('microsoft', 'microsoft_uet', '    config: { tag_id: "187000001" }\n'),
  pair('reddit', 'reddit_capi', '    config: { pixel_id: a2_local0001 }\n'),
].join('');

interface Case {
  readonly id: 'linkedin' | 'microsoft' | 'reddit';
  readonly driver: Driver;
  readonly max: number;
  /** The platform's words for a token it did not issue, and for a batch over its size. */
  readonly badToken: RegExp;
  readonly overLimit: RegExp;
  /** What the platform answers when it throttles. */
  readonly throttled: unknown;
}

const CASES: readonly Case[] = [
  {
    id: 'linkedin',
    driver: linkedinDriver,
    max: LINKEDIN_MAX_EVENTS,
    badToken: /linkedin 401 INVALID_ACCESS_TOKEN 65600: Invalid access token/,
    overLimit: /linkedin 422 BATCH_SIZE_EXCEEDED: Batch size 5001 exceeds the maximum of 5000/,
    throttled: { status: 429, code: 'TOO_MANY_REQUESTS', message: 'Resource level throttle limit reached' },
  },
  {
    id: 'microsoft',
    driver: microsoftDriver,
    max: MICROSOFT_MAX_EVENTS,
    badToken: /HTTP 401 microsoft Unauthorized: The authorization token is missing, invalid or expired/,
    overLimit: /HTTP 400 microsoft InvalidRequest: data must hold 1 to 1000 events, got 1001/,
    throttled: { eventsReceived: 0, error: { code: 'TooManyRequests', message: 'Rate limit exceeded' } },
  },
  {
    id: 'reddit',
    driver: redditDriver,
    max: REDDIT_MAX_EVENTS,
    badToken: /reddit 401 UNAUTHORIZED: invalid or expired conversion access token/,
    overLimit: /reddit 400 INVALID_REQUEST: data.events must hold 1 to 1000 events, got 1001/,
    throttled: { error: { code: 'TOO_MANY_REQUESTS', message: 'rate limit exceeded' } },
  },
];

/** Runs `eventbus <argv>` in process; its output, or a failed assertion. */
async function eventbus(...argv: string[]): Promise<string> {
  const { run } = await import('../../cli/main.ts');
  let out = '';
  let err = '';
  const code = await run(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  assert.equal(code, 0, `eventbus ${argv.join(' ')}: ${err}`);
  return out;
}

interface Received {
  destination: string;
  eventId?: string;
  status: number;
  at: string;
  path: string;
  body: unknown;
}

describe('end to end: LinkedIn, Microsoft and Reddit on the local environment', function () {
  this.timeout(240000);
  let child: ChildProcess;
  let dataDir = '';
  let settingsFile = '';
  const ports: Record<string, number> = {};
  let bigquery: BigQuery;
  let devToken = '';
  const run = `a${Date.now().toString(36)}`;
  const consent = { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' };
  const eventTime = () => new Date(Date.now() - 60_000).toISOString();

  before(async () => {
    const local = await startLocalCli({
      prefix: 'eventbus-ad-platforms-',
      settings: (dir) => {
        settingsFile = join(dir, 'ad-platforms.yaml');
        writeFileSync(
          settingsFile,
          `${readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8')}${DESTINATIONS}`,
        );
        return settingsFile;
      },
    });
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    bigquery = await localBigQuery(ports);
    devToken = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  });
  after(() => stopLocalCli({ child, dataDir }));

  const receiver = () => `http://127.0.0.1:${ports['receiver']}`;
  /** Sends an event to the gateway as a producer does. */
  async function post(topic: string, event: Record<string, unknown>): Promise<void> {
    const answer = await fetch(`http://127.0.0.1:${ports['gateway']}/v1/topics/${topic}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${devToken}` },
      body: JSON.stringify(event),
    });
    assert.equal(answer.status, 200, `${topic}: ${await answer.text()}`);
  }
  /** The final ledger row (delivered, rejected or skipped) of an event at a destination. */
  async function ledger(id: string, destination: string): Promise<{ status: string; reason: string | null }> {
    const sql = `SELECT status, reason FROM \`local-project.events.deliveries\` WHERE destination = '${destination}' AND event_id = '${id}' AND status IN ('delivered', 'rejected', 'skipped') LIMIT 1`;
    return until(
      `the final ${destination} row of ${id}`,
      async () =>
        ((await bigquery.query({ query: sql }))[0] as { status: string; reason: string | null }[])[0],
      90000,
    );
  }
  const received = async (destination: string, eventId: string): Promise<Received[]> => {
    const res = await fetch(`${receiver()}/received.json`);
    const list = ((await res.json()) as { received: Received[] }).received;
    return list
      .filter((r) => r.destination === destination && (r.eventId ?? '').split(', ').includes(eventId))
      .reverse();
  };
  /** The purchase, made once: preview must be shown the very event that was sent. */
  const purchases = new Map<string, Record<string, unknown>>();
  const purchase = (id: string) => purchases.get(id) ?? purchases.set(id, purchaseOf(id)).get(id) ?? {};
  const purchaseOf = (id: string) => ({
    event_id: id,
    event_time: eventTime(),
    transaction_id: `T-${id}`,
    value: 59.9,
    currency: 'EUR',
    items: [{ item_id: 'SKU-1', item_name: 'Mug', price: 29.95, quantity: 2 }],
    campaign: { li_fat_id: 'li-fat-local', msclkid: 'msclkid-local', rdt_cid: 'rdt-local' },
    user: {
      email: 'Jane.Doe+shop@Example.com',
      phone: '+44 20 7946 0000',
      first_name: 'Jane',
      last_name: 'Doe',
    },
    device: {
      ip: '203.0.113.7',
      user_agent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
    },
    consent,
  });
  const lead = (id: string) => ({
    event_id: id,
    event_time: eventTime(),
    lead_type: 'demo',
    user: { email: 'buyer@example.com', first_name: 'Bo', last_name: 'Buyer' },
    consent,
  });

  it('a purchase and a lead with consent are delivered; a sign-up with a token the platform did not issue is rejected with its reason', async () => {
    await post('purchase', purchase(`${run}-p`));
    await post('lead', lead(`${run}-l`));
    await post('sign_up', {
      event_id: `${run}-s`,
      event_time: eventTime(),
      user: { email: 'new@example.com' },
      consent,
    });
    for (const c of CASES) {
      for (const id of [`${run}-p`, `${run}-l`]) {
        const row = await ledger(id, c.id);
        assert.equal(row.status, 'delivered', `${c.id} ${id}: ${row.reason ?? ''}`);
      }
      const bad = await ledger(`${run}-s`, `${c.id}-bad-token`);
      assert.equal(bad.status, 'rejected', `${c.id}: ${bad.reason ?? ''}`);
      assert.match(bad.reason ?? '', c.badToken);
    }
  });

  it('what preview shows is what the stand-in received (the token redacted)', async () => {
    const file = join(dataDir, `${run}-preview.json`);
    writeFileSync(file, JSON.stringify({ event_name: 'purchase', ...purchase(`${run}-p`) }));
    for (const c of CASES) {
      const sent = (await received(c.id, `${run}-p`)).filter((r) => r.status < 300);
      assert.equal(sent.length, 1, `${c.id}: one accepted request for the purchase`);
      const out = await eventbus(
        'preview',
        '--env',
        settingsFile,
        '--destination',
        c.id,
        '--format',
        'json',
        file,
      );
      const preview = JSON.parse(out) as {
        outcome: string;
        request: { url: string; headers: Record<string, string>; body: unknown };
      };
      assert.equal(preview.outcome, 'send');
      assert.deepEqual(
        typeof preview.request.body === 'string' ? JSON.parse(preview.request.body) : preview.request.body,
        sent[0]?.body,
        c.id,
      );
      assert.equal(new URL(preview.request.url).pathname, `/${c.id}${sent[0]?.path}`);
      assert.match(preview.request.headers['authorization'] ?? '', /REDACTED/);
    }
  });

  it("a batch over the platform's documented size is refused with the platform's reason", async () => {
    const settings = parseSettings(readFileSync(settingsFile, 'utf8'));
    assert.ok(settings.ok);
    for (const c of CASES) {
      const destination = (settings.settings.destinations ?? []).find((d) => d.id === c.id) as Destination;
      const token = await localSecret(ports, destination.secrets?.['access_token'] ?? '');
      const ctx: DriverContext = {
        destination: { ...destination, base_url: `${receiver()}/${c.id}` },
        secrets: { access_token: token },
        now: new Date(),
      };
      // A small event, so the batch stays under the receiver's body limit.
      const small = {
        event_id: `${run}-batch`,
        event_time: eventTime(),
        user: { email: 'b@example.com' },
        consent,
        event_data: {},
      };
      const one = c.driver.prepare(
        { ...small, event_name: 'lead', received_at: new Date().toISOString() } as never,
        {
          ...ctx,
          destination: { ...ctx.destination, mappings: { lead: { event: '222' } } },
        },
      );
      assert.ok(one.ok, c.id);
      // The platform's own request builder, one event over its size.
      const sentBody = JSON.parse(String(one.request.body)) as Record<string, unknown>;
      const event = (sentBody['data'] as { events?: unknown[] } | unknown[] | undefined) ?? sentBody;
      const single = Array.isArray(event)
        ? event[0]
        : ((event as { events?: unknown[] }).events?.[0] ?? event);
      const payload = (PLATFORMS[destination.type].payload as MappedPayload).request(
        Array.from({ length: c.max + 1 }, () => single as Record<string, unknown>),
        ctx,
      );
      const res = await fetch(payload.url, {
        method: 'POST',
        headers: payload.headers,
        body: payload.body as string,
      });
      const outcome = c.driver.interpret(
        { kind: 'response', status: res.status, headers: {}, body: await res.text() },
        ctx,
      );
      assert.equal(outcome.status, 'rejected', c.id);
      assert.match(outcome.status === 'rejected' ? outcome.reason : '', c.overLimit);
    }
  });

  it('a 429 with Retry-After is honoured: no call before the time it names, then the event is delivered', async () => {
    for (const c of CASES) {
      const script = await fetch(`${receiver()}/${c.id}${SCRIPT_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          answers: [{ status: 429, headers: { 'retry-after': '3' }, body: c.throttled }],
        }),
      });
      assert.equal(script.status, 204);
    }
    // One lead, which every platform's stand-in answers first with its scripted 429.
    const id = `${run}-t`;
    await post('lead', lead(id));
    for (const c of CASES) {
      const row = await ledger(id, c.id);
      assert.equal(row.status, 'delivered', `${c.id}: ${row.reason ?? ''}`);
      const calls = await received(c.id, id);
      assert.equal(calls[0]?.status, 429, `${c.id}: throttled first`);
      const last = calls[calls.length - 1] as Received;
      assert.ok(last.status < 300, `${c.id}: accepted last`);
      assert.ok(
        Date.parse(last.at) - Date.parse((calls[0] as Received).at) >= 3000,
        `${c.id}: no call before Retry-After (${calls.map((x) => `${x.at} ${x.status}`).join(', ')})`,
      );
    }
  });
});
