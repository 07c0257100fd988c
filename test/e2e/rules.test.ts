/**
 * Rules (experimental) end to end on the local environment, as a user would set one up: the
 * settings turn rules on and name a chat connection (the local receiver); a Rule is applied
 * through the studio's admin API; purchases are POSTed to the gateway. A purchase over 500 fires
 * a chat message and a `high_value_customer` event once per user per day: two such purchases by
 * one user fire once, one each by two users fire twice; the published event is stored like any
 * other; every outcome (sent, skipped by once_per) is a row of action_runs.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { run as cli } from '../../cli/main.ts';
import { REPO, startLocalCli, stopLocal } from '../support/local-start.ts';
import { until } from '../support/until.ts';

/** What the test adds to environments/local.yaml: rules on, a chat connection, a webhook that is down. */
const RULES_SETTINGS = `
experimental:
  rules: true
  rules_retry: { minimum_backoff: 0.1s, maximum_backoff: 0.2s, max_attempts: 5 }
connections:
  - id: sales-chat
    type: chat
    url: http://127.0.0.1:8099/chat/sales
  - id: down-hook
    type: webhook
    url: http://127.0.0.1:9/down
`;

const RULE = {
  kind: 'Rule',
  name: 'high-value-purchase',
  description: 'Tell sales about big orders, once per customer per day',
  owner: 'sales-ops@acme.example',
  spec: {
    trigger: { event: { names: ['purchase'], all: [{ field: 'value', op: 'gt', value: 500 }] } },
    once_per: { key: 'user_id', period: '1d' },
    actions: [
      {
        chat: {
          connection: 'sales-chat',
          text: 'Big order {{transaction_id}} from {{user_id}}: {{value}} {{currency}}',
        },
      },
      {
        publish: {
          event_name: 'high_value_customer',
          fields: { order_value: 'value', order_id: 'transaction_id' },
        },
      },
    ],
  },
};

