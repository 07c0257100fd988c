/**
 * Where a rule's `publish` action and a sync's topic destination may publish (issue #61, a Low):
 * a topic of this environment named by its id. A full resource name is refused, whether it spells
 * one of the environment's internal topics (`projects/<p>/topics/deliveries`, which the check by
 * short name let through) or names another project's topic; so is anything that is not a topic id.
 * Pure.
 */
import assert from 'node:assert/strict';
import { ruleViolations, storedRuleProblem } from '../../../core/rules/rules.ts';
import { syncViolations } from '../../../core/syncs/syncs.ts';
import type { RuleSpec } from '../../../schemas/rule.ts';
import type { SyncSpec } from '../../../schemas/sync.ts';

const rule = (topic: string): RuleSpec => ({
  trigger: { event: { names: ['purchase'] } },
  actions: [{ publish: { event_name: 'high_value', topic } }],
});

const sync = (topic: string): SyncSpec => ({
  model: 'SELECT user_id, ltv FROM customers',
  primary_key: ['user_id'],
  mode: 'upsert',
  schedule: { every: '1h' },
  destination: { topic: { event_name: 'ltv_changed', topic } },
});

const problems = (topic: string) => ({
  rule: ruleViolations(rule(topic), 'spec', []).map((v) => `${v.field}: ${v.description}`),
  sync: syncViolations(sync(topic), 'spec', []).map((v) => `${v.field}: ${v.description}`),
});

describe('publish targets of rules and syncs: topic ids of this environment only', () => {
  it('refuses the full name of an internal topic, as the short name is refused', () => {
    for (const topic of [
      'projects/shop-prod/topics/deliveries',
      'projects/shop-prod/topics/runs',
      'projects/shop-prod/topics/events-store-dead-letter',
      '//pubsub.googleapis.com/projects/shop-prod/topics/ticks',
    ]) {
      const p = problems(topic);
      assert.equal(p.rule.length, 1, topic);
      assert.match(p.rule[0] ?? '', /^spec\.actions\[0\]\.publish\.topic: .*internal topic/, topic);
      assert.equal(p.sync.length, 1, topic);
      assert.match(p.sync[0] ?? '', /^spec\.destination\.topic\.topic: .*internal topic/, topic);
      // A rule stored before the check is skipped when matched.
      assert.match(storedRuleProblem(rule(topic)) ?? '', /internal topic/, topic);
    }
  });

  it('refuses full names of any topic (another project’s too) and names that are not topic ids', () => {
    for (const topic of [
      'projects/someone-else/topics/events',
      'projects/shop-prod/topics/events',
      'events/../deliveries',
      'goog-internal',
      'a b',
    ]) {
      const p = problems(topic);
      assert.equal(p.rule.length, 1, topic);
      assert.match(p.rule[0] ?? '', /^spec\.actions\[0\]\.publish\.topic: /, topic);
      assert.equal(p.sync.length, 1, topic);
      assert.match(p.sync[0] ?? '', /^spec\.destination\.topic\.topic: /, topic);
    }
    assert.match(problems('projects/someone-else/topics/events').rule[0] ?? '', /by its id/);
  });

  it('accepts topic ids of the environment', () => {
    for (const topic of ['events', 'backend_events', 'Orders.v2-eu~x+y%z'])
      assert.deepEqual(problems(topic), { rule: [], sync: [] }, topic);
  });
});
