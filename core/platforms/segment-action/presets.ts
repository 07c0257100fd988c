/**
 * What an action of a `segment_action` destination runs with: its subscription (the settings'
 * `when`, else the action's `defaultSubscription`) and its mapping (the action's field defaults,
 * its presets, with the settings' `mapping` over them). Shared by the runtime (run.ts) and the
 * settings check (check.ts), so what is checked is what runs. Pure.
 */
import type { SegmentActionSetting } from '../../../schemas/settings.ts';
import { SPEC_EVENT_NAMES } from './segment-event.ts';

/** What presets.ts reads of an action's field (actions-core's InputField, the catalogue's CatalogField). */
export interface PresetField {
  readonly default?: unknown;
}

/** Segment call types `when` may name by themselves. */
const CALLS: Readonly<Record<string, string>> = Object.freeze({
  track: 'track',
  page: 'page',
  page_view: 'page',
  identify: 'identify',
  user_identified: 'identify',
  group: 'group',
  user_grouped: 'group',
  alias: 'alias',
  user_aliased: 'alias',
});

/**
 * The action's subscription in Segment's FQL: `when` as given when it is a string; a list of
 * names becomes `event = "…" or type = "…"` (our catalogue names match their spec names:
 * `purchase` is `Order Completed`); without `when`, the action's default, or undefined when it
 * has none (such an action must be given `when`).
 */
export function subscriptionOf(
  setting: Pick<SegmentActionSetting, 'when'>,
  defaultSubscription: string | undefined,
): string | undefined {
  const when = setting.when;
  if (when === undefined) return defaultSubscription;
  if (typeof when === 'string') return when;
  return when
    .map((name) => {
      const call = CALLS[name];
      if (call !== undefined) return `type = ${quoted(call)}`;
      return `event = ${quoted(SPEC_EVENT_NAMES[name] ?? name)}`;
    })
    .join(' or ');
}

/** The mapping an action runs: each field's default (its preset), then the settings' mapping over them. */
export function effectiveMapping(
  fields: Readonly<Record<string, PresetField>>,
  mapping: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields))
    if (field.default !== undefined) out[key] = field.default;
  return { ...out, ...mapping };
}

/** An FQL string literal. */
function quoted(s: string): string {
  return `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}