describe('end to end: a rule acts on stored events (experimental)', function () {
  this.timeout(120000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  const ports: Record<string, number> = {};
  let bigquery: BigQuery;

  let settingsFile = '';
  before(async () => {
    const local = await startLocalCli({
      prefix: 'eventbus-rules-',
      settings: (dir) => {
        const file = join(dir, 'rules.yaml');
        settingsFile = file;
        // The local webhook destination takes the events the rule publishes (a custom event
        // reaches a webhook when it is allowed there, docs/architecture.md §3).
        const local = readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8');
        const hook = '    config: { path: /webhook, format: standard-webhooks }\n';
        assert.ok(local.includes(hook), 'environments/local.yaml has the webhook destination');
        writeFileSync(
          file,
          `${local.replace(hook, `${hook}    events: { allow: [high_value_customer] }\n`)}${RULES_SETTINGS}`,
        );
        return file;
      },
      // The scheduled rule's first slot is dispatched by the first tick after it is applied. The
      // down webhook is a loopback port named to the egress gate, so what it meets is a refused
      // connection, as a receiver that is down, not the gate's refusal of loopback.
      env: { EVENTBUS_TICK_SECONDS: '2', EVENTBUS_EGRESS_ALLOW: 'http://127.0.0.1:9' },
    });
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    bigquery = new BigQuery({
      projectId: 'local-project',
      apiEndpoint: `http://127.0.0.1:${ports['bigquery']}`,
    });
  });

  after(() => stopLocal(child, dataDir));

  const query = async <T>(sql: string): Promise<T[]> => (await bigquery.query({ query: sql }))[0] as T[];

  it('refuses a rule naming an unknown connection, then applies the real one', async () => {
    const studio = `http://127.0.0.1:${ports['studio']}`;
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const apply = (doc: unknown) =>
      fetch(`${studio}/v1/admin/apply`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ documents: [doc] }),
      });
    const bad = structuredClone(RULE);
    (bad.spec.actions[0] as { chat: { connection: string } }).chat.connection = 'nope';
    const refused = await apply(bad);
    assert.equal(refused.status, 400);
    assert.match(
      await refused.text(),
      /unknown connection \\"nope\\" \(settings: sales-chat \(chat\), down-hook \(webhook\)\)/,
    );
    const ok = await apply(RULE);
    assert.equal(ok.status, 200, await ok.clone().text());
  });

  it('retries a firing whose webhook is down, then records it as dead-lettered', async () => {
    const studio = `http://127.0.0.1:${ports['studio']}`;
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const doc = {
      kind: 'Rule',
      name: 'refund-alert',
      spec: {
        trigger: { event: { names: ['refund'] } },
        actions: [{ webhook: { connection: 'down-hook' } }],
      },
    };
    const applied = await fetch(`${studio}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents: [doc] }),
    });
    assert.equal(applied.status, 200, await applied.clone().text());
    const id = `refund-${Date.now().toString(36)}`;
    const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${ports['gateway']}/v1/topics/refund`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: id, transaction_id: 'T-9', value: 10, currency: 'EUR' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const rows = await until(
      'the dead letter in action_runs',
      async () => {
        const r = await query<{ status: string; attempt: number | null; reason: string }>(
          `SELECT status, attempt, reason FROM events.action_runs WHERE event_id = '${id}' ORDER BY recorded_at, status`,
        );
        return r.some((x) => x.status === 'dead_lettered') ? r : undefined;
      },
      60000,
    );
    // rules_retry allows 5 attempts (Pub/Sub's least): each failure is a row, then the dead letter.
    assert.deepEqual(
      rows.map((r) => r.status),
      ['failed', 'failed', 'failed', 'failed', 'failed', 'dead_lettered'],
    );
    assert.match(rows[0]?.reason ?? '', /ECONNREFUSED|connect|fetch failed/i);
    assert.equal(rows[5]?.attempt, 5);
  });

  it('fires once per user per day, publishes the event back, and records every outcome', async () => {
    const run = Date.now().toString(36);
    const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    const purchase = (n: number, user: string, value: number) => ({
      event_id: `${run}-p${n}`,
      transaction_id: `T-${run}-${n}`,
      value,
      currency: 'EUR',
      user_id: `${user}-${run}`,
      consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
    });
    const purchases = [
      purchase(1, 'ana', 600),
      purchase(2, 'ana', 900), // the same user, the same day: once_per folds it
      purchase(3, 'ben', 800),
      purchase(4, 'cy', 100), // under the threshold
    ];
    for (const [i, p] of purchases.entries()) {
      const res = await fetch(`http://127.0.0.1:${ports['gateway']}/v1/topics/purchase`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(p),
      });
      assert.equal(res.status, 200, await res.clone().text());
      // Pub/Sub pushes in no set order: ana's first purchase is acted on before her second is
      // sent, so which one once_per folds is the second (on a loaded machine the order varied).
      if (i === 0)
        await until(
          'the first firing',
          async () => {
            const rows = await query<{ n: number }>(
              `SELECT COUNT(*) AS n FROM events.action_runs WHERE event_id = '${run}-p1'`,
            );
            return Number(rows[0]?.n ?? 0) > 0 ? true : undefined;
          },
          60000,
        );
    }
    const receiver = `http://127.0.0.1:${ports['receiver']}`;
    const chats = await until(
      'two chat messages',
      async () => {
        const r = (await (await fetch(`${receiver}/received.json`)).json()) as {
          received: { destination: string; body: { text?: string } }[];
        };
        const mine = r.received.filter((x) => x.destination === 'sales-chat' && x.body.text?.includes(run));
        return mine.length >= 2 ? mine : undefined;
      },
      60000,
    );
    const runs = await until(
      'the skipped firing in action_runs',
      async () => {
        const rows = await query<{ event_id: string; action: string; status: string }>(
          `SELECT event_id, action, status FROM events.action_runs WHERE STARTS_WITH(event_id, '${run}') ORDER BY event_id, action`,
        );
        return rows.some((r) => r.status === 'skipped_once') &&
          rows.filter((r) => r.status === 'sent').length >= 4
          ? rows
          : undefined;
      },
      60000,
    );
    assert.deepEqual(
      runs.map((r) => `${r.event_id.slice(run.length + 1)} ${r.action} ${r.status}`),
      [
        'p1 chat:sales-chat sent',
        'p1 publish:high_value_customer sent',
        'p2 once_per skipped_once',
        'p3 chat:sales-chat sent',
        'p3 publish:high_value_customer sent',
      ],
    );
    // Give a stray third firing time to show up before counting.
    await new Promise((r) => setTimeout(r, 1500));
    const again = (await (await fetch(`${receiver}/received.json`)).json()) as {
      received: { destination: string; body: { text?: string } }[];
    };
    const texts = again.received
      .filter((x) => x.destination === 'sales-chat' && x.body.text?.includes(run))
      .map((x) => x.body.text)
      .sort();
    assert.deepEqual(texts, [
      `Big order T-${run}-1 from ana-${run}: 600 EUR`,
      `Big order T-${run}-3 from ben-${run}: 800 EUR`,
    ]);
    assert.equal(chats.length, 2);
    const stored = await until(
      'the published high_value_customer events',
      async () => {
        const rows = await query<{ user_id: string; order_value: string }>(
          `SELECT user_id, JSON_VALUE(event_data, '$.order_value') AS order_value
           FROM events.events_dedup WHERE event_name = 'high_value_customer' AND ENDS_WITH(user_id, '${run}') ORDER BY user_id`,
        );
        return rows.length >= 2 ? rows : undefined;
      },
      60000,
    );
    assert.deepEqual(
      stored.map((r) => [r.user_id, Number(r.order_value)]),
      [
        [`ana-${run}`, 600],
        [`ben-${run}`, 800],
      ],
    );
    // Stored first, then forwarded like any other event: the webhook destination receives both.
    const forwarded = await until(
      'the published events at the webhook destination',
      async () => {
        const r = (await (await fetch(`${receiver}/received.json`)).json()) as {
          received: { destination: string; body: { event_name?: string; user_id?: string } }[];
        };
        const mine = r.received.filter(
          (x) =>
            x.destination === 'webhook' &&
            x.body.event_name === 'high_value_customer' &&
            x.body.user_id?.endsWith(run),
        );
        return new Set(mine.map((x) => x.body.user_id)).size >= 2 ? mine : undefined;
      },
      60000,
    );
    assert.deepEqual([...new Set(forwarded.map((x) => x.body.user_id))].sort(), [`ana-${run}`, `ben-${run}`]);
  });

  it('`rule test --since` agrees with what the rule did over the same stored events; `rule runs` lists it', async () => {
    const eventbus = async (...argv: string[]) => {
      let out = '';
      let err = '';
      const code = await cli([...argv, '--env', settingsFile, '--data-dir', dataDir], {
        out: (t) => (out += t),
        err: (t) => (err += t),
      });
      assert.equal(code, 0, err);
      return out;
    };
    const test = await eventbus('rule', 'test', 'high-value-purchase', '--since', '1h');
    const m =
      /over (\d+) stored event\(s\) since .*: would fire (\d+) time\(s\), (\d+) skipped by once_per; nothing was sent/.exec(
        test,
      );
    assert.ok(m, test);
    const [did] = await query<{ fired: number; skipped: number }>(
      `SELECT COUNT(DISTINCT IF(status = 'sent', event_id, NULL)) AS fired,
              COUNT(DISTINCT IF(status = 'skipped_once', event_id, NULL)) AS skipped
       FROM events.action_runs WHERE rule = 'high-value-purchase'`,
    );
    assert.deepEqual([Number(m[2]), Number(m[3])], [Number(did?.fired), Number(did?.skipped)], test);
    assert.deepEqual([Number(m[2]), Number(m[3])], [2, 1]);
    const runs = JSON.parse(await eventbus('rule', 'runs', 'high-value-purchase', '--format', 'json')) as {
      status: string;
    }[];
    assert.deepEqual(runs.map((r) => r.status).sort(), ['sent', 'sent', 'sent', 'sent', 'skipped_once']);
  });

  it('runs a scheduled rule’s query on its slot and fires once per abandoned cart', async () => {
    const run = `c${Date.now().toString(36)}`;
    const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    const send = async (name: string, body: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${ports['gateway']}/v1/topics/${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, await res.clone().text());
    };
    const cart = (user: string, sku: string) =>
      send('add_to_cart', { user_id: `${user}-${run}`, items: [{ item_id: sku, quantity: 1 }] });
    await cart('dora', 'SKU1');
    await cart('dora', 'SKU2');
    await cart('eli', 'SKU3');
    await cart('finn', 'SKU4');
    // Finn checked out: not abandoned.
    await send('purchase', {
      user_id: `finn-${run}`,
      transaction_id: `T-${run}`,
      value: 20,
      currency: 'EUR',
    });
    await until(
      'the events stored',
      async () => {
        const [r] = await query<{ n: number }>(
          `SELECT COUNT(*) AS n FROM events.events_dedup WHERE ENDS_WITH(user_id, '${run}')`,
        );
        return Number(r?.n) === 5 ? true : undefined;
      },
      30000,
    );
    const studio = `http://127.0.0.1:${ports['studio']}`;
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const applied = await fetch(`${studio}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        documents: [
          {
            kind: 'Rule',
            name: 'abandoned-carts',
            spec: {
              trigger: {
                schedule: { every: '1m' },
                sql: `SELECT user_id, COUNT(*) AS items FROM events.events_dedup a
                      WHERE event_name = 'add_to_cart' AND ENDS_WITH(user_id, '${run}')
                        AND user_id NOT IN (SELECT user_id FROM events.events_dedup
                                            WHERE event_name = 'purchase' AND user_id IS NOT NULL)
                      GROUP BY user_id`,
              },
              once_per: { key: 'user_id', period: 'forever' },
              actions: [
                { chat: { connection: 'sales-chat', text: 'Cart left by {{user_id}} ({{items}} items)' } },
              ],
            },
          },
        ],
      }),
    });
    assert.equal(applied.status, 200, await applied.clone().text());
    const receiver = `http://127.0.0.1:${ports['receiver']}`;
    const texts = await until(
      'a chat message per abandoned cart',
      async () => {
        const r = (await (await fetch(`${receiver}/received.json`)).json()) as {
          received: { destination: string; body: { text?: string } }[];
        };
        const mine = r.received
          .filter((x) => x.destination === 'sales-chat' && x.body.text?.includes(run))
          .map((x) => x.body.text)
          .sort();
        return mine.length >= 2 ? mine : undefined;
      },
      90000,
    );
    assert.deepEqual(texts, [`Cart left by dora-${run} (2 items)`, `Cart left by eli-${run} (1 items)`]);
    // The run's row is written after its message has gone: read until both are there (CI once
    // read eli's alone, a moment after both messages arrived), then judge them.
    const rowsNow = () =>
      query<{ status: string; once_key: string }>(
        `SELECT status, once_key FROM events.action_runs WHERE rule = 'abandoned-carts' AND ENDS_WITH(once_key, '${run}') ORDER BY once_key`,
      );
    const rows = await until(
      'an action run row per message',
      async () => {
        const r = await rowsNow();
        return r.length >= 2 ? r : undefined;
      },
      30000,
    ).catch(() => rowsNow());
    assert.deepEqual(
      rows.map((r) => `${r.once_key} ${r.status}`),
      [`dora-${run} sent`, `eli-${run} sent`],
    );
  });
});
