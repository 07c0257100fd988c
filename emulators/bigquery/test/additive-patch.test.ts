/**
 * `tables.patch` with a schema that only adds columns, on a table with rows, through Google's
 * client (how the ledger grows `deliveries`); a patch that removes or retypes a column is refused
 * in BigQuery's words and changes nothing.
 */
import assert from 'node:assert/strict';
import { type Harness, plain, rejectsWith, startHarness } from './support/helpers.ts';

describe('bigquery emulator: additive tables.patch', () => {
  let h: Harness;
  const BASE = [
    { name: 'delivery_id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'status', type: 'STRING' },
  ];
  before(async () => {
    h = await startHarness();
    await h.bq.createDataset('ops');
    await h.bq.dataset('ops').createTable('deliveries', { schema: BASE });
    await h.bq.query(
      "INSERT INTO ops.deliveries (delivery_id, status) VALUES ('d1', 'sent'), ('d2', 'failed')",
    );
  });
  after(() => h.stop());

  it('adds NULLABLE columns in place: old rows read NULL, new rows fill them', async () => {
    const table = h.bq.dataset('ops').table('deliveries');
    const added = [
      ...BASE,
      { name: 'closed_at', type: 'TIMESTAMP', mode: 'NULLABLE' },
      { name: 'outcome', type: 'RECORD', fields: [{ name: 'code', type: 'INT64' }] },
    ];
    const [meta] = await table.setMetadata({ schema: { fields: added } });
    assert.deepEqual(
      (meta.schema.fields as { name: string }[]).map((f) => f.name),
      ['delivery_id', 'status', 'closed_at', 'outcome'],
    );
    await h.bq.query(
      "INSERT INTO ops.deliveries (delivery_id, status, outcome) VALUES ('d3', 'sent', STRUCT(200 AS code))",
    );
    const [rows] = await h.bq.query(
      'SELECT delivery_id, closed_at, outcome.code AS code FROM ops.deliveries ORDER BY delivery_id',
    );
    assert.deepEqual(plain(rows), [
      { delivery_id: 'd1', closed_at: null, code: null },
      { delivery_id: 'd2', closed_at: null, code: null },
      { delivery_id: 'd3', closed_at: null, code: 200 },
    ]);
  });

  it('refuses a patch that removes a column, or changes its type, with 400 invalid', async () => {
    const table = h.bq.dataset('ops').table('deliveries');
    const [meta] = await table.getMetadata();
    const fields = meta.schema.fields as { name: string; type: string }[];
    await rejectsWith(
      table.setMetadata({ schema: { fields: fields.filter((f) => f.name !== 'status') } }),
      400,
      'invalid',
      /Provided Schema does not match Table test-project:ops\.deliveries\. Field status is missing in new schema/,
    );
    await rejectsWith(
      table.setMetadata({
        schema: { fields: fields.map((f) => (f.name === 'status' ? { ...f, type: 'INT64' } : f)) },
      }),
      400,
      'invalid',
      /Provided Schema does not match Table test-project:ops\.deliveries\. Field status has changed type from STRING to INTEGER/,
    );
    const [after] = await table.getMetadata();
    assert.deepEqual(after.schema.fields, fields);
  });
});
