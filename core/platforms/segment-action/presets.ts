/**
 * What the actions of a `segment_action` destination run with (docs/catalog-destinations.md, "How
 * it works"), as Segment's own app sets a destination up: each of the destination's presets (its
 * `presets` of type automatic: an action, a subscription and a mapping) is one run; a destination
 * whose settings name no `actions` runs all of them. An action the settings name runs under its
 * presets when it has any and the settings give no `when` (Mixpanel's trackEvent takes track calls
 * but `Order Completed`, page and screen calls, each under its own mapping), else under its
 * `defaultSubscription`; `when` replaces both, over the action's field defaults. Shared by the
 * runtime (run.ts), the settings check (check.ts) and the decision layer (subscription.ts), so
 * what is checked and judged is what runs. Pure.
 */
import type { SegmentActionSetting } from '../../../schemas/settings.ts';
import { segmentEventName } from './segment-event.ts';

/**
 * The mapping key actions-core reads an action's sync mode from (catalog.ts `syncMode`), as
 * Segment's app writes it into a subscription's mapping.
 */
export const SYNC_MODE_KEY = '__segment_internal_sync_mode';

/** What presets.ts reads of an action's field (actions-core's InputField, the catalogue's CatalogField). */
export interface PresetField {
  readonly default?: unknown;
}

/**
 * One of Segment's presets, as the catalogue keeps it: its action, its subscription, and its mapping
 * as it differs from the action's field defaults (`mapping` over them, `omit` removed).
 */
export interface ActionPreset {
  readonly name?: string;
  readonly action: string;
  readonly subscribe: string;
  readonly mapping?: Readonly<Record<string, unknown>>;
  readonly omit?: readonly string[];
}

/** One run of an action for an event: its subscription, the preset it runs under, the settings' own. */
export interface ActionStep {
  readonly action: string;
  /** Undefined when the action has neither `when`, a preset, nor a default (it runs for nothing). */
  readonly subscribe: string | undefined;
  readonly preset: ActionPreset | undefined;
  /** The settings' entry (undefined for a preset run because the settings name no actions). */
  readonly setting: SegmentActionSetting | undefined;
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
 * `purchase` is `Order Completed`); without `when`, `fallback` (a preset's or the action's default),
 * or undefined when it has none (such an action must be given `when`).
 */
export function subscriptionOf(
  setting: Pick<SegmentActionSetting, 'when'>,
  fallback: string | undefined,
): string | undefined {
  const when = setting.when;
  if (when === undefined) return fallback;
  if (typeof when === 'string') return when;
  return when
    .map((name) => {
      const call = CALLS[name];
      if (call !== undefined) return `type = ${quoted(call)}`;
      return `event = ${quoted(segmentEventName(name))}`;
    })
    .join(' or ');
}

/**
 * The runs of a destination's actions: every preset when the settings name no actions, else each
 * named action under its `when`, its presets, or its default, in the settings' order.
 * `defaultOf` gives an action's default subscription; `presets` are the destination's presets
 * whose action it has.
 */
export function actionSteps(
  actions: readonly SegmentActionSetting[] | undefined,
  presets: readonly ActionPreset[],
  defaultOf: (action: string) => string | undefined,
): ActionStep[] {
  if (actions === undefined)
    return presets.map((p) => ({ action: p.action, subscribe: p.subscribe, preset: p, setting: undefined }));
  return actions.flatMap((setting): ActionStep[] => {
    const own = setting.when === undefined ? presets.filter((p) => p.action === setting.action) : [];
    if (own.length === 0)
      return [
        {
          action: setting.action,
          subscribe: subscriptionOf(setting, defaultOf(setting.action)),
          preset: undefined,
          setting,
        },
      ];
    return own.map((p) => ({ action: setting.action, subscribe: p.subscribe, preset: p, setting }));
  });
}

/**
 * A preset as Segment's definition holds it (`partnerAction`, `subscribe`, the whole `mapping`),
 * kept as the catalogue keeps it: only presets of type automatic (those with a subscription; the
 * others are for Segment's warehouse and journeys), their mapping as it differs from the action's
 * field defaults. Undefined for any other preset, or one whose action the destination lacks.
 */
export function presetOf(
  raw: Readonly<Record<string, unknown>>,
  actions: Readonly<Record<string, { readonly fields: Readonly<Record<string, PresetField>> }>>,
): ActionPreset | undefined {
  const action = raw['partnerAction'];
  const subscribe = raw['subscribe'];
  if (typeof action !== 'string' || typeof subscribe !== 'string' || subscribe.trim() === '')
    return undefined;
  if (raw['type'] !== undefined && raw['type'] !== 'automatic') return undefined;
  const fields = actions[action]?.fields;
  if (!fields) return undefined;
  const full = (raw['mapping'] ?? {}) as Record<string, unknown>;
  const mapping: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(full))
    if (JSON.stringify(value) !== JSON.stringify(fields[key]?.default)) mapping[key] = value;
  const omit = Object.keys(fields).filter((k) => fields[k]?.default !== undefined && !Object.hasOwn(full, k));
  return {
    name: typeof raw['name'] === 'string' ? raw['name'] : action,
    action,
    subscribe: subscribe.trim(),
    ...(Object.keys(mapping).length > 0 ? { mapping } : {}),
    ...(omit.length > 0 ? { omit } : {}),
  };
}

/**
 * The mapping a run resolves: each field's default, the preset's mapping over them (what it
 * omits removed), then the settings' mapping over that; a field the settings map to `null` is
 * left out, its default cleared (as a field emptied in Segment's app). Its keys follow the
 * action's fields in the order the action declares them (keys that name no field after them),
 * as actions-core's own test integration lays a mapping over every field: the payload, and a body
 * an action builds by walking it, keep the action's order whatever order the settings use.
 */
export function effectiveMapping(
  fields: Readonly<Record<string, PresetField>>,
  mapping: Readonly<Record<string, unknown>> | undefined,
  preset?: Pick<ActionPreset, 'mapping' | 'omit'>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields))
    if (field.default !== undefined) merged[key] = field.default;
  Object.assign(merged, preset?.mapping);
  for (const key of preset?.omit ?? []) delete merged[key];
  for (const [key, value] of Object.entries(mapping ?? {}))
    if (value === null) delete merged[key];
    else merged[key] = value;
  const out: Record<string, unknown> = {};
  for (const key of [...Object.keys(fields), ...Object.keys(merged)])
    if (Object.hasOwn(merged, key) && !Object.hasOwn(out, key)) out[key] = merged[key];
  return out;
}

/** An FQL string literal. */
function quoted(s: string): string {
  return `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}
