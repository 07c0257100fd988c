/**
 * What a rule would have done over stored events (docs/rules.md "Testing a rule"): the same
 * evaluator `store` runs and the once-per claims the actions function makes, over events in
 * event-time order; `eventbus rule test --since` and the studio's rules page print it. Sends
 * nothing. Pure.
 */
import type { StoredEvent } from '../event.ts';
import { type Firing, matchEventRules, onceMarkerPath, type RuleVersion } from './rules.ts';

/** The once-per markers a run over events in order would claim, as the actions function would. */
export function onceClaims() {
  const claimed = new Set<string>();
  return (firing: Firing): boolean => {
    const marker = onceMarkerPath(firing);
    if (claimed.has(marker)) return false;
    claimed.add(marker);
    return true;
  };
}

export interface SinceSummary {
  readonly events: number;
  readonly fired: number;
  readonly skippedOnce: number;
  /** Firings per once-per key (or per event when the rule has none), most first. */
  readonly byKey: readonly (readonly [string, number])[];
}

/** What the rule would have done over stored events, in event-time order. Pure. */
export function sinceSummary(rule: RuleVersion, events: readonly StoredEvent[]): SinceSummary {
  const claim = onceClaims();
  let fired = 0;
  let skippedOnce = 0;
  const byKey = new Map<string, number>();
  for (const event of events) {
    const [firing] = matchEventRules([rule], event);
    if (!firing) continue;
    if (rule.spec.once_per && !claim(firing)) {
      skippedOnce++;
      continue;
    }
    fired++;
    const key = firing.key ?? event.event_id;
    byKey.set(key, (byKey.get(key) ?? 0) + 1);
  }
  return { events: events.length, fired, skippedOnce, byKey: [...byKey].sort((a, b) => b[1] - a[1]) };
}
