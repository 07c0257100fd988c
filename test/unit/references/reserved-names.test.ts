/**
 * Reserved names (core/references/reserved-names.ts): read off plan() rather than copied, refused for every
 * kind of resource where they would collide, and listed in docs/security.md as they are.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plan } from '../../../core/plan.ts';
import {
  publishTopicProblem,
  reserved,
  reservedNameProblem,
} from '../../../core/references/reserved-names.ts';
import { lookupEvent } from '../../../schemas/catalogue.ts';
import { testSettings } from '../../storage/support.ts';

const root = join(import.meta.dirname, '../../..');

describe('reserved names', () => {
  it('are every table, view and internal topic an environment has', () => {
    const p = plan(testSettings({ experimental: { rules: true }, topics: ['backend_events'] }));
    for (const name of [...p.tables, ...p.views, ...p.ops.tables].map((t) => t.name))
      assert.ok(reserved().warehouse.has(name), name);
    for (const t of p.topics) {
      const internal = publishTopicProblem(t.name) !== undefined;
      assert.equal(internal, t.kind !== 'events', t.name);
    }
  });

  it('refuse built-in names for every kind, catalogue views and _v<N> only for definitions', () => {
    for (const kind of ['EventDefinition', 'Translator', 'Sync', 'Rule', 'Query', 'Alert'] as const) {
      for (const name of [
        'events',
        'events_dedup',
        'identities',
        'sync_runs',
        'runs',
        'ticks',
        'x-dead-letter',
      ])
        assert.match(reservedNameProblem(kind, name) ?? '', /reserved/, `${kind} ${name}`);
      assert.equal(reservedNameProblem(kind, 'quotes'), undefined);
    }
    assert.match(reservedNameProblem('EventDefinition', 'quote_v2') ?? '', /older major/);
    assert.equal(reservedNameProblem('Query', 'quote_v2'), undefined);
    assert.ok(reservedNameProblem('EventDefinition', 'purchase'));
    assert.equal(reservedNameProblem('Query', 'purchase'), undefined);
  });

  it('are listed in docs/security.md', () => {
    const doc = readFileSync(join(root, 'docs/security.md'), 'utf8');
    const listed = (name: string) => doc.includes(`\`${name}\``);
    for (const name of [...reserved().warehouse].filter((n) => !lookupEvent(n)))
      assert.ok(listed(name), name);
    for (const name of reserved().internalTopics) assert.ok(listed(name), name);
    assert.ok(listed(reserved().deadLetterSuffix));
    assert.ok(listed(`${reserved().deliveriesPrefix}<id>`));
    assert.ok(doc.includes('`_v<N>`'));
  });
});
