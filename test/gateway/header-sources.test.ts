/**
 * Header sources (docs/translators.md, "Header sources"): a translator reads the event type from
 * GitHub's `X-GitHub-Event` (a real @octokit/webhooks-examples payload, signed by GitHub's own
 * @octokit/webhooks-methods) and Shopify's `X-Shopify-Topic`, and its event id from
 * `X-Shopify-Webhook-Id`, so a retried delivery keeps its id; apply refuses a credential header
 * and, under a signature, a header as the event id.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { translatorViolations } from '../../core/translate/spec.ts';
import { FakePublisher, fixedTranslators, post, startTestGateway, type TestGateway } from './support.ts';

const SECRET = 'github_example_for_tests_only';

/** The first `issues` example with `action: "opened"` of @octokit/webhooks-examples (its index.json). */
const issuesOpened = (): Record<string, unknown> => {
  const file = createRequire(import.meta.url).resolve('@octokit/webhooks-examples');
  const all = JSON.parse(readFileSync(file, 'utf8')) as {
    name: string;
    examples: Record<string, unknown>[];
  }[];
  const e = all.find((w) => w.name === 'issues')?.examples.find((x) => x['action'] === 'opened');
  if (!e) throw new Error('@octokit/webhooks-examples has no issues opened example');
  return e;
};

/** Shopify's order resource (test/fixtures/sources/SOURCES.md: shopify/order-created.json). */
const shopifyOrder = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/sources/shopify/order-created.json'), 'utf8'),
) as Record<string, unknown>;

const github = {
  event: 'github_issue_opened',
  format: { type: 'json' },
  events: ['github_issues', 'github_pull_request'],
  auth: { signature: { scheme: 'github', secrets: ['eventbus-translator-github'] } },
  fields: [
    {
      target: 'event_name',
      source: 'header:X-GitHub-Event',
      transforms: [{ lookup: { issues: 'github_issues', pull_request: 'github_pull_request' } }],
    },
    { target: 'action', source: 'action' },
    { target: 'issue_title', source: 'issue.title' },
  ],
};

const shopify = {
  event: 'shopify_order_created',
  format: { type: 'json' },
  events: ['shopify_order_created', 'shopify_order_updated'],
  key: ['header:X-Shopify-Webhook-Id'],
  fields: [
    {
      target: 'event_name',
      source: 'header:x-shopify-topic',
      transforms: [
        { lookup: { 'orders/create': 'shopify_order_created', 'orders/updated': 'shopify_order_updated' } },
      ],
    },
    { target: 'order_name', source: 'name' },
    { target: 'total_price', source: 'total_price' },
  ],
};

interface Published {
  event_name: string;
  event_id: string;
  event_data: Record<string, unknown>;
}

