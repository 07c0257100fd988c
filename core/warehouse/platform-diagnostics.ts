/**
 * The ops table `platform_diagnostics` (docs/delivery.md, "What the platforms report per
 * dataset"): what a platform says about a dataset or pixel as a whole — Meta's Event Match
 * Quality, event coverage, deduplication — one row per destination, day, event and metric,
 * written by the scheduler's PlatformDiagnostics job (functions/schedule/platform-diagnostics.ts)
 * for the destinations that turn it on. Scores, percentages and key kinds: no identifier.
 */
import type { Settings } from '../../schemas/settings.ts';
import { partitionExpiration } from './retention.ts';
import { type ColumnPlan, column as col, type TablePlan } from './table-plan.ts';

/** The table's name, in the ops dataset. */
export const PLATFORM_DIAGNOSTICS_TABLE = 'platform_diagnostics';

/** Columns of `platform_diagnostics`. */
export function platformDiagnosticsColumns(): ColumnPlan[] {
  return [
    col('reported_at', 'TIMESTAMP', 'When the platform was asked (partition column)', 'REQUIRED'),
    col('destination', 'STRING', 'Destination id', 'REQUIRED'),
    col('platform', 'STRING', 'Destination type (meta_capi)', 'REQUIRED'),
    col('dataset', 'STRING', "The platform's dataset: Meta's pixel id", 'REQUIRED'),
    col('event_name', 'STRING', 'The event as the platform names it (Purchase)', 'REQUIRED'),
    col(
      'metric',
      'STRING',
      'event_match_quality (0-10), match_key_coverage.<key>, event_coverage, dedup_rate, data_freshness, acr, … (percentages 0-100)',
      'REQUIRED',
    ),
    col('value', 'FLOAT64', 'The number the platform reported (null: none, see detail)'),
    col('detail', 'STRING', 'What goes with it, as bounded JSON: key kinds, goals, the platform’s wording'),
    col('source', 'STRING', 'The API and version asked (meta dataset_quality v25.0)', 'REQUIRED'),
  ];
}

/** The table as plan() declares it in the ops dataset. */
export function platformDiagnosticsTable(settings: Readonly<Settings>): TablePlan {
  return {
    name: PLATFORM_DIAGNOSTICS_TABLE,
    description: 'What platforms report per dataset or pixel (Meta’s Event Match Quality), daily',
    columns: platformDiagnosticsColumns(),
    timePartitioning: {
      type: 'DAY',
      field: 'reported_at',
      ...partitionExpiration(settings, PLATFORM_DIAGNOSTICS_TABLE),
    },
    clustering: ['destination', 'metric'],
  };
}
