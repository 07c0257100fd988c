import type { AlertTables } from '../../core/alerts/alerts.ts';
import type { Plan } from '../../core/plan.ts';
import { PRIVACY_TABLES } from '../../core/warehouse/privacy-audit.ts';
import { type ReconciliationSettings, reconciliationRangeSql } from '../../core/warehouse/reconciliation.ts';
import { TABLES, tableRef } from '../../core/warehouse/warehouse.ts';

/**
 * The Alert the alert tests share: Meta's failure rate above half the attempts, over the minute
 * before each evaluation, once a minute (the shortest the scheduler allows), to the `ops-chat`
 * connection; any attempt is judged.
 */
export const META_FAILING = Object.freeze({
  kind: 'Alert' as const,
  name: 'meta-failing',
  description: 'Tell ops when Meta refuses more than half of the attempts',
  spec: {
    condition: { failure_rate: { destination: 'meta', above: 0.5, window: '1m', min_attempts: 1 } },
    schedule: { every: '1m' },
    notify: { connection: 'ops-chat' },
    clear_after: 2,
  },
});

/** The tables an alert condition reads, in a provisioned warehouse (functions/schedule's, for tests). */
export function alertTablesOf(project: string, p: Plan, settings: ReconciliationSettings): AlertTables {
  const ref = (dataset: string, table: string) => tableRef(project, dataset, table);
  return {
    events: ref(p.dataset, TABLES.events),
    invalidEvents: ref(p.dataset, TABLES.invalidEvents),
    deliveries: ref(p.dataset, TABLES.deliveries),
    erasures: ref(p.ops.dataset, PRIVACY_TABLES.erasures),
    reconciliation: (range) =>
      `(\n${reconciliationRangeSql(settings, (name) => ref(p.dataset, name), range).days}\n) AS reconciliation`,
  };
}
