/**
 * The SQL page's schema browser (docs/console.md): the warehouse's datasets, tables and views
 * with their columns, types and descriptions, shaped from what BigQuery's `tables.get` answers
 * (the same resource on the emulator and on GCP). A RECORD's fields are listed after it under
 * their dotted path (`user.email_sha256`), the name a query uses. Pure.
 */

/** One field of a `tables.get` schema, as BigQuery answers it. */
export interface ApiField {
  readonly name?: string;
  readonly type?: string;
  readonly mode?: string;
  readonly description?: string;
  readonly fields?: readonly ApiField[];
}

export interface SchemaColumn {
  /** The column's path: `event_id`, `user.email_sha256`. */
  readonly name: string;
  /** Its type as SQL writes it (`STRING`, `ARRAY<STRING>`, `STRUCT` for a RECORD). */
  readonly type: string;
  readonly description?: string;
}

export interface SchemaTable {
  readonly name: string;
  readonly kind: 'table' | 'view';
  readonly description?: string;
  readonly columns: readonly SchemaColumn[];
}

export interface SchemaDataset {
  readonly name: string;
  readonly tables: readonly SchemaTable[];
}

/** The API's legacy type names as GoogleSQL writes them. */
const SQL_TYPES: Readonly<Record<string, string>> = {
  RECORD: 'STRUCT',
  FLOAT: 'FLOAT64',
  INTEGER: 'INT64',
  BOOLEAN: 'BOOL',
};

/** A schema's fields as columns, nested fields after their record under dotted paths. */
export function schemaColumns(fields: readonly ApiField[] = [], prefix = ''): SchemaColumn[] {
  return fields.flatMap((f) => {
    const name = `${prefix}${f.name ?? ''}`;
    const base = SQL_TYPES[f.type ?? ''] ?? f.type ?? '';
    const type = f.mode === 'REPEATED' ? `ARRAY<${base}>` : base;
    const column: SchemaColumn = f.description ? { name, type, description: f.description } : { name, type };
    // A repeated record's fields are reached through UNNEST, not by a path: list the array only.
    const nested = f.fields && f.mode !== 'REPEATED' ? schemaColumns(f.fields, `${name}.`) : [];
    return [column, ...nested];
  });
}

/** One `tables.get` answer as the browser's table. */
export function schemaTable(meta: {
  readonly tableReference?: { readonly tableId?: string };
  readonly type?: string;
  readonly description?: string;
  readonly schema?: { readonly fields?: readonly ApiField[] };
}): SchemaTable {
  return {
    name: meta.tableReference?.tableId ?? '',
    kind: meta.type === 'VIEW' ? 'view' : 'table',
    ...(meta.description ? { description: meta.description } : {}),
    columns: schemaColumns(meta.schema?.fields),
  };
}
