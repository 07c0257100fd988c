/**
 * The console's calls on the admin API (docs/console.md), all read-only:
 * - `overview` `{from, to, bots?}`: core/console/overview.ts's queries over the warehouse, shaped.
 * - `explore` `{event_id}`: one event's stored rows, invalid twins, ledger rows, and the request
 *   each destination gets for it (the same code as `eventbus preview`, at the time it was
 *   received, with its definition's mappings); or `{from, to, user_id?, event_name?, property?}`:
 *   the events of a range, newest first, `property` one condition such as `properties.value > 100`
 *   (core/console/explorer.ts).
 * - `schema` `{}`: the warehouse's datasets, tables and views with their columns, types and
 *   descriptions (core/console/schema.ts), for the SQL page's schema browser.
 * - `rule-test`, `rule-firings`: the rules page's (studio/rules-api.ts).
 * - `sql` `{query, maxRows?}`: a query someone wrote, run only as a single SELECT of the
 *   environment's own datasets under the bytes cap; its rows (at most maxRows, 1000 unless said,
 *   10,000 at most) and columns. A query its writer must fix is a 400, an outage a 503.
 */

import type { RegistryClient } from '../adapters/registry.ts';
import { plainValue, queryProblem } from '../adapters/user-sql.ts';
import {
  exploreEventSql,
  exploreListSql,
  exploreProblem,
  parsePropertyFilter,
} from '../core/console/explorer.ts';
import {
  OVERVIEW_QUERIES,
  type OverviewQuery,
  overviewRangeProblem,
  overviewSql,
  shapeOverview,
} from '../core/console/overview.ts';
import {
  type DefinedEvent,
  type DefinitionSpec,
  definedEvent,
  withDefinitionMappings,
} from '../core/definitions/defined-events.ts';
import { previewDelivery } from '../core/delivery/preview.ts';
import { storedEventFromRow } from '../core/delivery/replay.ts';
import type { StoredEvent } from '../core/event.ts';
import { QUERY_MAX_CHARS } from '../core/registry/resources.ts';
import { fail, ok, type Step } from '../core/step.ts';
import type { Settings } from '../schemas/settings.ts';
import type { CreatorApiOptions, Row } from './creator-api.ts';
import { invalidField, invalidProblem, notConfigured } from './request.ts';
import { ruleFirings, ruleTest } from './rules-api.ts';

/** The console's actions, and whether each only reads. */
export const CONSOLE_ACTIONS: Readonly<Record<string, 'read' | 'apply'>> = Object.freeze({
  overview: 'read',
  explore: 'read',
  sql: 'read',
  schema: 'read',
  'rule-test': 'read',
  'rule-firings': 'read',
});

export interface ConsoleApiOptions extends CreatorApiOptions {
  /** Where a defined event's definition version is read, for its mappings. */
  readonly registry?: RegistryClient;
}

type Warehouse = NonNullable<CreatorApiOptions['warehouse']>;

export async function consoleAction(
  o: ConsoleApiOptions,
  action: string,
  raw: unknown,
): Promise<Step<unknown>> {
  const body = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  if (!o.warehouse) return notConfigured('it has no warehouse');
  switch (action) {
    case 'overview':
      return overview(o.warehouse, body);
    case 'explore':
      return explore(o, o.warehouse, body);
    case 'sql':
      return sql(o.warehouse, body);
    case 'schema':
      if (!o.warehouse.schema) return notConfigured('it cannot list tables');
      return ok({ datasets: await o.warehouse.schema() });
    case 'rule-test':
      return ruleTest(o, o.warehouse, body);
    case 'rule-firings':
      return ruleFirings(o.warehouse, body);
    default:
      return fail('NOT_FOUND', { resource: `/v1/admin/${action}` });
  }
}

async function overview(w: Warehouse, body: Record<string, unknown>): Promise<Step<unknown>> {
  const problem = overviewRangeProblem(body);
  if (problem) return invalidField(problem.startsWith('to') ? 'to' : 'from', problem, problem);
  const range = { from: String(body['from']), to: String(body['to']) };
  // Bots are left out of the audience breakdowns unless asked for (`"bots": true`).
  const options = { bots: body['bots'] === true };
  const sql = overviewSql(w.table, options);
  const rows = await Promise.all(OVERVIEW_QUERIES.map((q) => w.query(sql[q], range)));
  return ok(
    shapeOverview(
      range,
      Object.fromEntries(OVERVIEW_QUERIES.map((q, i) => [q, rows[i] ?? []])) as Record<OverviewQuery, Row[]>,
      options,
    ),
  );
}

