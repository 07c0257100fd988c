/**
 * Column-level security (`pii.column_security: true`, environments/example.yaml) gives each
 * workload exactly what it reads: the scheduler, which sends what its queries read on to
 * platforms (syncs, scheduled rules, slice replays), reads the PII columns raw; the studio,
 * which previews and dry-runs those queries, reads them masked; no other workload reads them.
 */
import assert from 'node:assert/strict';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, declare, ofType, type Recorded, SETTINGS_FILES } from './support.ts';

const RAW = 'gcp:datacatalog/policyTagIamMember:PolicyTagIamMember';
const MASKED = 'gcp:bigquerydatapolicy/dataPolicyIamMember:DataPolicyIamMember';
const workload = (member: unknown) => /^serviceAccount:eventbus-([a-z]+)@/.exec(String(member))?.[1];

describe('infra: column security grants each workload what it reads', () => {
  let recorded: Recorded;
  before(async () => {
    recorded = await declare(() => declareEnvironment(loadStackConfig(SETTINGS_FILES[0]), BUNDLES));
  });

  it('lets the scheduler read the PII columns raw, and no other workload', () => {
    const raw = ofType(recorded, RAW)
      .map((m) => workload(m.inputs['member']))
      .filter(Boolean);
    assert.deepEqual(raw, ['schedule']);
  });

  it('lets the studio read the PII columns masked (Masked Reader), and no other workload', () => {
    const masked = ofType(recorded, MASKED)
      .map((m) => workload(m.inputs['member']))
      .filter(Boolean);
    assert.deepEqual(masked, ['studio']);
    for (const m of ofType(recorded, MASKED))
      assert.equal(m.inputs['role'], 'roles/bigquerydatapolicy.maskedReader');
  });
});
