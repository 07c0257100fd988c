/**
 * Creates or replaces one BigQuery view (Google's client; locally the BigQuery emulator): used by
 * `npm start`'s provisioning for plan()'s views and by the studio for defined events' typed views.
 */
import type { Dataset } from '@google-cloud/bigquery';
import type { ViewPlan } from '../core/warehouse.ts';

/** Makes `v` exist with its query; says what it did. */
export async function ensureView(
  dataset: Dataset,
  v: ViewPlan,
): Promise<'created' | 'updated' | 'unchanged'> {
  const table = dataset.table(v.name);
  const [exists] = await table.exists();
  const view = { query: v.query, useLegacySql: false };
  if (!exists) {
    await dataset.createTable(v.name, { description: v.description, view });
    return 'created';
  }
  const [metadata] = (await table.getMetadata()) as unknown as [{ view?: { query?: string } }];
  if (metadata.view?.query === v.query) return 'unchanged';
  await table.setMetadata({ description: v.description, view });
  return 'updated';
}
