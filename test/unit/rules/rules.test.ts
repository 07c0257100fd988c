/**
 * Rules (core/rules/rules.ts, core/conditions.ts): checking a spec against the settings' connections,
 * criteria with all/any, numeric ranges and RE2 patterns, once-per slots, the loop guards, and
 * the deterministic ids of what a firing publishes. Pure.
 */
import assert from 'node:assert/strict';
import { MAX_PATTERN_BYTES, patternMatches, patternProblem } from '../../../core/conditions.ts';
import type { StoredEvent } from '../../../core/event.ts';
import {
  chatLiteral,
  MAX_HOPS,
  matchEventRules,
  onceMarkerPath,
  onceSlot,
  publishedEvent,
  type RuleVersion,
  renderTemplate,
  rowFirings,
  ruleViolations,
  storedRuleProblem,
} from '../../../core/rules/rules.ts';
import type { RuleSpec } from '../../../schemas/rule.ts';
import type { Connection } from '../../../schemas/settings.ts';

const CONNECTIONS: Connection[] = [
  { id: 'sales-chat', type: 'chat', url_secret: 'sales-chat-url' },
  { id: 'crm', type: 'webhook', url: 'https://crm.example/hook' },
];

const spec = (over: Partial<RuleSpec> = {}): RuleSpec => ({
  trigger: { event: { names: ['purchase'], all: [{ field: 'value', op: 'gt', value: 500 }] } },
  once_per: { key: 'user_id', period: '1d' },
  actions: [{ chat: { connection: 'sales-chat', text: 'Order {{transaction_id}}: {{value}}' } }],
  ...over,
});

const event = (over: Partial<StoredEvent> = {}, data: Record<string, unknown> = {}): StoredEvent => ({
  event_name: 'purchase',
  event_id: 'e1',
  event_time: '2026-11-22T10:15:00.000Z',
  user_id: 'u1',
  event_data: { value: 600, transaction_id: 'T1', currency: 'EUR', ...data },
  ...over,
});

const rule = (s: RuleSpec = spec(), name = 'big-orders'): RuleVersion => ({ name, version: '1.0', spec: s });

describe('rules: checking a Rule spec', () => {
  it('accepts a rule whose connections exist with the right type', () => {
    assert.deepEqual(ruleViolations(spec(), 'spec', CONNECTIONS), []);
  });

  it('names unknown connections and connections of the wrong type, listing what exists', () => {
    const bad = spec({
      actions: [{ chat: { connection: 'nope', text: 'x' } }, { webhook: { connection: 'sales-chat' } }],
    });
    assert.deepEqual(ruleViolations(bad, 'spec', CONNECTIONS), [
      {
        field: 'spec.actions[0].chat.connection',
        description: 'unknown connection "nope" (settings: sales-chat (chat), crm (webhook))',
      },
      {
        field: 'spec.actions[1].webhook.connection',
        description: '"sales-chat" is a chat connection, not webhook',
      },
    ]);
  });

  it('checks criteria values deep inside all/any, patterns in the RE2 dialect, and refuses a rule on every event', () => {
    const bad = spec({
      trigger: {
        event: {
          any: [
            { all: [{ field: 'value', op: 'between', value: [900, 100] }] },
            { field: 'page.url', op: 'matches', value: '(?<=checkout)/done' },
          ],
        },
      },
    });
    const problems = ruleViolations(bad, 'spec', CONNECTIONS);
    assert.deepEqual(
      problems.map((p) => p.field),
      ['spec.trigger.event.any[0].all[0].value', 'spec.trigger.event.any[1].value'],
    );
    assert.match(problems[1]?.description ?? '', /RE2/);
    const everything = ruleViolations(spec({ trigger: { event: {} } }), 'spec', CONNECTIONS);
    assert.match(everything[0]?.description ?? '', /every event/);
    assert.match(
      ruleViolations(spec({ actions: [{ publish: { event_name: 'Purchase' } }] }), 'spec', CONNECTIONS)[0]
        ?.description ?? '',
      /snake_case/,
    );
  });

  it('matches patterns as REGEXP_CONTAINS does, in linear time', () => {
    assert.equal(patternMatches('https://shop.example/checkout/done', 'checkout/(done|thanks)$'), true);
    assert.equal(patternMatches('CHECKOUT', '(?i)checkout'), true);
    // A pattern that backtracks exponentially in JavaScript's engine answers at once here.
    assert.equal(patternMatches(`${'a'.repeat(5000)}b`, '(a+)+$'), false);
    assert.equal(patternProblem('(a+)+$'), undefined);
    assert.match(patternProblem('\\1') ?? '', /RE2/);
  });
});

