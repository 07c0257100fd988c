/**
 * BigQuery table schemas: checking and normalising the one a caller gives (tables.insert and
 * patch, load and copy jobs), and each field's DuckDB column. The type table these read is
 * types.ts; inserted rows are converted in insert-rows.ts, results encoded in result-encoding.ts.
 */
import { RANGE_ELEMENT_DUCK, rangeDuckType } from './range.ts';
import { quoteIdent } from './sql-tree.ts';
import { COLUMN_DUCK_TYPES, SCHEMA_TYPE_NAMES } from './types.ts';

export interface FieldSchema {
  name: string;
  type: string;
  mode?: string;
  fields?: FieldSchema[];
  description?: string;
  /** Column-level security tags: kept and reported back; enforced with `--iam` (masking.ts). */
  policyTags?: { names: string[] };
  maxLength?: string;
  precision?: string;
  scale?: string;
  roundingMode?: string;
  defaultValueExpression?: string;
  /** 6 (microseconds, the default) or 12 (picoseconds: `isPicoTimestamp`). */
  timestampPrecision?: string;
  /** A RANGE field's element type: DATE, DATETIME or TIMESTAMP. */
  rangeElementType?: { type: string };
}

/** A field as compared across schema versions: NULLABLE where no mode is given, at any depth. */
export function effectiveField(f: FieldSchema): FieldSchema {
  return { ...f, mode: f.mode ?? 'NULLABLE', ...(f.fields ? { fields: f.fields.map(effectiveField) } : {}) };
}

/** Checks and normalises a schema from tables.insert/patch; returns an error message or the schema. */
export function normaliseSchema(fields: unknown, path = ''): FieldSchema[] | string {
  if (!Array.isArray(fields)) return `Invalid schema: fields must be an array${path ? ` at ${path}` : ''}`;
  const seen = new Set<string>();
  const out: FieldSchema[] = [];
  for (const f of fields as unknown[]) {
    if (typeof f !== 'object' || f === null) return 'Invalid schema field';
    const o = f as Record<string, unknown>;
    const name = o['name'];
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,299}$/.test(name))
      return `Invalid field name "${String(name)}". Fields must contain only letters, numbers, and underscores, start with a letter or underscore, and be at most 300 characters long.`;
    const key = name.toLowerCase();
    if (seen.has(key)) return `Field ${path}${name} already exists in schema`;
    seen.add(key);
    // 6 (microseconds, the default) or 12 (picoseconds), and 12 only on a TIMESTAMP.
    const precision = o['timestampPrecision'] === undefined ? undefined : String(o['timestampPrecision']);
    if (precision !== undefined && precision !== '6' && precision !== '12')
      return `Invalid value for timestampPrecision: ${precision} on ${path}${name} (6 or 12)`;
    if (precision === '12' && SCHEMA_TYPE_NAMES[String(o['type'] ?? '').toUpperCase()] !== 'TIMESTAMP')
      return `timestampPrecision 12 on ${path}${name}: only a TIMESTAMP field has picosecond precision`;
    const type = SCHEMA_TYPE_NAMES[String(o['type'] ?? '').toUpperCase()];
    if (!type) return `Invalid value for type: ${String(o['type'])} is not a valid value`;
    const mode = String(o['mode'] ?? 'NULLABLE').toUpperCase();
    if (!['NULLABLE', 'REQUIRED', 'REPEATED'].includes(mode))
      return `Invalid value for mode: ${String(o['mode'])} is not a valid value`;
    // A field created without a mode has none in the schema BigQuery answers (it is NULLABLE).
    const field: FieldSchema = { name, type, ...(o['mode'] !== undefined ? { mode } : {}) };
    if (typeof o['description'] === 'string') field.description = o['description'];
    if (type === 'RANGE') {
      const element = String((o['rangeElementType'] as { type?: unknown } | null)?.type ?? '').toUpperCase();
      if (RANGE_ELEMENT_DUCK[element] === undefined)
        return `Field ${path}${name} is type RANGE: rangeElementType.type must be DATE, DATETIME or TIMESTAMP`;
      field.rangeElementType = { type: element };
    } else if (o['rangeElementType'] !== undefined)
      return `Field ${path}${name}: rangeElementType is only for a RANGE field`;
    // Kept and answered back (the column is typed as the emulator types it).
    for (const k of [
      'maxLength',
      'precision',
      'scale',
      'roundingMode',
      'defaultValueExpression',
      'timestampPrecision',
    ] as const)
      if (o[k] !== undefined) field[k] = String(o[k]);
    if (o['policyTags'] !== undefined) {
      const names = (o['policyTags'] as { names?: unknown } | null)?.names;
      if (!Array.isArray(names) || names.some((n) => typeof n !== 'string') || names.length > 1)
        return `Invalid value for policyTags at ${path}${name}: names must be a list of at most one policy tag name`;
      if (type === 'RECORD') return `Field ${path}${name} is type RECORD: policy tags go on its leaf fields`;
      if (names.length > 0) field.policyTags = { names: [...(names as string[])] };
    }
    if (type === 'RECORD') {
      const sub = normaliseSchema(o['fields'], `${path}${name}.`);
      if (typeof sub === 'string') return sub;
      if (sub.length === 0) return `Field ${path}${name} is type RECORD but has no schema`;
      field.fields = sub;
    }
    out.push(field);
  }
  return out;
}

/**
 * A TIMESTAMP of picosecond precision (`timestampPrecision: 12`). DuckDB's timestamps stop at
 * nanoseconds, so its column holds the canonical text (`picoTimestampText`), fixed-width so that
 * text order is time order; tabledata.list answers it in each output format (`encodeColumn`).
 */
export function isPicoTimestamp(f: FieldSchema): boolean {
  return f.type === 'TIMESTAMP' && f.timestampPrecision === '12';
}

/** DuckDB column type for a BigQuery field. */
export function duckType(f: FieldSchema): string {
  const base =
    f.type === 'RECORD'
      ? `STRUCT(${(f.fields ?? []).map((s) => `${quoteIdent(s.name)} ${duckType(s)}`).join(', ')})`
      : isPicoTimestamp(f)
        ? 'VARCHAR'
        : f.type === 'RANGE'
          ? rangeDuckType(RANGE_ELEMENT_DUCK[f.rangeElementType?.type ?? ''] as string)
          : (COLUMN_DUCK_TYPES[f.type] as string);
  return f.mode === 'REPEATED' ? `${base}[]` : base;
}

/** `CREATE TABLE` column list for a schema. */
export function columnDefinitions(fields: readonly FieldSchema[]): string {
  return fields
    .map((f) => `${quoteIdent(f.name)} ${duckType(f)}${f.mode === 'REQUIRED' ? ' NOT NULL' : ''}`)
    .join(', ');
}
