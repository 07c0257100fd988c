/** BigQuery emulator API: datasets, through the real @google-cloud/bigquery client (and raw fetch where the wire matters). */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import { type Harness, P, rejectsWith, startHarness } from './support/helpers.ts';

describe('BigQuery emulator API: datasets', () => {
  let h: Harness;
  let bq: BigQuery;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
  });
  after(() => h.stop());

  describe('datasets', () => {
    it('inserts, gets, lists and deletes datasets', async () => {
      const [ds] = await bq.createDataset('ds_crud', {
        location: 'US',
        description: 'for tests',
        labels: { team: 'data' },
      });
      const [md] = await ds.getMetadata();
      assert.equal(md.description, 'for tests');
      assert.deepStrictEqual(md.labels, { team: 'data' });
      assert.equal(md.location, 'US');
      const [list] = await bq.getDatasets();
      assert.ok(list.some((d) => d.id === 'ds_crud'));
      await ds.delete();
      const [exists] = await bq.dataset('ds_crud').exists();
      assert.equal(exists, false);
    });

    it('answers 409 duplicate for an existing dataset and 404 notFound for a missing one', async () => {
      await bq.createDataset('ds_dup');
      await rejectsWith(
        bq.createDataset('ds_dup'),
        409,
        'duplicate',
        /Already Exists: Dataset test-project:ds_dup/,
      );
      await rejectsWith(
        bq.dataset('ds_missing').getMetadata(),
        404,
        'notFound',
        /Not found: Dataset test-project:ds_missing/,
      );
    });

    it('refuses to delete a dataset with tables unless force (deleteContents) is set', async () => {
      const [ds] = await bq.createDataset('ds_full');
      await ds.createTable('t', { schema: { fields: [{ name: 'a', type: 'STRING' }] } });
      await rejectsWith(ds.delete(), 400, 'resourceInUse');
      await ds.delete({ force: true });
      const [exists] = await ds.exists();
      assert.equal(exists, false);
    });

    it('rejects an invalid dataset id with 400 invalid', async () => {
      await rejectsWith(bq.createDataset('bad-name'), 400, 'invalid');
    });

    it('refuses ids that differ only in case from existing ones (DuckDB names ignore case)', async () => {
      const [ds] = await bq.createDataset('casey');
      await rejectsWith(bq.createDataset('Casey'), 400, 'invalid', /differs only in case/);
      await ds.createTable('events', { schema: { fields: [{ name: 'a', type: 'STRING' }] } });
      await rejectsWith(
        ds.createTable('Events', { schema: { fields: [{ name: 'a', type: 'STRING' }] } }),
        400,
        'invalid',
        /differs only in case/,
      );
    });
  });
});
