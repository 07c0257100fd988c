/**
 * Retention: how long each partitioned table that holds personal or request data keeps a
 * partition, as BigQuery partition expiration (`timePartitioning.expirationMs`), so Pulumi and the
 * local provisioning apply the same value. The defaults and why they are what they are:
 * docs/privacy.md#retention.
 */
import type { Settings } from '../../schemas/settings.ts';

/** Milliseconds in a day: BigQuery takes partition expiration in milliseconds. */
export const DAY_MS = 86_400_000;

/**
 * The tables `warehouse.retention` names (the keys are the tables' names). `events` and the ledgers
 * live in the environment's dataset; `gateway_refusals`, `sync_failed_rows` and `platform_diagnostics` in
 * the ops dataset.
 */
export const RETENTION_TABLES = Object.freeze([
  'events',
  'invalid_events',
  'deliveries',
  'hook_failures',
  'action_runs',
  'gateway_refusals',
  'sync_failed_rows',
  'sessions',
  'platform_diagnostics',
] as const);
export type RetentionTable = (typeof RETENTION_TABLES)[number];

/**
 * Days a partition is kept when the settings say nothing; absent = kept until someone decides.
 * `events` has none: it is the business's own record, and how long it keeps it is its decision.
 */
export const DEFAULT_RETENTION_DAYS: Readonly<Partial<Record<RetentionTable, number>>> = Object.freeze({
  invalid_events: 90,
  deliveries: 400,
  hook_failures: 90,
  action_runs: 400,
  gateway_refusals: 30,
  sync_failed_rows: 90,
  platform_diagnostics: 400,
});

/**
 * Tables `warehouse.partition_expiration_days` applies to: those of the environment's dataset, the
 * ones it always covered (the ops tables never took it, so a setting made for the events does not
 * lengthen how long refusals are kept).
 */
const FALLBACK_APPLIES: ReadonlySet<RetentionTable> = new Set([
  'events',
  'invalid_events',
  'deliveries',
  'hook_failures',
  'action_runs',
]);

/**
 * The days a table's partitions are kept, or undefined for never expiring. Precedence: the table's
 * own `warehouse.retention.<table>`, then `warehouse.partition_expiration_days` (tables of the
 * environment's dataset only, as before retention existed), then DEFAULT_RETENTION_DAYS.
 */
export function retentionDays(settings: Readonly<Settings>, table: RetentionTable): number | undefined {
  const own = settings.warehouse?.retention?.[table];
  if (own !== undefined) return own;
  // Sessions are derived from events: by default they go when the events they came from go.
  if (table === 'sessions') return retentionDays(settings, 'events');
  const fallback = settings.warehouse?.partition_expiration_days;
  if (fallback !== undefined && FALLBACK_APPLIES.has(table)) return fallback;
  return DEFAULT_RETENTION_DAYS[table];
}

/** A table's partition expiration as the plan carries it: `{ expirationMs }`, or `{}` for none. */
export function partitionExpiration(
  settings: Readonly<Settings>,
  table: RetentionTable,
): { readonly expirationMs?: string } {
  const days = retentionDays(settings, table);
  return days === undefined ? {} : { expirationMs: String(days * DAY_MS) };
}
