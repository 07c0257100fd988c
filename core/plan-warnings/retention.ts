/**
 * The retention warning: a production environment whose `events` table keeps every partition
 * forever (no `warehouse.retention.events`, no `warehouse.partition_expiration_days`). Keeping it is
 * the business's decision (docs/privacy.md#retention), so it is said, never refused.
 */
import type { Settings } from '../../schemas/settings.ts';
import { retentionDays } from '../warehouse/retention.ts';

/** A warning when a production environment keeps its events forever; none otherwise. */
export function retentionWarnings(settings: Readonly<Settings>): string[] {
  if (settings.production !== true || retentionDays(settings, 'events') !== undefined) return [];
  return [
    'warehouse: the events table keeps every event forever (personal data included: user ids, ' +
      'context, payloads), as neither warehouse.retention.events nor warehouse.partition_expiration_days ' +
      'is set. Decide how long the business keeps them and set warehouse.retention.events to that many ' +
      'days (docs/privacy.md#retention).',
  ];
}
