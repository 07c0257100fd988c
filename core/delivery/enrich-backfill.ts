/**
 * `eventbus enrich --from --to` (docs/enrichment.md, "Back-fill"): re-derives the `enriched`
 * column of events stored before enrichment existed (or, with `all`, of every event, after a new
 * referrer list or country database). It sits beside replay.ts, whose reading of a stored row
 * as an event it shares. Pure: the query that reads a slice, what a row's enrichment
 * is, the staging table's columns and the MERGE that writes only rows whose enrichment changed,
 * so a second run over the same slice writes 0 rows. cli/commands/enrich.ts does the I/O.
 *
 * A row is re-derived from what was stored: the IP address and user agent as the PII policy left
 * them (a truncated IP still gives the country; a dropped one gives none).
 */
import { Enriched } from '../../schemas/context.ts';
import type { Enricher } from '../enrich/index.ts';
import { applyPiiPolicy, type PiiPolicy } from '../pii.ts';
import { type ColumnPlan, tableRef } from '../warehouse/table-plan.ts';
import { columnFromSchema } from '../warehouse/warehouse.ts';
import { REPLAY_COLUMNS, storedEventFromRow } from './replay.ts';

/** The columns that name one stored row (a copy of an event): what the MERGE matches on. */
export const ROW_KEY = ['event_id', 'message_id', 'event_time'] as const;

/** The rows of one slice of `events` (every stored copy), oldest first; `@from`/`@to` half-open. */
export function backfillQuery(project: string, dataset: string, all: boolean): string {
  const columns = [...new Set([...REPLAY_COLUMNS, ...ROW_KEY])];
  return [
    `SELECT ${columns.join(', ')} FROM ${tableRef(project, dataset, 'events')}`,
    'WHERE event_time >= @from AND event_time < @to',
    ...(all ? [] : ['  AND enriched IS NULL']),
    'ORDER BY event_time, event_id, message_id',
  ].join('\n');
}

/** Columns of the staging table the derived values are loaded into. */
export function stagingColumns(): ColumnPlan[] {
  return [
    { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'message_id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'event_time', type: 'TIMESTAMP', mode: 'REQUIRED' },
    columnFromSchema('enriched', Enriched),
  ];
}

/** A staging row: a stored row's key and its enrichment as the store function would write it now. */
export interface StagingRow {
  readonly event_id: string;
  readonly message_id: string;
  readonly event_time: string;
  readonly enriched: Readonly<Record<string, unknown>>;
}

/**
 * What the store function would put in `enriched` for this stored row today (its PII policy
 * applied to the derived paths too), or undefined when nothing can be derived.
 */
export function backfillRow(
  row: Readonly<Record<string, unknown>>,
  enricher: Enricher,
  pii: PiiPolicy,
): StagingRow | undefined {
  const event = storedEventFromRow(row);
  const derived = enricher(event);
  if (derived === undefined) return undefined;
  const { enriched } = applyPiiPolicy({ enriched: derived as Record<string, unknown> }, pii);
  if (enriched === undefined || Object.keys(enriched).length === 0) return undefined;
  return {
    event_id: event.event_id,
    message_id: String(row['message_id']),
    event_time: event.event_time,
    enriched,
  };
}

/**
 * Writes the staged enrichment into `events`: only rows of the slice (`@from`/`@to`, so BigQuery
 * prunes partitions) whose enrichment is missing or different. Its affected-row count is what
 * the run wrote; 0 on a second run.
 */
export function backfillMergeSql(project: string, dataset: string, staging: string): string {
  return [
    `MERGE ${tableRef(project, dataset, 'events')} AS t`,
    `USING ${staging} AS s`,
    `ON ${ROW_KEY.map((k) => `t.${k} = s.${k}`).join(' AND ')}`,
    '  AND t.event_time >= @from AND t.event_time < @to',
    'WHEN MATCHED AND (t.enriched IS NULL OR TO_JSON_STRING(t.enriched) != TO_JSON_STRING(s.enriched)) THEN',
    '  UPDATE SET enriched = s.enriched',
  ].join('\n');
}
