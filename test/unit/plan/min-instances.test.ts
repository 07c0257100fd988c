/**
 * Development scales to zero (environments/example.yaml's `production` comment): without
 * `production: true` no service keeps a minimum instance, whatever `functions.*.min_instances`
 * says, and settings check warns for each one not applied; with it they are kept.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plan } from '../../../core/plan.ts';
import { minInstancesWarnings } from '../../../core/plan-warnings/min-instances.ts';
import { parseSettings } from '../../../core/settings.ts';
import type { Settings } from '../../../schemas/settings.ts';

function example(): Settings {
  const loaded = parseSettings(
    readFileSync(join(import.meta.dirname, '../../../environments/example.yaml'), 'utf8'),
  );
  assert.ok(loaded.ok);
  return loaded.settings;
}

const minimums = (s: Settings) => {
  const p = plan(s);
  return {
    gateway: p.gateway.sizing.min_instances,
    studio: p.studio.sizing.min_instances,
    ...Object.fromEntries(p.functions.map((f) => [f.name, f.sizing.min_instances])),
  };
};

describe('plan: development scales every service to zero', () => {
  it('keeps the example’s minimum instances in production, and says nothing', () => {
    assert.deepEqual(minimums(example()), { gateway: 1, studio: 0, store: 0, forward: 0, schedule: 0 });
    const store = { ...example().functions?.store, min_instances: 2 };
    const warm = { ...example(), functions: { ...example().functions, store } };
    assert.deepEqual(minimums(warm), { gateway: 1, studio: 0, store: 2, forward: 0, schedule: 0 });
    assert.deepEqual(minInstancesWarnings(warm), []);
    assert.deepEqual(minInstancesWarnings(example()), []);
  });

  it('drops them without production: true, each one said', () => {
    const { production: _, ...settings } = example();
    // The example keeps no minimum on store: one asked for is dropped and said too.
    const development = {
      ...settings,
      functions: { ...settings.functions, store: { ...settings.functions?.store, min_instances: 1 } },
    };
    assert.deepEqual(minimums(development), { gateway: 0, studio: 0, store: 0, forward: 0, schedule: 0 });
    assert.deepEqual(minInstancesWarnings(development), [
      'functions.store.min_instances: 1 is not applied without production: true (development scales every service to zero; docs/scale.md#development-and-production)',
      'functions.gateway.min_instances: 1 is not applied without production: true (development scales every service to zero; docs/scale.md#development-and-production)',
    ]);
  });
});
