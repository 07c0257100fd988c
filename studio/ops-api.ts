/**
 * The studio's operations calls on the admin API (docs/console.md), read-only:
 * - `live` `{since, filter?, only?}`: the gateway's refused requests (the ops table
 *   `gateway_refusals`, core/console/live-events.ts) and the events stored since, newest first, each
 *   list at most LIVE_ROWS rows; `filter` is text matched against source, credential,
 *   translator, reason and event name.
 * - `destination-health` `{from, to}`: per destination, the ledger's rows by status and hour, the
 *   failure rate, the latency to delivery and the breaker as the ledger shows it, and the top
 *   error reasons with a sample event (core/console/destination-health.ts's views), and match quality: the
 *   share of delivered requests carrying each identifier kind, recent against before, with drops;
 *   and the reconciliation of the 14 days up to `to` with each gap's top reasons
 *   (core/console/reconciliation-chart.ts).
 * - `alert-status` `{alerts: [name]}`: each alert firing, clear or never evaluated, and since
 *   when (the ops table `alert_states`, core/alerts/status.ts).
 */

import { plainValue } from '../adapters/user-sql.ts';
import { alertStatusSql, shapeAlertStatus } from '../core/alerts/status.ts';
import {
  destinationHealthSql,
  matchSql,
  shapeDestinationHealth,
  shapeMatch,
} from '../core/console/destination-health.ts';
import { liveProblem, liveSql, REFUSALS_TABLE } from '../core/console/live-events.ts';
import { overviewRangeProblem } from '../core/console/overview.ts';
import {
  reconciliationSql,
  reconciliationWindow,
  shapeReconciliation,
} from '../core/console/reconciliation-chart.ts';
import { webhookSigning } from '../core/platforms/webhook/formats.ts';
import { fail, ok, type Step } from '../core/step.ts';
import { OPS_TABLES, TABLES } from '../core/warehouse/warehouse.ts';
import type { CreatorApiOptions } from './creator-api.ts';
import { invalidField, invalidProblem, notConfigured } from './request.ts';

/** The operations pages' actions, and whether each only reads. */
export const OPS_ACTIONS: Readonly<Record<string, 'read' | 'apply'>> = Object.freeze({
  live: 'read',
  'destination-health': 'read',
  'alert-status': 'read',
});

/** The most alerts one `alert-status` call asks about. */
const MAX_ALERTS = 500;

export interface OpsApiOptions {
  /** Quotes a table of the ops dataset (plan().ops), as `warehouse.table` does for the events'. */
  readonly opsTable?: (name: string) => string;
  /** The clock (tests). */
  readonly now?: () => number;
}

export async function opsAction(
  o: OpsApiOptions & Pick<CreatorApiOptions, 'warehouse' | 'settings'>,
  action: string,
  raw: unknown,
): Promise<Step<unknown>> {
  const body = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  if (!o.warehouse) return notConfigured('it has no warehouse');
  if (action === 'destination-health') return destinationHealth(o, o.warehouse, body);
  if (action !== 'live' && action !== 'alert-status')
    return fail('NOT_FOUND', { resource: `/v1/admin/${action}` });
  if (!o.opsTable) return notConfigured('it has no ops dataset');
  if (action === 'alert-status') return alertStatus(o.warehouse, o.opsTable, body);
  const invalid = invalidProblem(liveProblem(body, (o.now ?? Date.now)()));
  if (invalid) return invalid;
  const params = {
    since: String(body['since']),
    filter: typeof body['filter'] === 'string' ? body['filter'].trim().toLowerCase() : '',
  };
  const sql = liveSql(
    o.warehouse.table(TABLES.events),
    o.opsTable(REFUSALS_TABLE),
    o.warehouse.table(TABLES.deliveries),
  );
  const only = body['only'];
  const [refused, accepted] = await Promise.all([
    only === 'accepted' ? [] : o.warehouse.query(sql.refused, params),
    only === 'refused' ? [] : o.warehouse.query(sql.accepted, params),
  ]);
  return ok({ refused: refused.map(plainValue), accepted: accepted.map(plainValue) });
}

async function alertStatus(
  w: NonNullable<CreatorApiOptions['warehouse']>,
  opsTable: (name: string) => string,
  body: Record<string, unknown>,
): Promise<Step<unknown>> {
  const names = body['alerts'];
  if (
    !Array.isArray(names) ||
    names.length > MAX_ALERTS ||
    !names.every((n): n is string => typeof n === 'string')
  )
    return invalidField('alerts', `must be a list of at most ${MAX_ALERTS} alert names`);
  if (names.length === 0) return ok({ alerts: [] });
  const rows = await w.query(alertStatusSql(opsTable(OPS_TABLES.alertStates)), {});
  return ok({
    alerts: shapeAlertStatus(
      names,
      rows.map((r) => plainValue(r) as Record<string, unknown>),
    ),
  });
}

async function destinationHealth(
  o: Pick<CreatorApiOptions, 'settings'>,
  w: NonNullable<CreatorApiOptions['warehouse']>,
  body: Record<string, unknown>,
): Promise<Step<unknown>> {
  const problem = overviewRangeProblem(body);
  if (problem) return invalidField(problem.startsWith('to') ? 'to' : 'from', problem, problem);
  const params = { from: String(body['from']), to: String(body['to']) };
  const sql = destinationHealthSql((name) => w.table(name));
  // Match quality compares the range's last quarter (a day at most) with what came before it.
  const to = Date.parse(params.to);
  const recent = new Date(to - Math.min(86_400_000, (to - Date.parse(params.from)) / 4)).toISOString();
  const recon = reconciliationSql(o.settings ?? {}, (name) => w.table(name));
  const reconRange = reconciliationWindow(params.to);
  const [hours, errors, latency, match, reconDays, reconGaps] = await Promise.all([
    w.query(sql.hours, params),
    w.query(sql.errors, params),
    w.query(sql.latency, params),
    w.query(
      matchSql((name) => w.table(name)),
      { ...params, recent },
    ),
    w.query(recon.days, reconRange),
    w.query(recon.gaps, reconRange),
  ]);
  const known = (o.settings?.destinations ?? []).map((d) => d.id);
  return ok({
    types: Object.fromEntries((o.settings?.destinations ?? []).map((d) => [d.id, d.type])),
    // Each webhook's format and key rotation state (never a secret's value).
    signing: webhookSigning(o.settings?.destinations ?? [], new Date()),
    match: { since: recent, shares: shapeMatch(match.map((r) => plainValue(r) as Record<string, unknown>)) },
    destinations: shapeDestinationHealth(known, {
      hours: hours.map((r) => plainValue(r) as Record<string, unknown>),
      latency: latency.map((r) => plainValue(r) as Record<string, unknown>),
    }),
    errors: errors.map(plainValue),
    // The last RECONCILIATION_DAYS days up to the range's end: permitted → sent → accepted → counted.
    reconciliation: shapeReconciliation({
      days: reconDays.map((r) => plainValue(r) as Record<string, unknown>),
      gaps: reconGaps.map((r) => plainValue(r) as Record<string, unknown>),
    }),
  });
}
