/**
 * The console's calls on the admin API (docs/console.md), all read-only:
 * - `overview` `{from, to}`: core/console/overview.ts's queries over the warehouse, shaped.
 */
import {
  OVERVIEW_QUERIES,
  type OverviewQuery,
  overviewRangeProblem,
  overviewSql,
  shapeOverview,
} from '../core/console/overview.ts';
import { apiError, withViolations } from '../core/errors.ts';
import type { CreatorApiOptions, Row } from './creator-api.ts';
import { Refusal } from './refusal.ts';

/** The console's actions, and whether each only reads. */
export const CONSOLE_ACTIONS: Readonly<Record<string, 'read' | 'apply'>> = Object.freeze({
  overview: 'read',
});

type Warehouse = NonNullable<CreatorApiOptions['warehouse']>;

export async function consoleAction(o: CreatorApiOptions, action: string, raw: unknown): Promise<unknown> {
  const body = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  if (!o.warehouse) throw new Refusal(apiError('NOT_CONFIGURED', { detail: 'it has no warehouse' }));
  switch (action) {
    case 'overview':
      return overview(o.warehouse, body);
    default:
      throw new Refusal(apiError('NOT_FOUND', { resource: `/v1/admin/${action}` }));
  }
}

async function overview(w: Warehouse, body: Record<string, unknown>) {
  const problem = overviewRangeProblem(body);
  if (problem) {
    const field = problem.startsWith('to') ? 'to' : 'from';
    throw new Refusal(
      withViolations(apiError('INVALID_REQUEST', { detail: problem }), [{ field, description: problem }]),
    );
  }
  const range = { from: String(body['from']), to: String(body['to']) };
  const sql = overviewSql(w.table);
  const rows = await Promise.all(OVERVIEW_QUERIES.map((q) => w.query(sql[q], range)));
  return shapeOverview(
    range,
    Object.fromEntries(OVERVIEW_QUERIES.map((q, i) => [q, rows[i] ?? []])) as Record<OverviewQuery, Row[]>,
  );
}
