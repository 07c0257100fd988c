/**
 * The studio's apply refuses an audience sync connected to a catalogue destination that asks
 * settings of each audience (Dynamic Yield's `audience_name`, `identifier_type`) when the sync's
 * `settings` leave them out: a 400 in Google's error form naming each field, at a dry run as at
 * an apply, nothing written; with them given it is applied. Through HTTP, on a registry bucket in
 * the Cloud Storage emulator.
 */
import assert from 'node:assert/strict';
import { RegistryClient } from '../../adapters/registry.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { startStudio } from '../../studio/server.ts';
import { adminCall } from '../support/admin-call.ts';
import { audienceSyncDoc } from '../support/audience-sync-doc.ts';

const TOKEN = 'audience-sync-settings-admin-token-0123';
const DYNAMIC_YIELD = {
  id: 'dy',
  type: 'segment_action' as const,
  destination: 'dynamic-yield-audiences',
  config: { sectionId: 's-1' },
};

describe('studio: an audience sync without the settings its destination asks is refused at apply', function () {
  this.timeout(60_000);
  const fx = emulatorWithFreshBuckets('audience-sync-settings');
  let studio: Awaited<ReturnType<typeof startStudio>> | undefined;
  const url = () => studio?.url ?? '';
  after(() => studio?.close());

  it('answers 400 naming audience_name and identifier_type, dry run or not, and stores nothing', async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      connections: [],
      settings: { project: 'p', destinations: [DYNAMIC_YIELD] } as never,
    });
    for (const dryRun of [true, false]) {
      const { status, json } = await adminCall<{
        error: { details?: { fieldViolations?: { field: string }[] }[] };
      }>(url(), TOKEN, 'apply', { documents: [audienceSyncDoc(['dy'])], dryRun });
      assert.equal(status, 400, JSON.stringify(json));
      const fields = (json.error.details ?? []).flatMap((d) => d.fieldViolations ?? []).map((v) => v.field);
      assert.deepEqual(fields, [
        'documents[0].spec.destination.audience.settings.audience_name',
        'documents[0].spec.destination.audience.settings.identifier_type',
      ]);
    }
    const [files] = await fx.bucket.getFiles();
    assert.equal(files.length, 0);
    // With both given, the same sync is applied.
    const given = audienceSyncDoc(['dy'], { audience_name: 'VIP', identifier_type: 'email' });
    const applied = await adminCall(url(), TOKEN, 'apply', { documents: [given] });
    assert.equal(applied.status, 200, JSON.stringify(applied.json));
  });
});
