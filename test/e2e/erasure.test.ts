/**
 * Erasure on the local environment (`eventbus start`, what `npm start` runs; issue #61), as a
 * data-protection officer would do it: events of persons A and B sent to the gateway, stored and
 * forwarded; `eventbus erase email:<A> --wait` records the request and follows the scheduler's
 * erasure job (under the environment's IAM: the schedule function's own grants) through the
 * streaming buffer to completion; then A's events are gone, B's are there, the `erasures` row says
 * who asked and what was removed, and A's next event is stored and forwarded without their e-mail.
 */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import { sha256 } from '../../core/pii.ts';
import {
  eventbusIn,
  localBigQuery,
  publishEvent,
  type StartedLocal,
  startLocalCli,
  stopLocalCli,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

describe('end to end: erasing a person on the local environment (issue #61)', function () {
  this.timeout(300_000);
  let local: StartedLocal;
  let bigquery: BigQuery;
  const tag = `er${Date.now().toString(36)}`;
  const A = { email: `ann.${tag}@example.com`, user: `user-a-${tag}`, anon: `anon-a-${tag}` };
  const B = { email: `bob.${tag}@example.com`, user: `user-b-${tag}`, anon: `anon-b-${tag}` };

  before(async () => {
    // Ticks every 5 s: the erasure job still runs once a minute, as Cloud Scheduler would run it.
    local = await startLocalCli({ prefix: 'eventbus-erasure-', env: { EVENTBUS_TICK_SECONDS: '5' } });
    bigquery = await localBigQuery(local.ports);
  });
  after(() => stopLocalCli(local));

  const query = async (sql: string) => {
    const [rows] = await bigquery.query({ query: sql });
    return rows as Record<string, unknown>[];
  };
  const stored = (where: string, n: number) =>
    until(
      `${n} events where ${where}`,
      async () => {
        const rows = await query(`SELECT COUNT(*) AS n FROM \`local-project.events.events\` WHERE ${where}`);
        return Number(rows[0]?.['n']) === n ? true : undefined;
      },
      30_000,
    );
  const webhookBodies = async () => {
    const res = await fetch(`http://127.0.0.1:${local.ports['receiver']}/received.json`);
    const list = (await res.json()) as { received: { destination: string; body: unknown }[] };
    return list.received.filter((r) => r.destination === 'webhook').map((r) => JSON.stringify(r.body));
  };

  it('erase --wait completes through the streaming buffer; A is gone, B stays, A’s next event carries no e-mail', async () => {
    for (const [p, n] of [
      [A, 1],
      [B, 2],
    ] as const) {
      await publishEvent(local, 'view_content', {
        event_id: `${tag}-${n}-view`,
        content_name: 'Boots',
        content_type: 'product',
        anonymous_id: p.anon,
        page: { url: `https://shop.example/p?email=${encodeURIComponent(p.email)}` },
      });
      await publishEvent(local, 'sign_up', {
        event_id: `${tag}-${n}-signup`,
        anonymous_id: p.anon,
        user_id: p.user,
        user: { email: p.email, phone: `+33 6 12 34 56 7${n}` },
      });
    }
    await stored(`ENDS_WITH(anonymous_id, '${tag}')`, 4);
    await until('A forwarded to the webhook', async () =>
      (await webhookBodies()).some((b) => b.includes(A.email)) ? true : undefined,
    );

    const eventbus = eventbusIn(local.dataDir);
    const out = await eventbus(
      'erase',
      `email:${A.email}`,
      '--requested-by',
      'dpo@example.com',
      '--wait',
      '--timeout',
      '4',
    );
    assert.match(out, /erasure er-\d{8}-[0-9a-f]{8} recorded/);
    assert.match(out, /pending: /);
    assert.match(out, /^complete: /m);
    const id = /erasure (er-\S+) recorded/.exec(out)?.[1] as string;

    assert.deepEqual(
      (
        await query(
          `SELECT anonymous_id FROM \`local-project.events.events\` WHERE ENDS_WITH(anonymous_id, '${tag}')`,
        )
      ).map((r) => r['anonymous_id']),
      [B.anon, B.anon],
      'A’s events are gone, B’s are there',
    );
    const [audit] = await query(
      `SELECT status, requested_by, removed, identifier_hashes FROM \`local-project.eventbus_ops.erasures\` WHERE erasure_id = '${id}'`,
    );
    assert.equal(audit?.['status'], 'complete');
    assert.equal(audit?.['requested_by'], 'dpo@example.com');
    assert.equal(JSON.parse(String(audit?.['removed']))['events.events'], 2);
    assert.ok(!JSON.stringify(audit).includes(sha256(A.email)), 'the audit keeps second-order hashes only');
    assert.match(await eventbus('erase', '--status', id), /"status":"complete"/);

    // A comes back: the event is stored and forwarded, without what identifies them.
    await publishEvent(local, 'sign_up', {
      event_id: `${tag}-3-signup`,
      user_id: A.user,
      user: { email: A.email },
    });
    await stored(`event_id = '${tag}-3-signup'`, 1);
    const [row] = await query(
      `SELECT user_id, user.email AS email FROM \`local-project.events.events\` WHERE event_id = '${tag}-3-signup'`,
    );
    assert.equal(row?.['user_id'], null);
    assert.equal(row?.['email'], null);
    const sent = await until('the new event at the webhook', async () => {
      const bodies = (await webhookBodies()).filter((b) => b.includes(`${tag}-3-signup`));
      return bodies.length > 0 ? bodies : undefined;
    });
    for (const body of sent) {
      assert.ok(!body.includes(A.email) && !body.includes(A.user), body);
    }
  });
});