describe('rules: firing on stored events', () => {
  it('fires for an event meeting the criteria, with the once-per key and day', () => {
    const [f, ...more] = matchEventRules([rule()], event());
    assert.equal(more.length, 0);
    assert.deepEqual(
      [f?.rule, f?.key, f?.slot, f?.hops],
      ['big-orders', 'u1', '2026-11-22T00:00:00.000Z', 0],
    );
    assert.deepEqual(matchEventRules([rule()], event({}, { value: 100 })), []);
    assert.deepEqual(matchEventRules([rule()], event({ event_name: 'add_to_cart' })), []);
  });

  it('combines all and any, with ranges, lists and exists', () => {
    const { once_per: _, ...withoutOnce } = spec();
    const s: RuleSpec = {
      ...withoutOnce,
      trigger: {
        event: {
          names: ['purchase'],
          all: [{ field: 'value', op: 'between', value: [500, 1000] }],
          any: [
            { field: 'currency', op: 'in', value: ['EUR', 'CHF'] },
            {
              all: [
                { field: 'coupon', op: 'exists' },
                { field: 'coupon', op: 'matches', value: '^VIP' },
              ],
            },
          ],
        },
      },
    };
    assert.equal(matchEventRules([rule(s)], event()).length, 1);
    assert.equal(matchEventRules([rule(s)], event({}, { currency: 'USD' })).length, 0);
    assert.equal(matchEventRules([rule(s)], event({}, { currency: 'USD', coupon: 'VIP10' })).length, 1);
    assert.equal(matchEventRules([rule(s)], event({}, { value: 1001 })).length, 0);
  });

  it('gives one firing id per rule and triggering event, the same on a redelivery', () => {
    const a = matchEventRules([rule()], event())[0];
    const again = matchEventRules([rule()], event())[0];
    const other = matchEventRules([rule()], event({ event_id: 'e2' }))[0];
    assert.equal(a?.firing_id, again?.firing_id);
    assert.notEqual(a?.firing_id, other?.firing_id);
    // Two events of one user on one day claim the same once-per marker.
    assert.equal(onceMarkerPath(a!), onceMarkerPath(other!));
    assert.notEqual(
      onceMarkerPath(a!),
      onceMarkerPath(matchEventRules([rule()], event({ user_id: 'u2' }))[0]!),
    );
  });

  it('does not fire without the once-per key, for its own events, or past the hop limit', () => {
    const { user_id: _, ...anonymous } = event();
    assert.deepEqual(matchEventRules([rule()], anonymous), []);
    assert.deepEqual(matchEventRules([rule()], event(), { origin: 'Rule/big-orders', hops: '1' }), []);
    assert.equal(matchEventRules([rule()], event(), { origin: 'Rule/other', hops: '2' }).length, 1);
    assert.deepEqual(
      matchEventRules([rule()], event(), { origin: 'Rule/other', hops: String(MAX_HOPS) }),
      [],
    );
    assert.deepEqual(matchEventRules([rule(spec({ enabled: false }))], event()), []);
  });

  it('aligns once-per periods to the epoch; forever is one slot', () => {
    assert.equal(onceSlot('1d', '2026-11-22T23:59:59.999Z'), '2026-11-22T00:00:00.000Z');
    assert.equal(onceSlot('12h', '2026-11-22T13:00:00.000Z'), '2026-11-22T12:00:00.000Z');
    assert.equal(onceSlot('forever', '2026-11-22T13:00:00.000Z'), 'forever');
  });
});

