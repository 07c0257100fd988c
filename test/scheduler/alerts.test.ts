/**
 * The scheduler's Alert job (functions/schedule/alerts.ts) with its warehouse and sender faked:
 * a breach notifies the connection once and writes `firing`; evaluations while firing notify
 * nothing; two clear ones resolve once; a failed send fails the chunk before the state is written;
 * a manual run sends a test message and leaves the incident alone.
 */
import assert from 'node:assert/strict';
import type { Snapshot } from '../../adapters/registry.ts';
import { type AlertQuery, type AlertState, alertQuery } from '../../core/alerts/alerts.ts';
import type { OutboundRequest } from '../../core/platforms/driver.ts';
import type { ResourceVersion } from '../../core/registry/registry.ts';
import type { RunTrigger } from '../../core/scheduler/dispatch.ts';
import { type AlertStateRow, alertsJob } from '../../functions/schedule/alerts.ts';
import type { Settings } from '../../schemas/settings.ts';
import { META_FAILING } from '../support/alert-fixture.ts';

const SETTINGS = {
  connections: [{ id: 'ops-chat', type: 'chat', url: 'http://chat.test/ops' }],
} as unknown as Settings;

const ALERT: ResourceVersion = {
  ...META_FAILING,
  version: '1.0',
  author: 't',
  created: '2026-11-23T00:00:00Z',
};

const snapshot = (docs: readonly ResourceVersion[]): Snapshot => ({
  kind: 'Alert',
  generation: 1,
  resources: new Map(docs.map((d) => [d.name, d])),
  readAt: 0,
  stale: false,
});

function harness() {
  const rows: AlertStateRow[] = [];
  const sent: OutboundRequest[] = [];
  const queries: AlertQuery[] = [];
  const world = { failed: 0, attempted: 0, sendStatus: 200 };
  const job = alertsJob({
    settings: SETTINGS,
    alerts: async () => snapshot([ALERT]),
    sql: (spec, now) =>
      alertQuery(spec.condition, now, {
        events: 'e',
        invalidEvents: 'i',
        deliveries: 'd',
        erasures: 'x',
        reconciliation: () => 'r',
      }),
    query: async (q) => {
      queries.push(q);
      return { failed: world.failed, attempted: world.attempted };
    },
    readState: async (): Promise<AlertState | undefined> => rows.at(-1),
    writeState: async (row) => {
      rows.push(row);
    },
    secret: async () => undefined,
    send: async (request) => {
      sent.push(request);
      return { kind: 'response' as const, status: world.sendStatus, body: '', headers: {} };
    },
  });
  let minute = 0;
  const evaluate = (trigger: RunTrigger = 'schedule') => {
    const slot = new Date(Date.UTC(2026, 10, 23, 12, minute++)).toISOString();
    return job.chunk({
      run: { kind: 'Alert', name: 'meta-failing', slot, trigger },
      runId: `Alert/meta-failing@${slot}`,
      cursor: null,
      chunk: 0,
      now: new Date(slot),
      fence: async () => {},
    });
  };
  const texts = () => sent.map((r) => (JSON.parse(String(r.body)) as { text: string }).text);
  return { rows, sent, queries, world, evaluate, texts, job };
}

describe('scheduler: the Alert job', () => {
  it('schedules each enabled alert on its own schedule', async () => {
    const { job } = harness();
    assert.deepEqual(await job.scheduled(new Date()), [
      { kind: 'Alert', name: 'meta-failing', schedule: { every: '1m' } },
    ]);
  });

  it('fires once, stays quiet while firing, resolves once after two clear evaluations', async () => {
    const h = harness();
    const at = (failed: number, attempted: number) => Object.assign(h.world, { failed, attempted });
    at(0, 4);
    await h.evaluate();
    at(4, 4);
    await h.evaluate();
    await h.evaluate();
    at(0, 4);
    await h.evaluate();
    at(3, 4); // back over the threshold while clearing: still the same incident
    await h.evaluate();
    at(0, 4);
    await h.evaluate();
    await h.evaluate();
    await h.evaluate();
    assert.deepEqual(
      h.rows.map((r) => `${r.status}${r.notice ? ` ${r.notice}` : ''}`),
      ['ok', 'firing fired', 'firing', 'firing', 'firing', 'firing', 'ok resolved', 'ok'],
    );
    assert.equal(h.sent.length, 2);
    assert.match(
      h.texts()[0] ?? '',
      /^\[eventbus alert\] FIRING meta-failing: meta failed 4 of 4 attempts \(100%\)/,
    );
    assert.match(h.texts()[1] ?? '', /^\[eventbus alert\] RESOLVED meta-failing: meta failed 0 of 4/);
    assert.equal(h.sent[0]?.url, 'http://chat.test/ops');
    assert.equal(h.rows[6]?.incident, 'meta-failing@2026-11-23T12:01:00.000Z');
    // The query reads the window ending at the slot.
    assert.deepEqual(h.queries[1]?.params, {
      destination: 'meta',
      since: '2026-11-23T12:00:00.000Z',
      until: '2026-11-23T12:01:00.000Z',
    });
  });

  it('a notice that cannot be sent fails the chunk and writes no state, so the retry fires it', async () => {
    const h = harness();
    Object.assign(h.world, { failed: 2, attempted: 2, sendStatus: 500 });
    await assert.rejects(h.evaluate(), /fired not sent to ops-chat: HTTP 500/);
    assert.equal(h.rows.length, 0);
    h.world.sendStatus = 200;
    await h.evaluate();
    assert.deepEqual(
      h.rows.map((r) => r.notice),
      ['fired'],
    );
  });

  it('a manual run sends a test message and leaves the incident state alone', async () => {
    const h = harness();
    Object.assign(h.world, { failed: 2, attempted: 2 });
    const r = await h.evaluate('manual');
    assert.deepEqual(r.summary, { test: true, breached: true });
    assert.equal(h.rows.length, 0);
    assert.match(h.texts()[0] ?? '', /^\[eventbus alert\] TEST \(nothing is wrong/);
  });
});
