/**
 * The ops table a console slice replay is kept in while it is paged out, made with the events
 * table's own columns (policy tags included, core/delivery/replay.ts sliceSchema) so personal
 * data copied into it stays under column-level security. Made anew for each first chunk: a
 * retried chunk starts from an empty table.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import { type SchemaField, sliceSchema } from '../core/delivery/replay.ts';
import { TABLES } from '../core/warehouse/warehouse.ts';

export function sliceTableMaker(
  bigquery: BigQuery,
  where: { readonly dataset: string; readonly ops: string },
): (table: string) => Promise<void> {
  return async (table) => {
    const [events] = await bigquery.dataset(where.dataset).table(TABLES.events).getMetadata();
    const fields = sliceSchema((events as { schema?: { fields?: SchemaField[] } }).schema?.fields ?? []);
    await bigquery
      .dataset(where.ops)
      .table(table)
      .delete()
      .catch((err: { code?: number }) => {
        if (err.code !== 404) throw err;
      });
    await bigquery.dataset(where.ops).createTable(table, { schema: { fields: fields as never } });
  };
}
