/**
 * The studio's operations calls on the admin API (docs/console.md), read-only:
 * - `live` `{since, filter?, only?}`: the gateway's refused requests (the ops table
 *   `gateway_refusals`, core/live-events.ts) and the events stored since, newest first, each
 *   list at most LIVE_ROWS rows; `filter` is text matched against source, credential,
 *   translator, reason and event name.
 */
import { plainValue } from '../adapters/user-sql.ts';
import { apiError, withViolations } from '../core/errors.ts';
import { liveProblem, liveSql, REFUSALS_TABLE } from '../core/live-events.ts';
import { TABLES } from '../core/warehouse.ts';
import type { CreatorApiOptions } from './creator-api.ts';
import { Refusal } from './refusal.ts';

/** The operations pages' actions, and whether each only reads. */
export const OPS_ACTIONS: Readonly<Record<string, 'read' | 'apply'>> = Object.freeze({
  live: 'read',
});

export interface OpsApiOptions {
  /** Quotes a table of the ops dataset (plan().ops), as `warehouse.table` does for the events'. */
  readonly opsTable?: (name: string) => string;
  /** The clock (tests). */
  readonly now?: () => number;
}

export async function opsAction(
  o: OpsApiOptions & Pick<CreatorApiOptions, 'warehouse'>,
  action: string,
  raw: unknown,
): Promise<unknown> {
  const body = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  if (!o.warehouse || !o.opsTable)
    throw new Refusal(apiError('NOT_CONFIGURED', { detail: 'it has no warehouse' }));
  if (action !== 'live') throw new Refusal(apiError('NOT_FOUND', { resource: `/v1/admin/${action}` }));
  const problem = liveProblem(body, (o.now ?? Date.now)());
  if (problem)
    throw new Refusal(
      withViolations(apiError('INVALID_REQUEST', { detail: `${problem.field} ${problem.description}` }), [
        problem,
      ]),
    );
  const params = {
    since: String(body['since']),
    filter: typeof body['filter'] === 'string' ? body['filter'].trim().toLowerCase() : '',
  };
  const sql = liveSql(o.warehouse.table(TABLES.events), o.opsTable(REFUSALS_TABLE));
  const only = body['only'];
  const [refused, accepted] = await Promise.all([
    only === 'accepted' ? [] : o.warehouse.query(sql.refused, params),
    only === 'refused' ? [] : o.warehouse.query(sql.accepted, params),
  ]);
  return { refused: refused.map(plainValue), accepted: accepted.map(plainValue) };
}
