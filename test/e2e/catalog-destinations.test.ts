/**
 * Ten catalogue destinations (`type: segment_action`, issue #65) end to end on one local
 * environment (`eventbus start`, what `npm start` runs): Klaviyo, Braze, Customer.io, Iterable,
 * Mixpanel, Amplitude, HubSpot (a private-app token), Pipedrive, Slack and Attio (a workspace API
 * key), configured through settings (test/fixtures/catalog/destinations.yaml) with no base_url,
 * so the local environment points them at the receiver's capturing stand-in
 * (local/platforms/capture.ts). Each event goes through the real pipeline (gateway → store →
 * forward-catalog → Segment's action → the stand-in); what each action sends from its presets is
 * checked against test/fixtures/catalog/expected-requests.json, written from the action's upstream
 * tests (test/fixtures/catalog/SOURCES.md). Three more (Iterable, Mixpanel, Amplitude) name no
 * actions, so Segment's presets run: a purchase goes to one action each (issue #78). The events
 * are sent together: each carries its own person, and the stand-in's scripted answers go only to
 * the requests that carry that person.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { CapturedRequest } from '../../local/platforms/capture.ts';
import { SCRIPT_PATH } from '../../local/platforms/server.ts';
import { CAPTURE_PREFIX } from '../../local/services.ts';
import {
  localBigQuery,
  localSettingsWith,
  publishEvent,
  REPO,
  type StartedLocal,
  startLocalCli,
  stopLocalCli,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

const FIXTURES = join(REPO, 'test', 'fixtures', 'catalog');

/** The destinations a `lead` goes to (by their preset subscriptions; Slack by its `when`), and a `user_identified`. */
const ON_LEAD = ['klaviyo', 'braze', 'customerio', 'iterable', 'mixpanel', 'amplitude', 'slack'] as const;
const ON_IDENTIFY = ['hubspot', 'pipedrive', 'attio'] as const;
/** Where Mixpanel's and Amplitude's actions send. */
const ANALYTICS_HOSTS = { mixpanel: 'api.mixpanel.com', amplitude: 'api2.amplitude.com' } as const;

/** A request as the fixture states it: `$…` values stand for the event's own (see `expand`). */
interface Expected {
  readonly method: string;
  readonly host: string;
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  /** Header name → a regular expression its value matches (the credentials are random). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body's fields the action must send (a subset: presets fill more). */
  readonly body?: unknown;
}
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'expected-requests.json'), 'utf8')) as Record<
  string,
  Expected[]
>;

/** The vendor host a destination's first expected request goes to. */
const hostOf = (destination: string): string => EXPECTED[destination]?.[0]?.host ?? '';

/** One event's own values, for the fixture's `$…` placeholders. */
interface Vars {
  readonly eventId: string;
  readonly userId: string;
  readonly email: string;
  readonly eventTime: string;
}

