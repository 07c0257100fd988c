/**
 * The tables of the ops dataset (`eventbus_ops`): what the service does on its own behalf (sync
 * runs and failed rows, the gateway's refusals, alert states, platform diagnostics, the privacy
 * audit), as plan() declares them.
 */
import type { Settings } from '../../schemas/settings.ts';
import { platformDiagnosticsTable } from './platform-diagnostics.ts';
import { privacyAuditTables } from './privacy-audit.ts';
import { partitionExpiration } from './retention.ts';
import {
  alertStateColumns,
  gatewayRefusalColumns,
  OPS_TABLES,
  syncFailedRowColumns,
  syncRunColumns,
  type TablePlan,
} from './warehouse.ts';

export function opsTablePlans(settings: Readonly<Settings>): TablePlan[] {
  return [
    {
      name: OPS_TABLES.syncRuns,
      description: 'Syncs (reverse ETL): one row per finished run',
      columns: syncRunColumns(),
      timePartitioning: { type: 'DAY', field: 'finished_at' },
      clustering: ['sync'],
    },
    {
      name: OPS_TABLES.syncFailedRows,
      description: 'Syncs: rows a run could not send, with the reason (retried by the next run)',
      columns: syncFailedRowColumns(),
      timePartitioning: {
        type: 'DAY',
        field: 'failed_at',
        ...partitionExpiration(settings, OPS_TABLES.syncFailedRows),
      },
      clustering: ['sync'],
    },
    {
      name: OPS_TABLES.gatewayRefusals,
      description:
        'Live events: requests the gateway refused, sampled per instance (reason and who, never the body)',
      columns: gatewayRefusalColumns(),
      // Bounded storage whatever a flood does: rows are rate-limited and expire (docs/privacy.md#retention).
      timePartitioning: {
        type: 'DAY',
        field: 'refused_at',
        ...partitionExpiration(settings, OPS_TABLES.gatewayRefusals),
      },
      clustering: ['source', 'reason'],
    },
    {
      name: OPS_TABLES.alertStates,
      description: 'Alerts: one row per evaluation; the newest row of an alert is its incident state',
      columns: alertStateColumns(),
      timePartitioning: { type: 'DAY', field: 'recorded_at' },
      clustering: ['alert'],
    },
    platformDiagnosticsTable(settings),
    ...privacyAuditTables(),
  ];
}