describe('rules: what a firing sends', () => {
  it('fills chat templates from the event, leaving missing values empty', () => {
    assert.equal(
      renderTemplate('Order {{transaction_id}}: {{ value }} {{currency}} {{nothing}}!', event()),
      'Order T1: 600 EUR !',
    );
  });

  it('publishes an event with a deterministic id, the triggering time and user, mapped fields, origin and hop', () => {
    const f = matchEventRules([rule()], event())[0]!;
    const second = matchEventRules([rule()], event({ event_id: 'e2' }))[0]!;
    const action = { event_name: 'high_value_customer', fields: { order_value: 'value' } };
    const out = publishedEvent(f, 1, action);
    assert.equal(out.body['event_name'], 'high_value_customer');
    assert.equal(out.body['event_time'], '2026-11-22T10:15:00.000Z');
    assert.equal(out.body['user_id'], 'u1');
    assert.equal(out.body['order_value'], 600);
    assert.deepEqual(out.attributes, { origin: 'Rule/big-orders', hops: '1' });
    // Within a once-per slot the id is the same whatever event fired: a repeat folds.
    assert.equal(publishedEvent(second, 1, action).body['event_id'], out.body['event_id']);
    assert.notEqual(publishedEvent(f, 0, action).body['event_id'], out.body['event_id']);
  });
});

describe('rules: scheduled triggers', () => {
  const scheduled = (over: Partial<RuleSpec> = {}): RuleSpec => ({
    trigger: { schedule: { every: '10m' }, sql: 'SELECT cart_id, user_id FROM carts' },
    once_per: { key: 'cart_id', period: 'forever' },
    actions: [{ chat: { connection: 'sales-chat', text: 'Cart {{cart_id}} of {{user_id}}' } }],
    ...over,
  });

  it('checks the schedule', () => {
    assert.deepEqual(ruleViolations(scheduled(), 'spec', CONNECTIONS), []);
    const bad = ruleViolations(
      scheduled({ trigger: { schedule: { every: '10s' }, sql: 'SELECT 1' } }),
      'spec',
      CONNECTIONS,
    );
    assert.deepEqual(
      bad.map((v) => v.field),
      ['spec.trigger.schedule'],
    );
  });

  it('makes one firing per row, the row as event data and the slot as its time, the same on a retry', () => {
    const r = rule(scheduled(), 'abandoned');
    const rows = [
      { cart_id: 'c1', user_id: 'u1' },
      { cart_id: 'c2', user_id: 'u2' },
      { user_id: 'u3' }, // no cart id: nothing to fire once for
    ];
    const slot = '2026-11-22T10:00:00.000Z';
    const firings = rowFirings(r, rows, slot);
    assert.deepEqual(
      firings.map((f) => [f.key, f.slot, f.event.user_id, f.event.event_time]),
      [
        ['c1', 'forever', 'u1', slot],
        ['c2', 'forever', 'u2', slot],
      ],
    );
    assert.equal(renderTemplate('Cart {{cart_id}} of {{user_id}}', firings[0]!.event), 'Cart c1 of u1');
    assert.deepEqual(
      rowFirings(r, [{ user_id: 'u1', cart_id: 'c1' }], slot).map((f) => f.firing_id),
      [firings[0]?.firing_id],
      'column order does not change the id',
    );
    assert.notEqual(rowFirings(r, rows, '2026-11-22T10:10:00.000Z')[0]?.firing_id, firings[0]?.firing_id);
    // A scheduled rule never matches stored events.
    assert.deepEqual(matchEventRules([r], event()), []);
  });
});

