/** The retention warning: a production environment that keeps its events forever is told so. */
import assert from 'node:assert/strict';
import { retentionWarnings } from '../../../core/plan-warnings/retention.ts';
import type { Settings } from '../../../schemas/settings.ts';

const base: Settings = { name: 'w', project: 'w-project', region: 'europe-west1' };

describe('plan: retention warning', () => {
  it('warns a production environment whose events have no retention, saying what is kept and how to set it', () => {
    const [warning, ...rest] = retentionWarnings({ ...base, production: true });
    assert.deepEqual(rest, []);
    assert.match(warning ?? '', /events table keeps every event forever/);
    assert.match(warning ?? '', /warehouse\.retention\.events/);
    assert.match(warning ?? '', /partition_expiration_days/);
    assert.match(warning ?? '', /docs\/privacy\.md#retention/);
  });

  it('says nothing once events have a retention, their own or partition_expiration_days', () => {
    assert.deepEqual(
      retentionWarnings({ ...base, production: true, warehouse: { retention: { events: 730 } } }),
      [],
    );
    assert.deepEqual(
      retentionWarnings({ ...base, production: true, warehouse: { partition_expiration_days: 1095 } }),
      [],
    );
  });

  it('says nothing outside production, nor when another table alone has a retention', () => {
    assert.deepEqual(retentionWarnings(base), []);
    assert.deepEqual(retentionWarnings({ ...base, production: false }), []);
    assert.equal(
      retentionWarnings({ ...base, production: true, warehouse: { retention: { deliveries: 30 } } }).length,
      1,
    );
  });
});
