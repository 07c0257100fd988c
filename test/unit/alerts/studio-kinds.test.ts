/**
 * The studio's Alerts section (studio/web/destinations.html) says in words which conditions an
 * alert can watch: every kind of the schema (schemas/alert.ts) is named there, so a new kind
 * cannot be left out of it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AlertCondition } from '../../../schemas/alert.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** How the page names each kind. */
const WORDS: Readonly<Record<string, string>> = {
  failure_rate: 'failure rate',
  latency: 'delivery latency',
  success_drop: 'drop in success rate',
  source_quiet: 'a source gone quiet',
  volume_change: 'a volume change',
  invalid_share: 'invalid events',
  erasure_failures: 'a failed erasure',
  counted_below: 'counted less than it accepted',
  sent_below: 'sent short of those permitted',
  went_quiet: 'a destination gone quiet',
};

describe('studio: the Alerts section names every kind of condition', () => {
  it('has words for each kind of the schema, and the page says them', () => {
    const kinds = (AlertCondition as unknown as { anyOf: { properties: object }[] }).anyOf.map(
      (o) => Object.keys(o.properties)[0] as string,
    );
    assert.deepEqual([...kinds].sort(), Object.keys(WORDS).sort());
    const hint = readFileSync(join(root, 'studio/web/destinations.html'), 'utf8').replace(/\s+/g, ' ');
    for (const kind of kinds) assert.ok(hint.includes(WORDS[kind] ?? kind), `${kind}: "${WORDS[kind]}"`);
  });
});