/** Where `actual` differs from `expected` (a subset), each with its path. */
function differences(expected: unknown, actual: unknown, vars: Vars, at = '$'): string[] {
  if (typeof expected === 'string' && expected.startsWith('$')) {
    const ms = Date.parse(vars.eventTime);
    const whole: Record<string, (v: unknown) => boolean> = {
      $ANY: (v) => v !== undefined && v !== null && v !== '',
      $ISO: (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
      $EVENT_TIME_S: (v) => v === Math.floor(ms / 1000),
      $EVENT_TIME_MS: (v) => v === ms,
      $EVENT_TIME: (v) => typeof v === 'string' && Date.parse(v) === ms,
    };
    const check = whole[expected];
    if (check) return check(actual) ? [] : [`${at}: ${JSON.stringify(actual)} is not ${expected}`];
  }
  if (typeof expected === 'string') {
    const want = expand(expected, vars);
    return actual === want ? [] : [`${at}: ${JSON.stringify(actual)}, expected ${JSON.stringify(want)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: not a list (${JSON.stringify(actual)})`];
    return expected.flatMap((e, i) => differences(e, actual[i], vars, `${at}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object')
      return [`${at}: not an object (${JSON.stringify(actual)})`];
    return Object.entries(expected).flatMap(([k, e]) =>
      differences(e, (actual as Record<string, unknown>)[k], vars, `${at}.${k}`),
    );
  }
  return actual === expected
    ? []
    : [`${at}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];
}

/** `$EVENT_ID`, `$USER_ID` and `$EMAIL` inside a string, replaced by the event's own. */
function expand(s: string, vars: Vars): string {
  return s
    .replaceAll('$EVENT_ID', vars.eventId)
    .replaceAll('$USER_ID', vars.userId)
    .replaceAll('$EMAIL', vars.email);
}

/** Checks one captured request against the fixture's. */
function assertRequest(
  destination: string,
  expected: Expected,
  actual: CapturedRequest | undefined,
  vars: Vars,
) {
  assert.ok(actual, `${destination}: no request to ${expected.host}${expected.path}`);
  const problems = [
    ...(actual.method === expected.method ? [] : [`method ${actual.method}, expected ${expected.method}`]),
    ...(actual.host === expected.host ? [] : [`host ${actual.host}, expected ${expected.host}`]),
    ...differences(expand(expected.path, vars), actual.path, vars, 'path'),
    ...differences(expected.query ?? {}, actual.query, vars, 'query'),
    ...Object.entries(expected.headers ?? {}).flatMap(([name, pattern]) =>
      new RegExp(pattern).test(actual.headers[name] ?? '') ? [] : [`header ${name}: ${actual.headers[name]}`],
    ),
    ...(expected.body === undefined ? [] : differences(expected.body, actual.body, vars, 'body')),
  ];
  assert.deepEqual(
    problems,
    [],
    `${destination}: ${actual.method} ${actual.host}${actual.path} ${actual.raw}`,
  );
}

describe('end to end: ten catalogue destinations through the capturing stand-in', function () {
  this.timeout(240000);
  let local: StartedLocal;
  let child: ChildProcess;
  let bigquery: BigQuery;
  const run = `c${Date.now().toString(36)}`;
  const eventTime = new Date(Date.now() - 60_000).toISOString();
  const granted = { analytics: 'granted' };

  /** One person per event, so that what the stand-in captured is told apart by event. */
  const varsOf = (name: string): Vars => ({
    eventId: `${run}-${name}`,
    userId: `${run}-u-${name}`,
    email: `${run}-u-${name}@example.com`,
    eventTime,
  });
  const person = (v: Vars) => ({
    event_id: v.eventId,
    event_time: v.eventTime,
    user_id: v.userId,
    user: { email: v.email, first_name: 'Jane', last_name: 'Doe' },
  });
  const lead = (v: Vars, consent: Record<string, string> = granted) => ({
    ...person(v),
    lead_type: 'demo',
    consent,
  });
  const LEAD = varsOf('lead');
  const IDENTIFY = varsOf('identify');
  const NEW_CONTACT = varsOf('new');
  const BAD = varsOf('400');
  const THROTTLED = varsOf('429');
  const DENIED = varsOf('denied');
  const ANONYMOUS = `${run}-anonymous`;
  // Issue #78: an order and a page view for the destinations that run Segment's presets.
  const PURCHASE = varsOf('purchase');
  const PAGE = varsOf('page');

  const capture = () => `http://127.0.0.1:${local.ports['receiver']}/${CAPTURE_PREFIX}`;
  /** What the stand-in captured at a host for one event: the requests carrying one of its markers (ids, e-mail). */
  async function captured(host: string, ...markers: string[]): Promise<CapturedRequest[]> {
    const res = await fetch(`${capture()}/_standin/requests?host=${encodeURIComponent(host)}`);
    assert.equal(res.status, 200);
    const { requests } = (await res.json()) as { requests: CapturedRequest[] };
    return requests.filter((r) => {
      const text = `${r.path} ${Object.values(r.query).join(' ')} ${r.raw}`;
      return markers.some((m) => text.includes(m));
    });
  }
  /** Scripts the stand-in's next answers to one host, for the requests carrying `contains`. */
  async function script(host: string, contains: string, ...answers: unknown[]): Promise<void> {
    const res = await fetch(`${capture()}${SCRIPT_PATH}/${host}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers, contains }),
    });
    assert.equal(res.status, 204, await res.text());
  }
  /** The ledger rows of an event at a destination, oldest first, once its final row is written. */
  async function ledger(
    eventId: string,
    destination: string,
  ): Promise<{ status: string; reason: string | null }[]> {
    const sql = `SELECT status, reason FROM \`local-project.events.deliveries\` WHERE destination = '${destination}' AND event_id = '${eventId}'`;
    return until(
      `the final ${destination} row of ${eventId}`,
      async () => {
        const rows = (await bigquery.query({ query: sql }))[0] as { status: string; reason: string | null }[];
        return rows.some((r) => ['delivered', 'rejected', 'skipped'].includes(r.status)) ? rows : undefined;
      },
      90000,
    );
  }
  const final = async (eventId: string, destination: string) =>
    (await ledger(eventId, destination)).find((r) => r.status !== 'failed') as {
      status: string;
      reason: string | null;
    };

  before(async () => {
    local = await startLocalCli({
      prefix: 'eventbus-catalog-',
      settings: localSettingsWith('catalog.yaml', readFileSync(join(FIXTURES, 'destinations.yaml'), 'utf8')),
    });
    child = local.child;
    bigquery = await localBigQuery(local.ports);
    // Klaviyo refuses one event with its JSON:API error body (developers.klaviyo.com/en/docs/api_overview#errors);
    // Mixpanel and Amplitude throttle another once, asking for a second (their documented 429s).
    await script('a.klaviyo.com', BAD.email, {
      status: 400,
      body: {
        errors: [
          {
            id: 'e4b1c8a2-0000-4000-8000-000000000400',
            status: 400,
            code: 'invalid',
            title: 'Invalid input.',
            detail: 'The metric name provided is not valid.',
            source: { pointer: '/data/attributes/metric/data/attributes/name' },
          },
        ],
      },
    });
    // HubSpot does not know one person: its update answers 404 (developers.hubspot.com/docs/api/crm/contacts).
    await script('api.hubapi.com', NEW_CONTACT.email, {
      status: 404,
      body: {
        status: 'error',
        message: 'resource not found',
        correlationId: 'a1b2c3d4-0000-4000-8000-000000000404',
      },
    });
    await script('api.mixpanel.com', THROTTLED.userId, {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { code: 429, error: 'too many requests', status: 0 },
    });
    await script('api2.amplitude.com', THROTTLED.userId, {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { code: 429, error: 'Too many requests for some devices and users', eps_threshold: 30 },
    });
    // Every event at once: each check below waits for its own rows.
    await Promise.all([
      publishEvent(local, 'lead', lead(LEAD)),
      publishEvent(local, 'user_identified', {
        ...person(IDENTIFY),
        traits: { name: 'Jane Doe' },
        consent: granted,
      }),
      publishEvent(local, 'user_identified', {
        ...person(NEW_CONTACT),
        traits: { name: 'Jane Doe' },
        consent: granted,
      }),
      publishEvent(local, 'lead', lead(BAD)),
      publishEvent(local, 'lead', lead(THROTTLED)),
      publishEvent(local, 'lead', lead(DENIED, { analytics: 'denied' })),
      publishEvent(local, 'purchase', {
        ...person(PURCHASE),
        consent: granted,
        transaction_id: `${run}-order`,
        value: 110,
        tax: 10,
        shipping: 5,
        currency: 'EUR',
        items: [{ item_id: 'SKU1', item_name: 'Mug', price: 95, quantity: 1 }],
      }),
      publishEvent(local, 'page_view', {
        ...person(PAGE),
        consent: granted,
        page: { url: 'https://shop.example/mugs?utm_source=news', title: 'Mugs' },
      }),
      publishEvent(local, 'lead', {
        event_id: ANONYMOUS,
        event_time: eventTime,
        anonymous_id: `${run}-anon`,
        lead_type: 'demo',
        consent: granted,
      }),
    ]);
  });
  after(() => (child ? stopLocalCli({ child, dataDir: local.dataDir }) : undefined));

  /** One named test per destination: delivered, and the requests its action built from its presets. */
  for (const destination of [...ON_LEAD, ...ON_IDENTIFY]) {
    it(`${destination}: an event is delivered with the request its action builds from its presets`, async () => {
      const vars = (ON_LEAD as readonly string[]).includes(destination) ? LEAD : IDENTIFY;
      const row = await final(vars.eventId, destination);
      assert.equal(row.status, 'delivered', `${destination}: ${row.reason ?? ''}`);
      const expected = EXPECTED[destination] ?? [];
      assert.ok(expected.length > 0, destination);
      const host = hostOf(destination);
      const requests = await captured(host, vars.userId, vars.eventId);
      assert.equal(
        requests.length,
        expected.length,
        `${destination}: ${requests.map((r) => `${r.method} ${r.path}`).join(', ')}`,
      );
      expected.forEach((e, i) => {
        assertRequest(destination, e, requests[i], vars);
      });
    });
  }

  it('hubspot: a contact its update does not find (404) is created, as upsertContact does', async () => {
    // hubspot/upsertContact/__tests__/index.test.ts "should create contact successfully and set contact id
    // in transaction context": PATCH …/contacts/<email>?idProperty=email answered 404, then POST /crm/v3/objects/contacts.
    const row = await final(NEW_CONTACT.eventId, 'hubspot');
    assert.equal(row.status, 'delivered', row.reason ?? '');
    const [update, create] = await captured('api.hubapi.com', NEW_CONTACT.email);
    assertRequest('hubspot', EXPECTED['hubspot']?.[0] as Expected, update, NEW_CONTACT);
    assert.equal(update?.status, 404);
    assert.equal(create?.method, 'POST');
    assert.equal(create?.path, '/crm/v3/objects/contacts');
    assert.deepEqual(
      differences({ properties: { email: '$EMAIL', firstname: 'Jane' } }, create?.body, NEW_CONTACT),
      [],
    );
  });

  it("klaviyo: a 400 with Klaviyo's error body is rejected with the answer as its reason", async () => {
    const row = await final(BAD.eventId, 'klaviyo');
    assert.equal(row.status, 'rejected');
    assert.match(row.reason ?? '', /trackEvent: Bad Request/);
    assert.match(row.reason ?? '', /The metric name provided is not valid/);
    const [sent] = await captured('a.klaviyo.com', BAD.email);
    assert.equal(sent?.status, 400);
  });

  it("braze, klaviyo, iterable: an event without a person is rejected with the action's IntegrationError, nothing sent", async () => {
    // braze/__tests__/braze.test.ts "should require one of braze_id, user_alias, or external_id";
    // klaviyo/trackEvent/__tests__/index.test.ts "should throw error if no profile identifiers are provided";
    // iterable/trackEvent/__tests__/index.test.ts "throws an error if `email` or `userId` are not defined".
    const reasons: Record<string, RegExp> = {
      braze: /^trackEvent: One of "external_id" or "user_alias" or "braze_id" or "email" is required\./,
      klaviyo: /^trackEvent: One of External ID, Anonymous ID, Phone Number or Email is required\.$/,
      iterable: /^trackEvent: Must include email or userId\.$/,
    };
    for (const [destination, reason] of Object.entries(reasons)) {
      const row = await final(ANONYMOUS, destination);
      assert.equal(row.status, 'rejected', destination);
      assert.match(row.reason ?? '', reason, destination);
    }
    for (const host of ['rest.iad-01.braze.com', 'a.klaviyo.com', 'api.iterable.com'])
      assert.deepEqual(await captured(host, `${run}-anon`), [], host);
  });

  it('mixpanel, amplitude: a 429 from the stand-in is a failed row, then the retry is delivered', async () => {
    for (const [destination, host] of Object.entries(ANALYTICS_HOSTS)) {
      const rows = await ledger(THROTTLED.eventId, destination);
      assert.ok(
        rows.some((r) => r.status === 'failed' && /429|Too Many Requests/i.test(r.reason ?? '')),
        `${destination}: ${JSON.stringify(rows)}`,
      );
      assert.equal((await final(THROTTLED.eventId, destination)).status, 'delivered', JSON.stringify(rows));
      const calls = await captured(host, THROTTLED.userId);
      assert.equal(calls[0]?.status, 429, destination);
      assert.ok(
        (calls.at(-1)?.status ?? 0) < 300,
        `${destination}: ${calls.map((c) => c.status).join(', ')}`,
      );
    }
  });

  it('an event whose analytics consent is denied is skipped with its reason, and nothing is sent', async () => {
    for (const destination of ON_LEAD) {
      const row = await final(DENIED.eventId, destination);
      assert.equal(row.status, 'skipped', `${destination}: ${row.reason ?? ''}`);
      assert.equal(row.reason, 'consent analytics denied', destination);
    }
    for (const destination of ON_LEAD) {
      const host = hostOf(destination);
      assert.deepEqual(await captured(host, DENIED.userId, DENIED.eventId), [], destination);
    }
  });

  it('iterable (presets): a purchase is sent once, to trackPurchase; a page view is skipped, not rejected', async () => {
    const row = await final(PURCHASE.eventId, 'iterable-presets');
    assert.equal(row.status, 'delivered', row.reason ?? '');
    const sent = await captured('api.iterable.com', PURCHASE.userId, PURCHASE.eventId);
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.path}`),
      ['POST /api/commerce/trackPurchase'],
    );
    assert.deepEqual(
      differences(
        { id: `${run}-order`, total: 110, items: [{ id: 'SKU1', price: 95 }] },
        sent[0]?.body,
        PURCHASE,
      ),
      [],
    );
    const pageRows = await ledger(PAGE.eventId, 'iterable-presets');
    assert.deepEqual(
      pageRows.map((r) => r.status),
      ['skipped'],
      JSON.stringify(pageRows),
    );
    assert.match(pageRows[0]?.reason ?? '', /^no action of iterable subscribes to page_view/);
    assert.deepEqual(await captured('api.iterable.com', PAGE.userId, PAGE.eventId), []);
  });

  it('mixpanel, amplitude (presets): one request per purchase, carrying its revenue', async () => {
    for (const [slug, host] of Object.entries(ANALYTICS_HOSTS)) {
      const destination = `${slug}-presets`;
      const row = await final(PURCHASE.eventId, destination);
      assert.equal(row.status, 'delivered', `${destination}: ${row.reason ?? ''}`);
      assert.match(row.reason ?? '', /^actions: (trackPurchase|logPurchase)$/, destination);
      const sent = await captured(host, PURCHASE.userId, PURCHASE.eventId);
      assert.equal(sent.length, 1, `${destination}: ${sent.map((r) => `${r.method} ${r.path}`).join(', ')}`);
      // value 110 less tax 10 and shipping 5 (docs/catalog-destinations.md, "Revenue").
      assert.match(sent[0]?.raw ?? '', /"revenue":95[,}]/, destination);
    }
  });

  it('klaviyo: a 400 fills platform_response, and the debugger shows it', async () => {
    await final(BAD.eventId, 'klaviyo');
    const sql = `SELECT platform_response FROM \`local-project.events.deliveries\` WHERE destination = 'klaviyo' AND event_id = '${BAD.eventId}' AND status = 'rejected'`;
    const [row] = (await bigquery.query({ query: sql }))[0] as { platform_response: string | null }[];
    const expected = {
      status: 400,
      request: 'POST https://a.klaviyo.com/api/events/',
      body: {
        errors: [
          {
            status: 400,
            code: 'invalid',
            title: 'Invalid input.',
            detail: 'The metric name provided is not valid.',
            source: { pointer: '/data/attributes/metric/data/attributes/name' },
          },
        ],
      },
    };
    assert.deepEqual(JSON.parse(row?.platform_response ?? 'null'), expected);
    const admin = readFileSync(join(local.dataDir, 'admin-token'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${local.ports['studio']}/v1/admin/destination-attempts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'klaviyo', status: 'rejected' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { attempts } = (await res.json()) as {
      attempts: { event_id: string; platform_response: unknown }[];
    };
    const shown = attempts.find((a) => a.event_id === BAD.eventId);
    assert.deepEqual(shown?.platform_response, expected);
  });
});
