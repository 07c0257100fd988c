/**
 * Every path a delivery's outcome takes records the delivery metrics (adapters/delivery-metrics.ts),
 * because they are recorded in the one place all of them cross: the forward handler's answer once
 * the rows are written. Each path below is pushed through the real handler (served by the functions
 * framework) and must add one count under its destination and status; a path that records nothing
 * fails its test.
 */
import assert from 'node:assert/strict';
import { DELIVERY_METRICS, METRIC_ATTRIBUTES } from '../../adapters/delivery-metrics.ts';
import { DEAD_LETTER_ATTRIBUTES } from '../../core/delivery/dead-letter.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import { type DeliveryMessage, deliveryMessage } from '../../core/delivery/message.ts';
import { replayFromDeadLetter } from '../../core/delivery/replay.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import { createForwardHandler } from '../../functions/forward/handler.ts';
import { createForwardCatalogHandler } from '../../functions/forward-catalog/handler.ts';
import { type FrameworkServer, postPush, serveFunction } from '../support/framework-server.ts';
import { metricsInMemory, type TestMetrics } from '../support/metrics.ts';
import { SIGNING_KEY, testSettings } from './support/stack.ts';

const event = (id: string) =>
  ({
    event_id: id,
    event_name: 'purchase',
    event_time: new Date().toISOString(),
    received_at: new Date(Date.now() - 2_000).toISOString(),
    payload_digest: 'd'.repeat(64),
    event_data: {},
  }) as unknown as StoredEvent;

describe('forward: every path records the delivery metrics', () => {
  let m: TestMetrics;
  let forward: FrameworkServer;
  let catalog: FrameworkServer;
  const settings = testSettings();
  const rows: LedgerEntry['row'][] = [];
  const ledger = {
    write: async (entries: readonly LedgerEntry[]) => {
      rows.push(...entries.map((e) => e.row));
      return [];
    },
  };
  const secrets = { get: async () => SIGNING_KEY, peek: () => ({ value: SIGNING_KEY }) };

  before(async () => {
    m = metricsInMemory();
    forward = await serveFunction(
      'forwardMetricsTest',
      createForwardHandler({ settings, plan: plan(settings) }, () => ({
        secrets,
        ledger,
        send: async () => ({ kind: 'response', status: 200, headers: {}, body: 'ok' }),
      })),
    );
    catalog = await serveFunction(
      'forwardCatalogMetricsTest',
      createForwardCatalogHandler({ settings, plan: plan(settings) }, () => ({
        secrets,
        ledger,
        fetch: globalThis.fetch,
      })),
    );
  });
  after(async () => {
    await forward?.close();
    await catalog?.close();
    await m?.shutdown();
  });

  /** The outcome count of `hook` with `status`, and how many latencies `hook` has, now. */
  const now = async (status: string) => {
    const outcomes = await m.points(DELIVERY_METRICS.outcomes);
    const latency = await m.points(DELIVERY_METRICS.latency);
    const hook = (p: { attributes: Readonly<Record<string, unknown>> }) =>
      p.attributes[METRIC_ATTRIBUTES.destination] === 'hook';
    return {
      count: outcomes.find((p) => hook(p) && p.attributes[METRIC_ATTRIBUTES.status] === status)?.value ?? 0,
      latencies: latency.find(hook)?.histogram?.count ?? 0,
    };
  };

  const paths: {
    readonly path: string;
    readonly to: () => FrameworkServer;
    readonly message: (id: string) => DeliveryMessage;
    readonly status: string;
    /** Whether its delivered row counts in the end-to-end latency (replays do not, as in the alert). */
    readonly latency: boolean;
  }[] = [
    {
      path: 'forward: a first fan-out delivered',
      to: () => forward,
      message: (id) => deliveryMessage(event(id), 'hook'),
      status: 'delivered',
      latency: true,
    },
    {
      path: 'forward-catalog: a push it has no driver for, recorded rejected',
      to: () => catalog,
      message: (id) => deliveryMessage(event(id), 'hook'),
      status: 'rejected',
      latency: false,
    },
    {
      path: 're-drive: a dead letter published again from the backlog',
      to: () => forward,
      message: (id) => {
        const dead = deliveryMessage(event(id), 'hook');
        const again = replayFromDeadLetter(
          { data: dead.data, attributes: { ...dead.attributes, [DEAD_LETTER_ATTRIBUTES.count]: '5' } },
          'hook',
        );
        if (!again.ok) throw new Error(again.reason);
        return again.message;
      },
      status: 'delivered',
      latency: false,
    },
    {
      path: 'replay: an event replayed from the warehouse (replay --force)',
      to: () => forward,
      message: (id) => deliveryMessage(event(id), 'hook', true, true),
      status: 'delivered',
      latency: false,
    },
    {
      path: "dead letter: the dead-letter subscription's push, recorded dead_lettered",
      to: () => forward,
      message: (id) => {
        const dead = deliveryMessage(event(id), 'hook');
        return {
          data: dead.data,
          attributes: {
            ...dead.attributes,
            [DEAD_LETTER_ATTRIBUTES.count]: '5',
            [DEAD_LETTER_ATTRIBUTES.subscription]: 'projects/delivery-test/subscriptions/deliveries-hook',
          },
        };
      },
      status: 'dead_lettered',
      latency: false,
    },
  ];

  for (const [i, p] of paths.entries())
    it(p.path, async () => {
      const id = `metrics-path-${i}`;
      const before = await now(p.status);
      const res = await postPush(p.to().url, {
        ...p.message(id),
        messageId: `m-${id}`,
        subscription: 'projects/delivery-test/subscriptions/deliveries-hook',
      });
      assert.equal(res.status, 204, await res.text());
      assert.deepEqual(
        rows.filter((r) => r.event_id === id).map((r) => r.status),
        [p.status],
      );
      const after = await now(p.status);
      assert.equal(after.count - before.count, 1, `${p.path}: one ${p.status} count`);
      assert.equal(after.latencies - before.latencies, p.latency ? 1 : 0, `${p.path}: latencies`);
    });
});
