/**
 * What Segment's destinations read from Segment's own environment, given from our settings
 * (core/platforms/segment-action/environment.ts) through the runtime (adapters/segment-actions/
 * run.ts), with a fetch that answers in-process (no network): Google Ads Conversions sends the
 * destination's `developer_token` secret as its `developer-token` header, each delivery its own
 * destination's even when two run at once; LinkedIn Conversions refreshes its token with the
 * client of the destination's `oauth2` connection; and a connection without a client is a
 * `rejected` outcome saying what is missing, not a retried 500. The settings check asks for the
 * developer token and takes it as a secret. Dynamic Yield's client secret, one variable per data
 * centre in Segment's environment, is the destination's one `client_secret`.
 */
import assert from 'node:assert/strict';
import { runSegmentEvent } from '../../adapters/segment-actions/run.ts';
import { runEnvironment } from '../../adapters/segment-actions/run-context.ts';
import { segmentActionProblems } from '../../core/platforms/segment-action/check.ts';
import { OAUTH_ROLES } from '../../core/platforms/segment-action/oauth.ts';
import type { Destination } from '../../schemas/settings.ts';

const NOW = new Date('2026-11-27T07:30:00.000Z');

interface Sent {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A fetch that keeps each request and answers `answer(url)`, after a turn so runs interleave. */
function recording(answer: (url: string) => Response): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const f = (async (input: string | URL | Request, init?: RequestInit) => {
    await new Promise((r) => setImmediate(r));
    const url = String(input);
    sent.push({
      url,
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: typeof init?.body === 'string' ? init.body : '',
    });
    return answer(url);
  }) as typeof fetch;
  return { fetch: f, sent };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A track call as Segment's Google Ads tests send it, with a click id and an order. */
const click = (id: string): Record<string, unknown> => ({
  type: 'track',
  event: 'Order Completed',
  messageId: id,
  userId: `u-${id}`,
  timestamp: '2026-11-27T07:00:00.000Z',
  properties: {
    gclid: `gclid-${id}`,
    email: 'test@example.com',
    orderId: `o-${id}`,
    total: '200',
    currency: 'USD',
  },
  context: {},
});

const googleAds = (customerId: string): Destination => ({
  id: `gads-${customerId}`,
  type: 'segment_action',
  destination: 'google-enhanced-conversions',
  config: { customerId },
  actions: [
    { action: 'uploadClickConversion', when: 'type = "track"', mapping: { conversion_action: '12345' } },
  ],
});

describe('segment_action: what Segment reads from its environment comes from our settings', () => {
  // As forward-catalog's entry puts it in place (functions/forward-catalog/index.ts).
  const own = process.env;
  before(() => {
    process.env = runEnvironment(own);
  });
  after(() => {
    process.env = own;
  });

  it("Google Ads Conversions sends the destination's developer token, each delivery its own", async () => {
    const { fetch, sent } = recording(() => json({ results: [{}] }));
    const run = (customer: string, token: string) =>
      runSegmentEvent(
        click(customer),
        googleAds(customer),
        { access_token: `access-${customer}`, developer_token: token },
        { fetch, now: NOW },
      );
    const [a, b] = await Promise.all([run('1111', 'dev-token-a'), run('2222', 'dev-token-b')]);
    for (const r of [a, b])
      assert.equal(r.outcomes[0]?.outcome.status, 'delivered', JSON.stringify(r.outcomes));
    const tokenOf = (customer: string) =>
      sent.filter((s) => s.url.includes(`/customers/${customer}:`)).map((s) => s.headers['developer-token']);
    assert.deepEqual(tokenOf('1111'), ['dev-token-a']);
    assert.deepEqual(tokenOf('2222'), ['dev-token-b']);
    // Outside a run the process's own environment answers, unchanged.
    assert.equal(process.env['ADWORDS_DEVELOPER_TOKEN'], undefined);
  });

  it('the settings check asks for the developer token, as a secret of the destination', () => {
    const without = segmentActionProblems(
      { ...googleAds('1111'), secrets: { access_token: 'GADS_TOKEN' } },
      'destinations[0]',
      [],
    );
    assert.ok(
      without.some((p) =>
        p.startsWith('destinations[0].secrets.developer_token: is required by google-enhanced-conversions'),
      ),
      without.join('\n'),
    );
    const given = segmentActionProblems(
      { ...googleAds('1111'), secrets: { access_token: 'GADS_TOKEN', developer_token: 'GADS_DEV_TOKEN' } },
      'destinations[0]',
      [],
    );
    assert.deepEqual(
      given.filter((p) => p.includes('developer_token')),
      [],
    );
  });

  const linkedin: Destination = {
    id: 'linkedin',
    type: 'segment_action',
    destination: 'linkedin-conversions',
    connection: 'li',
    actions: [{ action: 'streamConversion', when: 'type = "track"', mapping: { conversionId: 'conv-1' } }],
  };
  const connection = (client: Record<string, string>) => ({
    [OAUTH_ROLES.refresh_token]: 'refresh-li',
    ...client,
  });

  it("LinkedIn Conversions refreshes its token with the connection's own client", async () => {
    const { fetch, sent } = recording((url) =>
      url.includes('/oauth/v2/accessToken')
        ? json({ access_token: 'fresh', expires_in: 3600 })
        : json({}, 201),
    );
    await runSegmentEvent(
      click('l-1'),
      linkedin,
      connection({ [OAUTH_ROLES.client_id]: 'our-client', [OAUTH_ROLES.client_secret]: 'our-secret' }),
      { fetch, now: NOW },
    );
    const refresh = sent.find((s) => s.url === 'https://www.linkedin.com/oauth/v2/accessToken');
    assert.ok(refresh, sent.map((s) => s.url).join(', '));
    const form = new URLSearchParams(refresh.body);
    assert.equal(form.get('client_id'), 'our-client');
    assert.equal(form.get('client_secret'), 'our-secret');
    assert.equal(form.get('refresh_token'), 'refresh-li');
  });

  it("Dynamic Yield sends the destination's client secret as its Authorization, in every data centre", async () => {
    const { fetch, sent } = recording(() => json({}));
    // An audience member's identify, as an audience sync publishes it, with the audience's settings.
    const member = (id: string): Record<string, unknown> => ({
      type: 'identify',
      messageId: id,
      userId: `u-${id}`,
      timestamp: '2026-11-27T07:00:00.000Z',
      traits: { email: 'jane@example.com', vip_customers: true },
      context: {
        personas: {
          computation_class: 'audience',
          computation_key: 'vip_customers',
          external_audience_id: '1234',
          audience_settings: { audience_name: 'VIP', identifier_type: 'email' },
        },
      },
    });
    const dy = (sectionId: string): Destination => ({
      id: `dy-${sectionId}`,
      type: 'segment_action',
      destination: 'dynamic-yield-audiences',
      config: { sectionId },
      actions: [{ action: 'syncAudience' }],
    });
    // 8… is the US data centre, 9… the EU one: each its own variable in Segment's environment.
    const runs = await Promise.all(
      (['8001', '9002'] as const).map((section) =>
        runSegmentEvent(
          member(section),
          dy(section),
          { accessKey: 'key', client_secret: `secret-${section}` },
          { fetch, now: NOW },
        ),
      ),
    );
    for (const r of runs)
      assert.equal(r.outcomes[0]?.outcome.status, 'delivered', JSON.stringify(r.outcomes));
    const authOf = (host: string) =>
      sent.filter((x) => x.url.includes(host)).map((x) => x.headers['authorization']);
    assert.deepEqual(authOf('.use1.dynamicyield.com'), ['secret-8001']);
    assert.deepEqual(authOf('.euc1.dynamicyield.com'), ['secret-9002']);
    // The settings check asks for it once, as a secret of the destination.
    const problems = segmentActionProblems(
      { ...dy('8001'), secrets: { accessKey: 'DY_KEY' } },
      'destinations[0]',
      [],
    ).filter((p) => p.includes('client_secret'));
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0] ?? '', /secrets\.client_secret: is required by dynamic-yield-audiences/);
  });

  it('a connection without a client is rejected, saying what is missing, and nothing is sent', async () => {
    const { fetch, sent } = recording(() => json({}));
    const r = await runSegmentEvent(click('l-2'), linkedin, connection({}), { fetch, now: NOW });
    const outcome = r.outcomes[0]?.outcome;
    assert.equal(outcome?.status, 'rejected', JSON.stringify(r.outcomes));
    assert.match(outcome?.status === 'rejected' ? outcome.reason : '', /Missing client ID.*client_id/);
    assert.equal(outcome?.status === 'rejected' ? outcome.httpStatus : 0, undefined);
    assert.deepEqual(sent, []);
  });
});