async function explore(
  o: ConsoleApiOptions,
  w: Warehouse,
  body: Record<string, unknown>,
): Promise<Step<unknown>> {
  const refused = invalidProblem(exploreProblem(body));
  if (refused) return refused;
  if (typeof body['event_id'] !== 'string') {
    const q = {
      from: String(body['from']),
      to: String(body['to']),
      ...(typeof body['user_id'] === 'string' ? { user_id: body['user_id'] } : {}),
      ...(typeof body['event_name'] === 'string' ? { event_name: body['event_name'] } : {}),
    };
    // exploreProblem has parsed it once already: here it is known to be good.
    const parsed = typeof body['property'] === 'string' ? parsePropertyFilter(body['property']) : undefined;
    const property = parsed && !('problem' in parsed) ? parsed : undefined;
    const sql = exploreListSql(w.table, { ...q, ...(property ? { property } : {}) });
    const params = { ...q, ...(property ? { property_value: property.value } : {}) };
    return ok({ events: (await w.query(sql, params)).map(plainValue) });
  }
  const params = { event_id: body['event_id'] };
  const sql = exploreEventSql(w.table);
  const [stored, invalid, ledger] = await Promise.all([
    w.query(sql.stored, params),
    w.query(sql.invalid, params),
    w.query(sql.ledger, params),
  ]);
  const first = stored[0];
  return ok({
    stored: stored.map(plainValue),
    invalid: invalid.map(plainValue),
    ledger: ledger.map(plainValue),
    payloads: first && o.settings ? await payloads(o, o.settings, storedEventFromRow(first)) : [],
  });
}

/** What each destination gets for a stored event, as forward built it when it was received. */
async function payloads(o: ConsoleApiOptions, settings: Readonly<Settings>, event: StoredEvent) {
  let definition: DefinedEvent | undefined;
  const stamp = event.definition_version;
  const at = stamp?.lastIndexOf('@') ?? -1;
  if (stamp && o.registry && at > 0) {
    const name = stamp.slice(0, at);
    const version = stamp.slice(at + 1);
    const doc = await o.registry.readVersion('EventDefinition', name, version).catch(() => undefined);
    if (doc) definition = definedEvent(name, version, doc.spec as DefinitionSpec);
  }
  const mapped = {
    ...settings,
    destinations: (settings.destinations ?? []).map((d) => withDefinitionMappings(d, definition)),
  };
  const when = new Date(Date.parse(event.received_at ?? '') || Date.now());
  return mapped.destinations.map((d) => ({
    id: d.id,
    type: d.type,
    result: previewDelivery(mapped, d.id, event, when, {
      ...(definition ? { definition } : {}),
      stored: event,
    }),
  }));
}

export const SQL_MAX_ROWS = 10_000;

async function sql(w: Warehouse, body: Record<string, unknown>): Promise<Step<unknown>> {
  const query = body['query'];
  if (typeof query !== 'string' || query.trim() === '' || query.length > QUERY_MAX_CHARS)
    return invalidField('query', `must be one SQL query of 1 to ${QUERY_MAX_CHARS} characters`);
  const maxRows = body['maxRows'] ?? 1000;
  if (typeof maxRows !== 'number' || !Number.isInteger(maxRows) || maxRows < 1 || maxRows > SQL_MAX_ROWS)
    return invalidField('maxRows', `must be a whole number from 1 to ${SQL_MAX_ROWS}`);
  if (!w.select) return notConfigured('it cannot run SQL');
  const started = Date.now();
  let rows: Row[];
  try {
    rows = await w.select(query, maxRows);
  } catch (err) {
    // A query that is not a single SELECT, reads outside the environment's datasets, does not
    // parse, names a table or column that does not exist or would bill over the cap is the
    // writer's to fix (adapters/user-sql.ts queryProblem); only an outage is the warehouse's.
    const why = queryProblem(err);
    // The message leads with what is wrong: ours, or BigQuery's own words for a query it refused.
    if (why !== undefined) return invalidField('query', why, `The query was not run: ${why}`);
    const detail = (err as { message?: string })?.message ?? String(err);
    return fail('UNAVAILABLE', { retryAfter: 5, detail: `the warehouse: ${detail}` });
  }
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return ok({ columns, rows, truncated: rows.length >= maxRows, ms: Date.now() - started });
}
