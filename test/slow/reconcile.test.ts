/**
 * Reconciliation end to end on the local environment (issue #102): a Meta and a GA4 destination
 * with `config.counts: true` deliver twenty events each; the stand-ins report counts 10 % short
 * (`EVENTBUS_STANDIN_COUNT_SHORTFALL`); `eventbus reconcile --day <today>` runs the counting reads
 * on the schedule function, says per destination whether its count was read (TikTok and the
 * webhook report none), and prints permitted, sent, accepted and Meta's and GA4's counts with
 * the gap (GA4's read as the function's own account, its token from the receiver's metadata twin);
 * the `reconciliation` view holds the same figures; and a `counted_below` alert on Meta fires at
 * the chat stand-in.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { run as cli } from '../../cli/main.ts';
import { REPO, type StartedLocal, startLocalCli, stopLocal } from '../support/local-start.ts';
import { until } from '../support/until.ts';

const CHAT = `
connections:
  - id: ops-chat
    type: chat
    url: http://127.0.0.1:8099/chat/ops
`;

const COUNTED_BELOW = {
  kind: 'Alert' as const,
  name: 'meta-counted-below',
  description: 'Tell ops when Meta counts less than 95 % of what it accepted',
  spec: {
    condition: { counted_below: { destination: 'meta', min_accepted: 10 } },
    schedule: { every: '1m' },
    notify: { connection: 'ops-chat' },
  },
};

describe('end to end: reconcile reads the platforms’ counts, shows the gap, and the alert fires', function () {
  this.timeout(600_000);
  let local: StartedLocal | undefined;
  let settingsFile = '';
  const dataDir = () => local?.dataDir ?? '';
  const url = (service: string) => `http://127.0.0.1:${local?.ports[service]}`;
  const day = new Date().toISOString().slice(0, 10);
  const EVENTS = 20;

  before(async () => {
    local = await startLocalCli({
      prefix: 'eventbus-reconcile-',
      settings: (dir) => {
        settingsFile = join(dir, 'reconcile.yaml');
        const base = readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8')
          .replace(
            'config: { pixel_id: "123456789012345", action_source: website }',
            'config: { pixel_id: "123456789012345", action_source: website, counts: true }',
          )
          .replace(
            'config: { measurement_id: G-LOCAL12345 }',
            'config: { measurement_id: G-LOCAL12345, counts: true, counts_property: "4242" }',
          );
        assert.match(base, /counts: true }[\s\S]*counts_property/);
        writeFileSync(settingsFile, base + CHAT);
        return settingsFile;
      },
      env: { EVENTBUS_TICK_SECONDS: '2', EVENTBUS_STANDIN_COUNT_SHORTFALL: '0.1' },
    });
  });

  after(() => stopLocal(local?.child, dataDir()));

  const bigquery = () => new BigQuery({ projectId: 'local-project', apiEndpoint: url('bigquery') });
  const rows = async (query: string) =>
    (await bigquery().query({ query, params: { day } }))[0] as Record<string, unknown>[];

  it('delivers the events, then `eventbus reconcile` prints the day with the platforms’ counts', async () => {
    const run = Date.now().toString(36);
    const token = readFileSync(join(dataDir(), 'dev-token'), 'utf8').trim();
    // GA4 needs a client id: each event carries the tag's anonymous id.
    const res = await fetch(`${url('gateway')}/v1/topics/view_content`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        Array.from({ length: EVENTS }, (_, i) => ({
          event_id: `rec-${run}-${i}`,
          content_name: 'Red Shoe',
          content_type: 'product',
          anonymous_id: `anon-${run}-${i}`,
          user: { email: 'ann@example.com' },
          consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
        })),
      ),
    });
    assert.equal(res.status, 200, await res.clone().text());
    await until(
      'every event delivered to meta and ga4',
      async () => {
        const r = await rows(
          "SELECT destination, COUNT(DISTINCT event_id) AS n FROM events.deliveries WHERE status = 'delivered' AND destination IN ('meta', 'ga4') GROUP BY destination",
        );
        return r.length === 2 && r.every((x) => Number(x['n']) >= EVENTS) ? r : undefined;
      },
      120_000,
    );
    let out = '';
    let err = '';
    const code = await cli(
      ['reconcile', '--day', day, '--env', settingsFile, '--data-dir', dataDir(), '--format', 'json'],
      { out: (t) => (out += t), err: (t) => (err += t) },
    );
    assert.equal(code, 0, err);
    const printed = JSON.parse(out.slice(out.indexOf('{'))) as {
      counts: { destination: string; outcome: string }[];
      reconciliation: Record<string, unknown>[];
    };
    // One line per destination on its count: read, or why not.
    const outcome = Object.fromEntries(printed.counts.map((c) => [c.destination, c.outcome]));
    assert.equal(outcome['meta'], `read: ${EVENTS - 2} counted on ${day}`, out);
    assert.equal(outcome['ga4'], `read: ${EVENTS - 2} counted on ${day}`, out);
    assert.match(outcome['tiktok'] ?? '', /^not read: the platform reports no counts to this service/);
    assert.match(outcome['webhook'] ?? '', /^not read: the platform reports no counts: a webhook/);
    const of = (d: string) => printed.reconciliation.find((r) => r['destination'] === d) ?? {};
    const figures = (d: string) =>
      ['permitted', 'sent', 'accepted', 'counted'].map((k) => (of(d)[k] === null ? null : Number(of(d)[k])));
    assert.deepEqual(figures('meta'), [EVENTS, EVENTS, EVENTS, EVENTS - 2], out);
    assert.equal(of('meta')['counted_source'], 'meta pixel stats v25.0');
    assert.deepEqual(figures('ga4'), [EVENTS, EVENTS, EVENTS, EVENTS - 2], out);
    assert.equal(of('ga4')['counted_source'], 'ga4 runReport v1beta');
    // The view holds the same figures.
    const view = await rows(
      "SELECT destination, counted, counted_ratio FROM events.reconciliation WHERE day = DATE(@day) AND destination IN ('meta', 'ga4') ORDER BY destination",
    );
    assert.deepEqual(
      view.map((r) => [r['destination'], Number(r['counted']), Number(r['counted_ratio'])]),
      [
        ['ga4', EVENTS - 2, 0.9],
        ['meta', EVENTS - 2, 0.9],
      ],
    );
  });

  it('the counted-below alert fires at the chat stand-in', async () => {
    const admin = readFileSync(join(dataDir(), 'admin-token'), 'utf8').trim();
    const applied = await fetch(`${url('studio')}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents: [COUNTED_BELOW] }),
    });
    assert.equal(applied.status, 200, await applied.clone().text());
    const fired = await until(
      'a FIRING message for meta-counted-below',
      async () => {
        const r = (await (await fetch(`${url('receiver')}/received.json`)).json()) as {
          received: { destination: string; body: { text?: string } }[];
        };
        return r.received.find(
          (x) => x.destination === 'ops-chat' && /FIRING meta-counted-below/.test(x.body.text ?? ''),
        );
      },
      180_000,
    );
    assert.match(
      fired.body.text ?? '',
      /meta: the platform counted 18 of 20 accepted events \(90%\) on \d{4}-\d{2}-\d{2}; the threshold is 95%/,
    );
  });
});
