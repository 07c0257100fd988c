/** Retry budgets: how long each subscription retries before dead-lettering, and the warning below ten minutes. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { plan } from '../../../core/plan.ts';
import { backoffDelays, retryBudgetWarnings } from '../../../core/plan-warnings/retry-budget.ts';
import { parseSettings } from '../../../core/settings.ts';

function planOf(yaml: string) {
  const result = parseSettings(yaml);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return plan(result.settings);
}

const environment = (name: string) =>
  readFileSync(resolve(import.meta.dirname, `../../../environments/${name}.yaml`), 'utf8');

describe('retry budgets', () => {
  it('doubles from the minimum backoff up to the maximum, one delay between each two attempts', () => {
    assert.deepEqual(backoffDelays(1, 10, 5), [1, 2, 4, 8]);
    assert.deepEqual(backoffDelays(10, 600, 6), [10, 20, 40, 80, 160]);
    assert.equal(
      backoffDelays(1, 60, 16).reduce((a, b) => a + b, 0),
      603,
    );
  });

  it('warns, with the arithmetic, about a destination whose retries cover less than ten minutes', () => {
    const p = planOf(`
name: t
project: acme-test-1
region: europe-west1
retry: { minimum_backoff: 10s, maximum_backoff: 600s, max_attempts: 10 }
destinations:
  - id: hook
    type: webhook
    base_url: https://hooks.example
    secrets: { signing_key: HOOK_KEY }
    retry: { minimum_backoff: 1s, maximum_backoff: 10s, max_attempts: 5 }
`);
    const warnings = retryBudgetWarnings(p);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /^destination hook: 5 attempts with backoff 1s–10s retry for 15 s \(1 \+ 2 \+ 4 \+ 8\)/,
    );
    assert.match(warnings[0] as string, /destinations\[id=hook\]\.retry\.max_attempts/);
  });

  it('the local environment rides out a 10-minute outage everywhere (no warning)', () => {
    assert.deepEqual(retryBudgetWarnings(planOf(environment('local'))), []);
  });
});
