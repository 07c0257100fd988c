/**
 * The studio's warehouse over the BigQuery emulator, as studio/main.ts wires it on GCP: the
 * plan's tables, parameterised queries, user SQL under the cap, and the schema browser's reads.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import { runQuery } from '../../adapters/user-sql.ts';
import { readWarehouseSchema } from '../../adapters/warehouse-schema.ts';
import type { Plan } from '../../core/plan.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import type { StudioOptions } from '../../studio/server.ts';

export function studioWarehouse(
  bigquery: BigQuery,
  project: string,
  p: Plan,
): NonNullable<StudioOptions['warehouse']> {
  return {
    table: (name) => tableRef(project, p.dataset, name),
    query: async (query, params) => (await bigquery.query({ query, params }))[0] as Record<string, unknown>[],
    select: (query, maxRows) => runQuery(bigquery, p, query, maxRows),
    schema: () => readWarehouseSchema(bigquery, [p.dataset]),
  };
}
