/**
 * `<dataset>.INFORMATION_SCHEMA.TABLES` and `.COLUMNS`, as the studio's console and syncs read a
 * dataset's tables and columns: BigQuery's column and type names, views included, and the other
 * views refused by name.
 */
import assert from 'node:assert/strict';
import { type Harness, plain, startHarness } from './support/helpers.ts';

describe('bigquery emulator: INFORMATION_SCHEMA', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('p');
    await h.bq.createDataset('d');
    await h.bq.createDataset('other');
    await h.bq.dataset('d').createTable('t', {
      schema: {
        fields: [
          { name: 'id', type: 'INTEGER', mode: 'REQUIRED' },
          { name: 'tags', type: 'STRING', mode: 'REPEATED' },
          { name: 'at', type: 'TIMESTAMP' },
          { name: 'ok', type: 'BOOLEAN' },
        ],
      },
      timePartitioning: { type: 'DAY', field: 'at' },
    });
    await h.bq.query('CREATE VIEW d.v AS SELECT id FROM d.t');
    await h.bq.query('CREATE TABLE other.x (a INT64)');
  });
  after(() => h.stop());

  const rows = async (sql: string) => plain((await h.bq.query(sql))[0]);

  it('lists a dataset’s tables and views', async () => {
    assert.deepEqual(
      await rows('SELECT table_schema, table_name, table_type FROM d.INFORMATION_SCHEMA.TABLES ORDER BY 2'),
      [
        { table_schema: 'd', table_name: 't', table_type: 'BASE TABLE' },
        { table_schema: 'd', table_name: 'v', table_type: 'VIEW' },
      ],
    );
  });

  it('lists columns in order, with BigQuery’s type names, nullability and the partitioning column', async () => {
    assert.deepEqual(
      await rows(
        "SELECT column_name, ordinal_position, is_nullable, data_type, is_partitioning_column FROM `p.d.INFORMATION_SCHEMA.COLUMNS` WHERE table_name = 't' ORDER BY ordinal_position",
      ),
      [
        {
          column_name: 'id',
          ordinal_position: 1,
          is_nullable: 'NO',
          data_type: 'INT64',
          is_partitioning_column: 'NO',
        },
        {
          column_name: 'tags',
          ordinal_position: 2,
          is_nullable: 'NO',
          data_type: 'ARRAY<STRING>',
          is_partitioning_column: 'NO',
        },
        {
          column_name: 'at',
          ordinal_position: 3,
          is_nullable: 'YES',
          data_type: 'TIMESTAMP',
          is_partitioning_column: 'YES',
        },
        {
          column_name: 'ok',
          ordinal_position: 4,
          is_nullable: 'YES',
          data_type: 'BOOL',
          is_partitioning_column: 'NO',
        },
      ],
    );
    assert.deepEqual(
      await rows("SELECT c.column_name FROM d.INFORMATION_SCHEMA.COLUMNS AS c WHERE c.table_name = 'v'"),
      [{ column_name: 'id' }],
    );
  });

  it('refuses the views it does not serve, naming them', async () => {
    await assert.rejects(
      h.bq.query('SELECT * FROM d.INFORMATION_SCHEMA.TABLE_OPTIONS'),
      /INFORMATION_SCHEMA\.TABLE_OPTIONS \(only TABLES, COLUMNS and PARTITIONS\)/,
    );
    await assert.rejects(
      h.bq.query('SELECT * FROM `region-us`.INFORMATION_SCHEMA.TABLES'),
      /INFORMATION_SCHEMA outside a dataset/,
    );
  });
});
