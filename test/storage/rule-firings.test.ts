/**
 * `store`'s rules hook (adapters/rule-firings.ts) with a bad rule in the registry: a stored Rule
 * whose once-per period is 0 (accepted before apply checked it) made every matching push throw
 * `Invalid time value` after its rows were written, so each redelivery stored another copy.
 * Such a rule is skipped with its reason logged; the others still fire.
 */
import assert from 'node:assert/strict';
import type { Snapshot } from '../../adapters/registry.ts';
import { createRuleFirings } from '../../adapters/rule-firings.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { ResourceVersion } from '../../core/registry/registry.ts';
import type { PubSubMessage } from '../../core/store/message.ts';

const ruleVersion = (name: string, period: string): ResourceVersion => ({
  kind: 'Rule',
  name,
  version: '1.0',
  author: 'test',
  created: '2026-11-23T00:00:00Z',
  spec: {
    trigger: { event: { names: ['purchase'] } },
    once_per: { key: 'user_id', period },
    actions: [{ publish: { event_name: 'big_spender' } }],
  },
});

describe("store's rules hook: a stored rule that fails today's checks", () => {
  it('is skipped with a logged reason instead of throwing after the write', async () => {
    const snapshot: Snapshot = {
      kind: 'Rule',
      generation: 1,
      resources: new Map([
        ['zero', ruleVersion('zero', '0m')],
        ['daily', ruleVersion('daily', '1d')],
      ]),
      readAt: 0,
      stale: false,
    };
    const published: { data: string }[] = [];
    const logs: string[] = [];
    const hook = createRuleFirings({
      rules: async () => snapshot,
      publish: async (m) => published.push(...m),
      log: (line) => logs.push(line),
    });
    const event: StoredEvent = {
      event_name: 'purchase',
      event_id: 'p1',
      event_time: '2026-11-23T10:00:00.000Z',
      user_id: 'ana',
      event_data: {},
    };
    const message: PubSubMessage = {
      messageId: 'm1',
      publishTime: event.event_time,
      attributes: {},
      data: new Uint8Array(),
      subscription: 'events-store',
      deliveryAttempt: 1,
    };
    await hook([event], [message]);
    await hook([{ ...event, event_id: 'p2' }], [message]);
    assert.deepEqual(
      published.map((m) => (JSON.parse(m.data) as { rule: string }).rule),
      ['daily', 'daily'],
    );
    assert.equal(logs.length, 1, 'logged once per registry copy');
    const line = JSON.parse(logs[0] ?? '{}') as { severity: string; message: string };
    assert.equal(line.severity, 'WARNING');
    assert.match(line.message, /^Rule\/zero 1\.0 skipped: spec\.once_per\.period: must be at least 1m/);
  });
});
