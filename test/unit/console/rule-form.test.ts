/** The rules page's form: the Rule document it writes, and back (core/console/rule-form.ts). */
import assert from 'node:assert/strict';
import { formOf, type RuleForm, ruleDocument } from '../../../core/console/rule-form.ts';
import { ruleViolations } from '../../../core/rules/rules.ts';
import type { Connection } from '../../../schemas/settings.ts';

const FORM: RuleForm = {
  name: 'high-value-purchase',
  description: 'Tell sales about big orders',
  events: 'purchase, refund',
  match: 'all',
  conditions: [
    { field: 'value', op: 'gt', value: '500' },
    { field: 'currency', op: 'in', value: 'EUR, CHF' },
    { field: 'coupon', op: 'exists', value: 'ignored' },
    { field: '', op: 'eq', value: 'a blank row is left out' },
  ],
  onceKey: 'user_id',
  oncePeriod: '1d',
  action: { kind: 'chat', connection: 'sales-chat', text: 'Big order {{transaction_id}}' },
};

const CONNECTIONS = [
  { id: 'sales-chat', type: 'chat', url: 'https://chat.example/hook' },
] as unknown as Connection[];

describe('rules page: the form', () => {
  it('writes the Rule document the YAML would hold, one the rules resource accepts', () => {
    const doc = ruleDocument(FORM);
    assert.deepEqual(doc, {
      kind: 'Rule',
      name: 'high-value-purchase',
      description: 'Tell sales about big orders',
      spec: {
        trigger: {
          event: {
            names: ['purchase', 'refund'],
            all: [
              { field: 'value', op: 'gt', value: 500 },
              { field: 'currency', op: 'in', value: ['EUR', 'CHF'] },
              { field: 'coupon', op: 'exists' },
            ],
          },
        },
        once_per: { key: 'user_id', period: '1d' },
        actions: [{ chat: { connection: 'sales-chat', text: 'Big order {{transaction_id}}' } }],
      },
    });
    assert.deepEqual(ruleViolations(doc['spec'], 'spec', CONNECTIONS), []);
  });

  it('writes any-criteria, no once_per, a webhook or a publish', () => {
    const spec = (f: Partial<RuleForm>) => ruleDocument({ ...FORM, ...f })['spec'] as Record<string, unknown>;
    const any = spec({
      match: 'any',
      onceKey: '',
      conditions: [{ field: 'page.path', op: 'eq', value: '/pricing' }],
    });
    assert.deepEqual(any['trigger'], {
      event: { names: ['purchase', 'refund'], any: [{ field: 'page.path', op: 'eq', value: '/pricing' }] },
    });
    assert.equal(any['once_per'], undefined);
    assert.deepEqual(spec({ action: { kind: 'webhook', connection: 'crm' } })['actions'], [
      { webhook: { connection: 'crm' } },
    ]);
    assert.deepEqual(spec({ action: { kind: 'publish', event_name: 'vip' } })['actions'], [
      { publish: { event_name: 'vip' } },
    ]);
  });

  it('reads back what it writes, and says why a rule it cannot show stays YAML', () => {
    const back = formOf(ruleDocument(FORM));
    assert.ok(!('problem' in back));
    assert.deepEqual(ruleDocument(back), ruleDocument(FORM));
    const nested = ruleDocument({ ...FORM, conditions: [] }) as { spec: { trigger: { event: object } } };
    nested.spec.trigger.event = { all: [{ any: [{ field: 'a', op: 'exists' }] }] };
    assert.match((formOf(nested) as { problem: string }).problem, /nested group/);
    const two = ruleDocument(FORM) as { spec: { actions: unknown[] } };
    two.spec.actions.push({ publish: { event_name: 'x' } });
    assert.match((formOf(two) as { problem: string }).problem, /more than one action/);
  });
});
