/**
 * Reads the warehouse's datasets for the SQL page's schema browser through BigQuery's API
 * (`tables.list`, then `tables.get` for each table's schema and descriptions): the same calls on
 * the emulator and on GCP, no INFORMATION_SCHEMA query billed. Shaping is core/console/schema.ts.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import { type SchemaDataset, schemaTable } from '../core/console/schema.ts';

/** At most this many `tables.get` calls at once (a dataset holds a view per catalogue event). */
const PARALLEL = 8;

export async function readWarehouseSchema(
  bigquery: BigQuery,
  datasets: readonly string[],
): Promise<SchemaDataset[]> {
  return Promise.all(
    datasets.map(async (name) => {
      // A dataset not made yet, or one the account may not read, is listed empty.
      const tables = await bigquery
        .dataset(name)
        .getTables()
        .then(([t]) => t)
        .catch((err: { code?: number }) => {
          if (err.code === 404 || err.code === 403) return [];
          throw err;
        });
      const out: ReturnType<typeof schemaTable>[] = [];
      for (let i = 0; i < tables.length; i += PARALLEL) {
        const metas = await Promise.all(tables.slice(i, i + PARALLEL).map((t) => t.getMetadata()));
        for (const [meta] of metas) out.push(schemaTable(meta));
      }
      return { name, tables: out.sort((a, b) => a.name.localeCompare(b.name)) };
    }),
  );
}
