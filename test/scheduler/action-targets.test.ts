/**
 * The schedule function's actions (functions/schedule/actions.ts) with a rule stored before apply
 * refused internal topics: its `publish` to `runs` is not sent (the scheduler would misread it,
 * or it would vanish); the firing records the reason as a failed action instead.
 */
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../core/event.ts';
import type { Firing, RuleVersion } from '../../core/rules/rules.ts';
import { type ActionRunRow, runFiring } from '../../functions/schedule/actions.ts';

describe('schedule: a stored rule publishing to an internal topic', () => {
  it('publishes nothing there and records why', async () => {
    const rule: RuleVersion = {
      name: 'loop',
      version: '1.0',
      spec: {
        trigger: { event: { names: ['purchase'] } },
        actions: [{ publish: { event_name: 'run_me', topic: 'runs' } }],
      },
    };
    const event: StoredEvent = {
      event_name: 'purchase',
      event_id: 'p1',
      event_time: '2026-11-23T10:00:00.000Z',
      event_data: {},
    };
    const firing: Firing = {
      rule: 'loop',
      version: '1.0',
      firing_id: 'f1',
      key: null,
      slot: null,
      hops: 0,
      event,
    };
    const published: string[] = [];
    const written: ActionRunRow[] = [];
    const outcome = await runFiring(
      {
        settings: { name: 't', project: 'some-project', region: 'europe-west1' },
        readRule: async () => rule,
        claimOnce: async () => 'claimed',
        secret: async () => undefined,
        send: async () => {
          throw new Error('nothing is sent over HTTP here');
        },
        publish: async (topic) => {
          published.push(topic);
        },
        writeRuns: async (rows) => {
          written.push(...rows.map((r) => r.row));
        },
      },
      firing,
      1,
    );
    assert.deepEqual(published, []);
    assert.equal(written.length, 1);
    assert.equal(written[0]?.status, 'failed');
    assert.match(written[0]?.reason ?? '', /"runs" is an internal topic/);
    assert.equal(outcome.ack, false);
  });
});
