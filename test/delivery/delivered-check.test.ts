/**
 * adapters/delivered-check.ts: redeliveries ask the ledger whether they were delivered; the
 * questions of a burst share one query on the BigQuery emulator; a slow or failing ledger answers
 * "no" (fail-open) and says so.
 */
import assert from 'node:assert/strict';
import {
  createDeliveredCheck,
  type DeliveredQuery,
  ledgerDeliveredQuery,
} from '../../adapters/delivered-check.ts';
import { plan } from '../../core/plan.ts';
import { type Harness, startHarness } from '../../emulators/bigquery/test/support/helpers.ts';
import { provision } from '../../local/provision.ts';
import { testSettings } from '../storage/support.ts';

describe('ledger check on redelivery', () => {
  let h: Harness;
  let query: DeliveredQuery;
  before(async () => {
    const p = plan(testSettings());
    h = await startHarness(p.project);
    await provision(p, { project: p.project, bigquery: h.emulator.url, functionUrl: () => '' });
    const now = new Date().toISOString();
    const row = (
      event_id: string,
      destination: string,
      status: string,
      payload_digest: string | null = null,
    ) => ({
      payload_digest,
      event_id,
      event_name: 'purchase',
      destination,
      status,
      reason: null,
      attempt: 1,
      http_status: 200,
      replay: false,
      recorded_at: now,
    });
    await h.bq
      .dataset(p.dataset)
      .table('deliveries')
      .insert([
        row('e1', 'hook', 'delivered'),
        row('e2', 'hook', 'failed'),
        row('e3', 'meta', 'delivered'),
        row('shared', 'hook', 'delivered', 'digest-of-view-content'),
      ]);
    query = ledgerDeliveredQuery(h.bq, p.dataset);
  });
  after(() => h.stop());

  it('answers a burst of questions with one query', async () => {
    let queries = 0;
    const counted: DeliveredQuery = (ids, destinations) => {
      queries += 1;
      return query(ids, destinations);
    };
    const check = createDeliveredCheck(counted);
    const answers = await Promise.all([
      check('e1', 'hook'),
      check('e2', 'hook'),
      check('e3', 'hook'),
      check('e3', 'meta'),
      check('e1', 'hook'),
      check('nope', 'hook'),
    ]);
    assert.deepEqual(answers, [true, false, false, true, true, false]);
    assert.equal(queries, 1);
  });

  it('asks by identity: another event that reused a delivered event_id is not taken for it', async () => {
    const check = createDeliveredCheck(query);
    const answers = await Promise.all([
      check('shared', 'hook', 'digest-of-view-content'),
      check('shared', 'hook', 'digest-of-purchase'),
      // A message from before digests matches by id; so does a row without one.
      check('shared', 'hook'),
      check('e1', 'hook', 'any-digest'),
    ]);
    assert.deepEqual(answers, [true, false, true, true]);
  });

  it('fails open when the ledger is slow or down, and says so', async () => {
    const logged: string[] = [];
    const never: DeliveredQuery = () => new Promise(() => undefined);
    const slow = createDeliveredCheck(never, { timeoutMs: 30, log: (m) => logged.push(m) });
    assert.equal(await slow('e1', 'hook'), false);
    const down = createDeliveredCheck(() => Promise.reject(new Error('503 backendError')), {
      log: (m) => logged.push(m),
    });
    assert.equal(await down('e1', 'hook'), false);
    assert.equal(logged.length, 2);
    assert.match(logged[0] as string, /took over 30 ms.*fail-open/);
    assert.match(logged[1] as string, /503 backendError.*fail-open/);
  });
});
