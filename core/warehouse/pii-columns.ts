/**
 * Which warehouse columns hold personal data directly, and a schema with the `pii` policy tag on
 * them: what column-level security tags, in the cloud (infra/column-security.ts) and locally
 * (local/provision.ts). Pure.
 */
import { type ColumnPlan, TABLES } from './warehouse.ts';

/**
 * Columns that hold personal data directly, per table (dotted paths into RECORDs). Masking
 * applies to STRING columns: `event_data` (JSON) cannot carry a masked tag, which is why
 * `store` hashes or drops listed fields before they get there (docs/storage.md).
 */
export const PII_COLUMNS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  [TABLES.events]: [
    'user.email',
    'user.phone',
    'user.first_name',
    'user.last_name',
    'user.date_of_birth',
    'user.postal_code',
    'user.external_id',
    'device.ip',
  ],
  // The raw payload keeps whatever the producer sent, personal data included.
  [TABLES.invalidEvents]: ['payload'],
});

/**
 * A table schema (BigQuery REST JSON) with `policyTags` on the listed columns; other columns
 * unchanged. Paths into RECORDs follow their `fields`.
 */
export function withPolicyTags(
  columns: readonly ColumnPlan[],
  paths: readonly string[],
  tag: string,
): unknown[] {
  const tagAt = (fields: readonly ColumnPlan[], prefix: string): unknown[] =>
    fields.map((f) => {
      const path = `${prefix}${f.name}`;
      if (f.fields) return { ...f, fields: tagAt(f.fields, `${path}.`) };
      return paths.includes(path) ? { ...f, policyTags: { names: [tag] } } : f;
    });
  return tagAt(columns, '');
}
