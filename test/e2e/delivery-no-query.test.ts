/**
 * No warehouse on the delivery path (#97), through the running local environment (`eventbus
 * start`, IAM on: each workload calls the emulators as itself): Meta's stand-in answers 503 to its
 * next requests (an outage), so events are redelivered to `forward` several times before Meta
 * takes them, and every attempt after the first takes the send-once claim. Each event is then one
 * `delivered` row and one request Meta accepted, and the BigQuery emulator's job list — every job
 * with the member that ran it — holds no job run by `forward` or `forward-catalog`: whether a
 * delivery happened was the claim's word alone.
 */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import { SCRIPT_PATH } from '../../local/platforms/server.ts';
import {
  localBigQuery,
  postViewContent,
  type StartedLocal,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

interface ListedJob {
  readonly user_email?: string;
  readonly configuration?: { readonly jobType?: string };
}

describe('end to end: redeliveries after an outage are decided from the claim, never a query', function () {
  this.timeout(300_000);
  let local: StartedLocal | undefined;
  let bigquery: BigQuery;
  const url = (service: string) => `http://127.0.0.1:${local?.ports[service]}`;
  const run = Date.now().toString(36);

  before(async () => {
    local = await startLocalCli({ prefix: 'eventbus-no-query-' });
    bigquery = await localBigQuery(local.ports);
  });
  after(() => stopLocal(local?.child, local?.dataDir ?? ''));

  const send = async (id: string) => {
    const res = await postViewContent(url('gateway'), local?.dataDir ?? '', id);
    assert.equal(res.status, 200, await res.clone().text());
  };

  const ledger = async (ids: readonly string[]) =>
    (
      await bigquery.query({
        query: `SELECT event_id, status, attempt FROM events.deliveries
                WHERE destination = 'meta' AND event_id IN UNNEST(@ids)`,
        params: { ids: [...ids] },
      })
    )[0] as { event_id: string; status: string; attempt: number }[];

  it('sends each event once after the outage, and forward runs no BigQuery job', async () => {
    const ids = [0, 1, 2].map((i) => `noquery-${run}-${i}`);
    // Meta is down for its next 9 requests: each event fails about three times, then is delivered.
    const scripted = await fetch(`${url('receiver')}/meta${SCRIPT_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        answers: Array.from({ length: 9 }, () => ({ status: 503, body: { error: { message: 'down' } } })),
      }),
    });
    assert.equal(scripted.status, 204, await scripted.clone().text());
    for (const id of ids) await send(id);
    const rows = await until(
      'every event delivered to meta',
      async () => {
        const r = await ledger(ids);
        return ids.every((id) => r.some((x) => x.event_id === id && x.status === 'delivered'))
          ? r
          : undefined;
      },
      240_000,
    );
    // Let redeliveries still in flight land before counting.
    await new Promise((r) => setTimeout(r, 3000));
    const final = await ledger(ids);
    const failed = final.filter((r) => r.status === 'failed').length;
    assert.ok(
      failed >= 3,
      `the outage made redeliveries (${failed} failed attempts; ${JSON.stringify(rows)})`,
    );
    assert.ok(
      final.some((r) => r.status === 'delivered' && r.attempt > 1),
      'a delivery came from a redelivery, which takes the send-once claim',
    );
    for (const id of ids)
      assert.equal(
        final.filter((r) => r.event_id === id && r.status === 'delivered').length,
        1,
        `${id}: one delivered row (${JSON.stringify(final.filter((r) => r.event_id === id))})`,
      );

    const res = await fetch(
      `${url('bigquery')}/bigquery/v2/projects/local-project/jobs?allUsers=true&maxResults=100000`,
    );
    assert.equal(res.status, 200, await res.clone().text());
    const jobs = ((await res.json()) as { jobs?: ListedJob[] }).jobs ?? [];
    const emails = new Set(jobs.map((j) => j.user_email));
    assert.ok(
      jobs.length > 0 && jobs.every((j) => typeof j.user_email === 'string'),
      'every job names who ran it',
    );
    const fromDeliverers = [...emails].filter((e) => /^eventbus-forward(-catalog)?@/.test(String(e)));
    assert.deepEqual(fromDeliverers, [], `jobs were run by: ${[...emails].join(', ')}`);
  });
});
