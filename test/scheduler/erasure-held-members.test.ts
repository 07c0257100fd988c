/**
 * Which mirror audience syncs hold an erased person (core/privacy/platform-erasure.ts
 * `heldMembersSql`, `personMemberHashes`): the person hashed as the sync hashed its members, looked
 * for in the sync's state on the BigQuery emulator, gives back the kept members to remove (#75).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { heldMembersSql, personMemberHashes } from '../../core/privacy/platform-erasure.ts';
import { keptMembers } from '../../core/syncs/audience-members.ts';
import { syncTables } from '../../core/syncs/sync-sql.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery } from '../../local/provision.ts';
import type { SyncSpec } from '../../schemas/sync.ts';

const spec = {
  model: 'SELECT email, phone FROM crm.vip',
  primary_key: ['email'],
  mode: 'mirror',
  schedule: { manual: true },
  destination: { meta_audience: { connection: 'aud', audience_id: '777' } },
} as SyncSpec;

const person = (email: string) => ({ emails: [email], phones: [], userIds: [], anonymousIds: [] });

describe('erasure: the audience syncs whose state holds the person', function () {
  this.timeout(60_000);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  const state = syncTables('eventbus_ops', 'vip').state;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-held-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    bigquery = emulatorBigQuery('held-project', emu.url);
    await bigquery.createDataset('eventbus_ops');
    await bigquery
      .dataset('eventbus_ops')
      .createTable('sync_state__vip', { schema: '__key:STRING,__row:STRING' });
    const member = (email: string, phone: string) =>
      [...keptMembers(spec, [{ n: 0, op: 'upsert', key: {}, data: { email, phone } }]).values()][0] ?? '';
    await bigquery.query({
      query: `INSERT INTO \`${state}\` (__key, __row) VALUES ('k1', @ann), ('k2', @bob), ('k3', NULL)`,
      params: {
        ann: member('Ann@Example.com', '+33612345678'),
        bob: member('bob@example.com', '+33699999999'),
      },
    });
  });
  after(async () => {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const held = async (email: string) => {
    const [rows] = await bigquery.query({
      query: heldMembersSql(state),
      params: { hashes: personMemberHashes(spec, person(email)) },
      types: { hashes: ['STRING'] },
    });
    return (rows as { __row: string }[]).map((r) => JSON.parse(r.__row) as [string, string][]);
  };

  it('finds the member by the e-mail as the sync hashed it, with every identifier it was added with', async () => {
    const rows = await held(' ann@example.COM ');
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]?.map(([k]) => k).sort(), ['EMAIL', 'PHONE']);
  });

  it('finds nothing for a person the state never held, and no hash for a sync that keeps none', async () => {
    assert.deepEqual(await held('nobody@example.com'), []);
    assert.deepEqual(personMemberHashes({ ...spec, mode: 'upsert' }, person('ann@example.com')), []);
  });
});
