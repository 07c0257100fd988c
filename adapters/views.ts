/**
 * Creates or replaces one BigQuery view (Google's client; locally the BigQuery emulator): used by
 * `npm start`'s provisioning for plan()'s views and by the studio for defined events' typed views.
 */
import type { Dataset } from '@google-cloud/bigquery';
import { reserved } from '../core/references/reserved-names.ts';
import type { ViewPlan } from '../core/warehouse/warehouse.ts';

/** Raised instead of replacing what a view may not replace; nothing was changed. */
export class ViewRefused extends Error {
  override name = 'ViewRefused';
}

/** Makes `v` exist with its query; says what it did. A table of that name is never replaced. */
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
  const [metadata] = (await table.getMetadata()) as unknown as [{ type?: string; view?: { query?: string } }];
  if (!metadata.view || (metadata.type !== undefined && metadata.type !== 'VIEW'))
    throw new ViewRefused(`${v.name} is a table, not a view: it is not replaced`);
  if (metadata.view.query === v.query) return 'unchanged';
  await table.setMetadata({ description: v.description, view });
  return 'updated';
}

/**
 * A defined event's typed view (the studio's applies): never one of the warehouse's own tables
 * or views (`events_dedup`, `identities`, a catalogue event's view…). The apply refuses such
 * names first (core/references/reserved-names.ts); this holds even for a definition stored before it did.
 */
export async function ensureDefinitionView(
  dataset: Dataset,
  v: ViewPlan,
): Promise<'created' | 'updated' | 'unchanged'> {
  if (reserved().warehouse.has(v.name))
    throw new ViewRefused(
      `${v.name} is the warehouse's own table or view: a definition's view cannot replace it`,
    );
  return ensureView(dataset, v);
}
