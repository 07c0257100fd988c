/**
 * `<dataset>.INFORMATION_SCHEMA.TABLES` and `.COLUMNS` (docs/bigquery-emulator.md): DuckDB
 * subqueries over the emulator's own catalog (`_emulator.tables`, the table resources the API
 * serves), with BigQuery's column names and type names; `.PARTITIONS`: a temporary table that
 * expiration.ts fills right before the statement runs. Region-level views
 * (`region-us.INFORMATION_SCHEMA…`) and the other views are refused by name.
 */
import { stringLiteral } from './sql-tree.ts';

export const INFORMATION_SCHEMA_VIEWS = ['TABLES', 'COLUMNS', 'PARTITIONS'] as const;

/** The temporary table that stands for `<dataset>.INFORMATION_SCHEMA.PARTITIONS` (filled by expiration.ts). */
export const PARTITIONS_TABLE = '_eventbus_information_schema_partitions';
export type InformationSchemaView = (typeof INFORMATION_SCHEMA_VIEWS)[number];

/** BigQuery's legacy schema type names as INFORMATION_SCHEMA spells them. */
const TYPE_NAMES = `CASE upper(json_extract_string(f, '$.type'))
      WHEN 'INTEGER' THEN 'INT64' WHEN 'FLOAT' THEN 'FLOAT64' WHEN 'BOOLEAN' THEN 'BOOL'
      WHEN 'RECORD' THEN 'STRUCT'
      WHEN 'RANGE' THEN 'RANGE<' || json_extract_string(f, '$.rangeElementType.type') || '>' ELSE upper(json_extract_string(f, '$.type')) END`;

export function informationSchemaSql(
  projectId: string,
  datasetId: string,
  view: InformationSchemaView,
): string {
  const where = `project = ${stringLiteral(projectId)} AND dataset = ${stringLiteral(datasetId)}`;
  if (view === 'PARTITIONS')
    return `SELECT * FROM temp.main.${PARTITIONS_TABLE} WHERE table_catalog = ${stringLiteral(projectId)} AND table_schema = ${stringLiteral(datasetId)}`;
  if (view === 'TABLES')
    return `SELECT project AS table_catalog, dataset AS table_schema, table_id AS table_name,
  CASE json_extract_string(resource, '$.type') WHEN 'VIEW' THEN 'VIEW' ELSE 'BASE TABLE' END AS table_type,
  CASE json_extract_string(resource, '$.type') WHEN 'VIEW' THEN 'NO' ELSE 'YES' END AS is_insertable_into,
  make_timestamp(CAST(json_extract_string(resource, '$.creationTime') AS BIGINT) * 1000) AS creation_time
FROM _emulator.tables WHERE ${where}`;
  return `SELECT project AS table_catalog, dataset AS table_schema, table_id AS table_name,
  json_extract_string(f, '$.name') AS column_name, CAST(i AS BIGINT) AS ordinal_position,
  CASE WHEN json_extract_string(f, '$.mode') IN ('REQUIRED', 'REPEATED') THEN 'NO' ELSE 'YES' END AS is_nullable,
  CASE WHEN json_extract_string(f, '$.mode') = 'REPEATED' THEN 'ARRAY<' || ${TYPE_NAMES} || '>' ELSE ${TYPE_NAMES} END AS data_type,
  CASE WHEN json_extract_string(tp, '$.field') = json_extract_string(f, '$.name') THEN 'YES' ELSE 'NO' END AS is_partitioning_column
FROM (
  SELECT project, dataset, table_id, tp, unnest(fs) AS f, generate_subscripts(fs, 1) AS i
  FROM (SELECT project, dataset, table_id, json_extract(resource, '$.timePartitioning') AS tp,
          CAST(json_extract(resource, '$.schema.fields') AS JSON[]) AS fs
        FROM _emulator.tables WHERE ${where})
)`;
}