describe('rules: bounds and escaping (issue 33)', () => {
  it('refuses a once-per period of 0, below a minute or beyond a year, naming the path', () => {
    for (const period of ['0m', '0d', '000h', '367d', '999999d', '999999h']) {
      const problems = ruleViolations(spec({ once_per: { key: 'user_id', period } }), 'spec', CONNECTIONS);
      assert.deepEqual(
        problems.map((p) => p.field),
        ['spec.once_per.period'],
        period,
      );
    }
    // Negative, fractional, unitless and second periods are refused by the schema's pattern.
    for (const period of ['-1d', '1.5h', '10', '30s', '1w'])
      assert.equal(
        ruleViolations(spec({ once_per: { key: 'user_id', period } }), 'spec', CONNECTIONS)[0]?.field,
        'spec.once_per.period',
        period,
      );
    for (const period of ['1m', '12h', '366d', 'forever'])
      assert.deepEqual(
        ruleViolations(spec({ once_per: { key: 'user_id', period } }), 'spec', CONNECTIONS),
        [],
      );
  });

  it('refuses an every of more than a year', () => {
    const every = (e: string) => {
      const { once_per: _, ...rest } = spec({ trigger: { schedule: { every: e }, sql: 'SELECT 1 AS x' } });
      return ruleViolations(rest, 'spec', CONNECTIONS).map((v) => v.field);
    };
    assert.deepEqual(every('367d'), ['spec.trigger.schedule']);
    assert.deepEqual(every('366d'), []);
  });

  it('a stored rule with a period of 0 fires nothing instead of throwing Invalid time value', () => {
    const bad = rule(spec({ once_per: { key: 'user_id', period: '0m' } }));
    assert.doesNotThrow(() => matchEventRules([bad], event()));
    assert.deepEqual(matchEventRules([bad], event()), []);
    assert.equal(onceSlot('0m', '2026-11-22T10:00:00Z'), undefined);
    assert.equal(onceSlot('1d', 'not a time'), undefined);
    assert.match(storedRuleProblem(bad.spec) ?? '', /^spec\.once_per\.period: must be at least 1m/);
    assert.match(storedRuleProblem({ trigger: 1 }) ?? '', /^spec/);
    assert.equal(storedRuleProblem(spec()), undefined);
  });

  it('refuses internal topics as publish targets', () => {
    for (const topic of [
      'runs',
      'deliveries',
      'deliveries-meta',
      'ticks',
      'actions',
      'events-store-dead-letter',
    ]) {
      const problems = ruleViolations(
        spec({ actions: [{ publish: { event_name: 'high_value', topic } }] }),
        'spec',
        CONNECTIONS,
      );
      assert.deepEqual(
        problems.map((p) => p.field),
        ['spec.actions[0].publish.topic'],
        topic,
      );
      assert.match(problems[0]?.description ?? '', /internal topic/);
    }
    assert.deepEqual(
      ruleViolations(
        spec({ actions: [{ publish: { event_name: 'x', topic: 'backend_events' } }] }),
        'spec',
        CONNECTIONS,
      ),
      [],
    );
  });

  it('refuses RE2 patterns over 16 KiB, and never compiles one that slipped past', () => {
    const long = `(${Array.from({ length: 3000 }, (_, i) => `id${i}`).join('|')})`;
    assert.ok(long.length > MAX_PATTERN_BYTES);
    const problems = ruleViolations(
      spec({ trigger: { event: { all: [{ field: 'page.url', op: 'matches', value: long }] } } }),
      'spec',
      CONNECTIONS,
    );
    assert.deepEqual(
      problems.map((p) => p.field),
      ['spec.trigger.event.all[0].value'],
    );
    assert.match(problems[0]?.description ?? '', /longer than 16 KiB/);
    // Multi-byte characters count as UTF-8 bytes.
    assert.match(patternProblem('é'.repeat(MAX_PATTERN_BYTES / 2 + 1)) ?? '', /16 KiB/);
    assert.equal(patternMatches('id7', long), false, 'fails closed');
  });

  it('escapes event values in chat text: mentions and links arrive as literal text', () => {
    const hostile = event({}, { note: '<!channel> <http://evil|Reset your password> & <users/all>' });
    assert.equal(
      renderTemplate('New order <https://shop.example/admin|open>: {{note}}', hostile),
      'New order <https://shop.example/admin|open>: &lt;!channel&gt; &lt;http://evil|Reset your password&gt; &amp; &lt;users/all&gt;',
    );
    assert.equal(chatLiteral('a&b<c>'), 'a&amp;b&lt;c&gt;');
  });
});
