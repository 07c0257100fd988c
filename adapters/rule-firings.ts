/**
 * `store`'s part in rules (experimental, docs/rules.md): after the rows are written, the stored
 * events are matched against the event rules of the registry and each firing is published on the
 * `actions` topic. Nothing is sent from here: the schedule function acts. The push is answered
 * only once the firings are published (a failure answers non-2xx and the push is redelivered;
 * storage is idempotent, and a firing's id is deterministic, so a repeat folds). A stored rule
 * that fails today's checks (written before them, or by hand) is skipped with its reason logged
 * once per registry copy: after the rows are written nothing here may throw for good.
 */
import type { Firing } from '../core/rules/rules.ts';
import {
  candidates,
  eventTrigger,
  indexRules,
  matchEventRules,
  type RuleIndex,
  storedRuleProblem,
} from '../core/rules/rules.ts';
import type { AfterStored } from '../core/store/store.ts';
import type { RuleSpec } from '../schemas/rule.ts';
import { currentSpecs, type Snapshot } from './registry.ts';

export interface RuleFiringDeps {
  /** The Rule kind's current snapshot (RegistryReader.current('Rule')). */
  readonly rules: () => Promise<Snapshot>;
  readonly publish: (
    messages: readonly { data: string; attributes: Record<string, string> }[],
  ) => Promise<unknown>;
  /** Where a skipped rule is reported (one JSON line each); stdout by default. */
  readonly log?: (line: string) => void;
}

/** The attributes of a firing message on `actions`. */
export const firingMessage = (f: Firing) => ({
  data: JSON.stringify(f),
  attributes: { type: 'action', rule: f.rule, firing_id: f.firing_id },
});

export function createRuleFirings(deps: RuleFiringDeps): AfterStored {
  let cached: { generation: number; rules: RuleIndex; count: number } | undefined;
  const log = deps.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const usable = (r: { name: string; version: string; spec: RuleSpec }): boolean => {
    const why = storedRuleProblem(r.spec);
    if (why)
      log(
        JSON.stringify({
          severity: 'WARNING',
          message: `Rule/${r.name} ${r.version} skipped: ${why} (apply a corrected version)`,
        }),
      );
    return why === undefined;
  };
  const rulesOf = (s: Snapshot): { rules: RuleIndex; count: number } => {
    if (cached && cached.generation === s.generation) return cached;
    const rules = currentSpecs<RuleSpec>(s).filter(
      (r) => usable(r) && r.spec.enabled !== false && eventTrigger(r.spec) !== undefined,
    );
    cached = { generation: s.generation, rules: indexRules(rules), count: rules.length };
    return cached;
  };
  return async (events, messages) => {
    const { rules, count } = rulesOf(await deps.rules());
    if (count === 0) return;
    const firings = events.flatMap((e, i) =>
      matchEventRules(candidates(rules, e.event_name), e, messages[i]?.attributes ?? {}),
    );
    if (firings.length > 0) await deps.publish(firings.map(firingMessage));
  };
}