describe('gateway: translators read request headers', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({
      publisher: pub,
      translators: fixedTranslators({ github, shopify }),
      secrets: { get: async (name) => (name === 'eventbus-translator-github' ? SECRET : undefined) },
    });
  });
  afterEach(() => g.close());
  const events = () =>
    pub.calls.flatMap((c) => c.messages.map((m) => JSON.parse(m.data.toString()) as Published));

  it('GitHub: the event name from X-GitHub-Event (a real issues.opened payload, signed as GitHub signs)', async () => {
    assert.deepEqual(translatorViolations(github, 'spec'), []);
    const body = JSON.stringify(issuesOpened());
    const a = await post(
      `${g.url}/v1/translators/github`,
      body,
      {
        // As GitHub sends it (docs.github.com, "Webhook events and payloads": delivery headers).
        'X-GitHub-Event': 'issues',
        'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'X-Hub-Signature-256': await githubSign(SECRET, body),
      },
      true,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const [e] = events();
    assert.equal(e?.event_name, 'github_issues');
    assert.equal(e?.event_data['action'], 'opened');
    assert.equal(e?.event_data['issue_title'], (issuesOpened()['issue'] as { title: string }).title);
  });

  it('Shopify: the topic names the event, and a retried delivery (same X-Shopify-Webhook-Id) keeps its id', async () => {
    assert.deepEqual(translatorViolations(shopify, 'spec'), []);
    const auth = { authorization: `Bearer ${await g.mint(['translate:*'])}` };
    // The headers of Shopify's docs (shopify.dev, "About webhooks": an orders/create delivery).
    const send = (id: string, topic = 'orders/create') =>
      post(`${g.url}/v1/translators/shopify`, shopifyOrder, {
        ...auth,
        'X-Shopify-Topic': topic,
        'X-Shopify-Webhook-Id': id,
        'X-Shopify-Shop-Domain': 'example.myshopify.com',
      });
    assert.equal((await send('b54557e4-bdd9-4b37-8a5f-bf7d70bcd043')).status, 200);
    assert.equal((await send('b54557e4-bdd9-4b37-8a5f-bf7d70bcd043')).status, 200);
    assert.equal((await send('0b2c6cc9-1a1e-4d5f-9e5b-2f2ad1a0c3e7', 'orders/updated')).status, 200);
    const [first, retry, other] = events();
    assert.equal(first?.event_name, 'shopify_order_created');
    assert.equal(first?.event_data['order_name'], shopifyOrder['name']);
    // One event_id for the retry: events_dedup keeps one row of the two copies.
    assert.equal(retry?.event_id, first?.event_id);
    assert.equal(other?.event_name, 'shopify_order_updated');
    assert.notEqual(other?.event_id, first?.event_id);
  });

  it('a header source reads no credential, even from a spec stored before the apply check', async () => {
    const leaky = {
      event: 'leak',
      format: { type: 'json' },
      fields: [
        { target: 'token', source: 'header:Authorization' },
        { target: 'note', source: 'note' },
      ],
    };
    await g.close();
    pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub, translators: fixedTranslators({ leaky }) });
    const auth = { authorization: `Bearer ${await g.mint(['translate:*'])}` };
    const a = await post(`${g.url}/v1/translators/leaky`, { note: 'n' }, auth);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(events()[0]?.event_data['token'], undefined);
  });
});

describe('apply: what a header source may read', () => {
  const withSource = (source: string, extra: Record<string, unknown> = {}) => ({
    event: 'webhook_received',
    format: { type: 'json' },
    fields: [{ target: 'note', source }],
    ...extra,
  });
  const descriptions = (spec: unknown) =>
    translatorViolations(spec, 'spec').map((v) => `${v.field}: ${v.description}`);

  it('refuses credential headers: Authorization, cookies, the signature header', () => {
    assert.match(
      descriptions(withSource('header:Authorization')).join('\n'),
      /fields\[0\]\.source: authorization carries a credential/,
    );
    assert.match(descriptions(withSource('header:Cookie')).join('\n'), /cookie carries a credential/);
    assert.match(descriptions(withSource('header:X-Hub-Signature-256')).join('\n'), /x-hub-signature-256/);
    const hmac = { auth: { signature: { scheme: 'hmac', header: 'X-Vendor-Mac', secrets: ['S'] } } };
    assert.match(
      descriptions(withSource('header:x-vendor-mac', hmac)).join('\n'),
      /x-vendor-mac is a signature header/,
    );
    assert.match(descriptions(withSource('header:')).join('\n'), /names no header/);
    assert.deepEqual(descriptions(withSource('header:X-Request-Source')), []);
  });

  it('refuses a header as the event id of a signed delivery, and says why', () => {
    const signed = { auth: { signature: { scheme: 'shopify', secrets: ['eventbus-translator-shopify'] } } };
    const byKey = descriptions(withSource('id', { ...signed, key: ['header:X-Shopify-Webhook-Id'] }));
    assert.match(
      byKey.join('\n'),
      /spec\.key\[0\]: x-shopify-webhook-id is not signed: .*signed body decides/,
    );
    const byField = descriptions({
      ...withSource('id', signed),
      fields: [{ target: 'event_id', source: ['id', 'header:Idempotency-Key'] }],
    });
    assert.match(byField.join('\n'), /spec\.fields\[0\]\.source\[1\]: idempotency-key is not signed/);
    // The event name may come from a header under a signature: it is not the delivery's identity.
    assert.deepEqual(
      descriptions({
        ...withSource('id', signed),
        events: ['shopify_order_created'],
        fields: [{ target: 'event_name', source: 'header:X-Shopify-Topic' }],
      }),
      [],
    );
  });
});
