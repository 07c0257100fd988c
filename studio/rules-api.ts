/**
 * The studio's rules page on the admin API (docs/rules.md, experimental), read-only:
 * - `rule-test` `{document, hours}`: a Rule document (saved or not) over the stored events of the
 *   last `hours` (events_dedup, the rule's event names, at most 100,000 in event-time order)
 *   through the evaluator `store` runs and the once-per claims (core/rules/rule-test.ts): how often it
 *   would have fired, how many firings once-per would have skipped, the keys that fired most.
 *   Sends nothing. What `eventbus rule test --since` prints.
 * - `rule-firings` `{rule, limit?}`: the rule's rows of `action_runs`, newest first.
 */
import { plainValue } from '../adapters/user-sql.ts';
import { REPLAY_COLUMNS, storedEventFromRow } from '../core/delivery/replay.ts';
import { applyViolations } from '../core/registry/resources.ts';
import { sinceSummary } from '../core/rules/rule-test.ts';
import { eventTrigger } from '../core/rules/rules.ts';
import { fail, ok, type Step } from '../core/step.ts';
import { TABLES } from '../core/warehouse/warehouse.ts';
import type { RuleSpec } from '../schemas/rule.ts';
import type { CreatorApiOptions } from './creator-api.ts';
import { checkedName, invalidField } from './request.ts';

type Warehouse = NonNullable<CreatorApiOptions['warehouse']>;

/** The most stored events one test reads. */
export const RULE_TEST_MAX_EVENTS = 100_000;
const MAX_HOURS = 92 * 24;

export async function ruleTest(
  o: CreatorApiOptions,
  w: Warehouse,
  body: Record<string, unknown>,
): Promise<Step<unknown>> {
  const doc = body['document'];
  const problems = applyViolations([doc], { connections: o.settings?.connections ?? [] });
  if (problems.length > 0)
    return fail('INVALID_RESOURCE', { detail: `${problems.length} problem(s).` }, problems);
  const d = doc as { kind: string; name: string; spec: RuleSpec };
  if (d.kind !== 'Rule') return invalidField('document.kind', 'must be Rule');
  const hours = body['hours'];
  if (typeof hours !== 'number' || !Number.isInteger(hours) || hours < 1 || hours > MAX_HOURS)
    return invalidField('hours', `must be a whole number of hours from 1 to ${MAX_HOURS}`);
  const trigger = eventTrigger(d.spec);
  if (!trigger)
    return invalidField(
      'document.spec',
      'is a scheduled rule: its own query decides when it fires, so only event rules are tested on stored events',
    );
  const to = new Date();
  const from = new Date(to.getTime() - hours * 3_600_000);
  const names = trigger.names;
  const rows = await w.query(
    `SELECT ${REPLAY_COLUMNS.join(', ')} FROM ${w.table('events_dedup')} WHERE event_time >= TIMESTAMP(@from) AND event_time < TIMESTAMP(@to)${names ? ' AND event_name IN UNNEST(@names)' : ''} ORDER BY event_time, event_id LIMIT ${RULE_TEST_MAX_EVENTS + 1}`,
    { from: from.toISOString(), to: to.toISOString(), ...(names ? { names } : {}) },
  );
  const events = rows.slice(0, RULE_TEST_MAX_EVENTS).map(storedEventFromRow);
  const s = sinceSummary({ name: d.name, version: 'draft', spec: d.spec }, events);
  return ok({
    from: from.toISOString(),
    to: to.toISOString(),
    events: s.events,
    fired: s.fired,
    skippedOnce: s.skippedOnce,
    byKey: s.byKey.slice(0, 20).map(([key, firings]) => ({ key, firings })),
    truncated: rows.length > RULE_TEST_MAX_EVENTS,
  });
}

export async function ruleFirings(w: Warehouse, body: Record<string, unknown>): Promise<Step<unknown>> {
  const rule = checkedName('Rule', body['rule'], 'rule');
  if (!rule.ok) return rule;
  const limit = body['limit'] ?? 50;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000)
    return invalidField('limit', 'must be a whole number from 1 to 1000');
  try {
    const rows = await w.query(
      `SELECT recorded_at, version, event_id, once_key, action, status, attempt, reason FROM ${w.table(TABLES.actionRuns)} WHERE rule = @rule ORDER BY recorded_at DESC LIMIT ${limit}`,
      { rule: rule.value },
    );
    return ok({ firings: rows.map(plainValue) });
  } catch (err) {
    // No action_runs table: the settings leave rules off (experimental.rules), so nothing fires.
    if ((err as { code?: number }).code === 404) return ok({ firings: [], rulesOff: true });
    throw err;
  }
}
