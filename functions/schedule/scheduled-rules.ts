/**
 * The `Rule` job of the scheduler (rules, experimental; docs/rules.md): every rule whose trigger
 * is a schedule runs its query at each slot; each result row becomes a firing on the `actions`
 * topic, acted on exactly like an event rule's (once-per markers, retries, dead letters).
 */

import { currentSpecs, type Snapshot } from '../../adapters/registry.ts';
import { firingMessage } from '../../adapters/rule-firings.ts';
import { type RuleVersion, rowFirings } from '../../core/rules/rules.ts';
import type { RuleSpec } from '../../schemas/rule.ts';
import type { Job } from './runner.ts';

export const RULE_KIND = 'Rule';
const DEFAULT_MAX_ROWS = 1000;

export interface ScheduledRulesDeps {
  readonly rules: () => Promise<Snapshot>;
  /** Runs a single SELECT under the bytes cap and returns plain rows (adapters/user-sql.ts). */
  readonly query: (sql: string, maxRows: number) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  readonly publish: (
    messages: readonly { data: string; attributes: Record<string, string> }[],
  ) => Promise<unknown>;
  readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
}

function scheduledRules(s: Snapshot): RuleVersion[] {
  return currentSpecs<RuleSpec>(s).filter(
    (r) => r.spec.enabled !== false && 'schedule' in (r.spec.trigger ?? {}),
  );
}

export function scheduledRulesJob(deps: ScheduledRulesDeps): Job {
  return {
    kind: RULE_KIND,
    async scheduled() {
      return scheduledRules(await deps.rules()).map((r) => ({
        kind: RULE_KIND,
        name: r.name,
        schedule: 'schedule' in r.spec.trigger ? r.spec.trigger.schedule : { manual: true as const },
      }));
    },
    async chunk(ctx) {
      const rule = scheduledRules(await deps.rules()).find((r) => r.name === ctx.run.name);
      if (!rule || !('schedule' in rule.spec.trigger))
        return { done: true, summary: { skipped: 'the rule is gone, off, or no longer scheduled' } };
      const maxRows = rule.spec.trigger.max_rows ?? DEFAULT_MAX_ROWS;
      // One more row than allowed tells a truncated run from a full one.
      const rows = await deps.query(rule.spec.trigger.sql, maxRows + 1);
      const firings = rowFirings(rule, rows.slice(0, maxRows), ctx.run.slot);
      if (rows.length > maxRows)
        deps.log?.({
          severity: 'WARNING',
          message: `rule ${rule.name} returned more than max_rows (${maxRows}); the first ${maxRows} rows fired`,
        });
      await ctx.fence();
      if (firings.length > 0) await deps.publish(firings.map(firingMessage));
      return {
        done: true,
        summary: { version: rule.version, rows: Math.min(rows.length, maxRows), firings: firings.length },
      };
    },
  };
}
