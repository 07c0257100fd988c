/**
 * Rules (automated actions, experimental; docs/rules.md), the pure part: checking a Rule's spec,
 * matching stored events against event rules, the once-per slot and the firing's deterministic
 * ids, and building what each action sends. `store` only matches and publishes firings on the
 * `actions` topic; the schedule function acts (functions/schedule/actions.ts).
 */
import { hash } from 'node:crypto';
import { eventNameProblem } from '../../schemas/catalogue.ts';
import type { FieldSource } from '../../schemas/mapping.ts';
import { type Criterion, type EventTrigger, RuleSpec } from '../../schemas/rule.ts';
import type { Condition, Connection } from '../../schemas/settings.ts';
import { conditionProblems } from '../conditions.ts';
import { evaluateCondition, readPath } from '../decision/decision.ts';
import type { StoredEvent } from '../event.ts';
import { applyMapping } from '../linkage/engine.ts';
import { connectionProblem, specChecker } from '../references/connections.ts';
import { durationMs, scheduleProblem } from '../scheduler/cadence.ts';
import { compileValidator, type FieldViolation } from '../validation.ts';
import { publishTargetProblem } from './publish-topic.ts';

/** Events published by rules stop after this many rule hops. */
export const MAX_HOPS = 3;
/** Message attributes of events published by rules. */
export const ORIGIN_ATTRIBUTE = 'origin';
export const HOPS_ATTRIBUTE = 'hops';

export interface RuleVersion {
  readonly name: string;
  readonly version: string;
  readonly spec: RuleSpec;
}

/** The violations of a Rule's spec (`prefix` names it), given the settings' connections. */
export const ruleViolations = specChecker<RuleSpec>(RuleSpec, (s, prefix, connections, out) => {
  selfViolations(s, prefix, out);
  actionViolations(s, prefix, connections, out);
});

/** What is wrong with a rule on its own (no settings needed): its trigger, period and topics. */
function selfViolations(s: RuleSpec, prefix: string, out: FieldViolation[]): void {
  if ('schedule' in s.trigger) {
    const why = scheduleProblem(s.trigger.schedule);
    if (why) out.push({ field: `${prefix}.trigger.schedule`, description: why });
  } else eventTriggerViolations(s.trigger.event, `${prefix}.trigger.event`, out);
  const period = s.once_per?.period;
  const why = period === undefined ? undefined : oncePeriodProblem(period);
  if (why) out.push({ field: `${prefix}.once_per.period`, description: why });
  s.actions.forEach((a, i) => {
    const topic = 'publish' in a ? a.publish.topic : undefined;
    const bad = topic === undefined ? undefined : publishTargetProblem(topic);
    if (bad) out.push({ field: `${prefix}.actions[${i}].publish.topic`, description: bad });
  });
}

/** The shortest once-per period: the scheduler's minute (a shorter slot would not mean "once"). */
export const MIN_ONCE_PERIOD_MS = 60_000;
/** The longest once-per period other than `forever`: a leap year. */
export const MAX_ONCE_PERIOD_MS = 366 * 86_400_000;

/** Why a once-per period is refused (`0m`, `9999999d`…), or undefined for a usable one. */
export function oncePeriodProblem(period: string): string | undefined {
  if (period === 'forever') return undefined;
  const ms = durationMs(period);
  if (ms === undefined || !/^[0-9]+[mhd]$/.test(period))
    return 'must be a whole number of minutes, hours or days (30m, 12h, 1d) or forever';
  if (ms < MIN_ONCE_PERIOD_MS) return 'must be at least 1m';
  if (ms > MAX_ONCE_PERIOD_MS) return 'must be at most 366d (use forever for longer)';
  return undefined;
}

const ruleShape = compileValidator<RuleSpec>(RuleSpec);

/**
 * Why a stored rule cannot be matched, or undefined: the checks of an apply that need no settings.
 * A registry object written before a check existed (or by hand) must never make `store` throw
 * after its rows are written: such a rule is skipped, with this reason logged.
 */
export function storedRuleProblem(spec: unknown): string | undefined {
  const out = ruleShape.violations(spec, 'spec');
  if (out.length === 0) selfViolations(spec as RuleSpec, 'spec', out);
  const first = out[0];
  return first ? `${first.field}: ${first.description}` : undefined;
}

/** A rule's event trigger, or undefined for a scheduled rule. */
export const eventTrigger = (spec: RuleSpec): EventTrigger | undefined =>
  'event' in spec.trigger ? spec.trigger.event : undefined;

function eventTriggerViolations(t: EventTrigger, at: string, out: FieldViolation[]): void {
  const walk = (c: Criterion, field: string): void => {
    if ('all' in c) for (const [i, x] of c.all.entries()) walk(x, `${field}.all[${i}]`);
    else if ('any' in c) for (const [i, x] of c.any.entries()) walk(x, `${field}.any[${i}]`);
    else out.push(...conditionProblems(c, `${field}.value`));
  };
  for (const [i, c] of (t.all ?? []).entries()) walk(c, `${at}.all[${i}]`);
  for (const [i, c] of (t.any ?? []).entries()) walk(c, `${at}.any[${i}]`);
  if (!t.names && !t.all && !t.any)
    out.push({
      field: at,
      description: 'give names, all or any: a rule on every event would fire for each one',
    });
}

function actionViolations(
  s: RuleSpec,
  prefix: string,
  connections: readonly Connection[] | undefined,
  out: FieldViolation[],
): void {
  s.actions.forEach((a, i) => {
    const field = `${prefix}.actions[${i}]`;
    const want = 'webhook' in a ? 'webhook' : 'chat' in a ? 'chat' : undefined;
    const id = 'webhook' in a ? a.webhook.connection : 'chat' in a ? a.chat.connection : undefined;
    const why = want && id !== undefined ? connectionProblem(connections, id, want) : undefined;
    if (why) out.push({ field: `${field}.${want}.connection`, description: why });
    if ('publish' in a) {
      const why = eventNameProblem(a.publish.event_name);
      if (why) out.push({ field: `${field}.publish.event_name`, description: why });
    }
  });
}

/** Whether a criterion holds for an event. */
export function holds(c: Criterion, event: StoredEvent): boolean {
  if ('all' in c) return c.all.every((x) => holds(x, event));
  if ('any' in c) return c.any.some((x) => holds(x, event));
  return evaluateCondition(c as Condition, event);
}

/** Whether an event rule's trigger holds for an event (names, then all, then any). */
export function triggers(spec: RuleSpec, event: StoredEvent): boolean {
  const t = eventTrigger(spec);
  if (!t) return false;
  if (t.names && !t.names.includes(event.event_name)) return false;
  if (t.all && !t.all.every((c) => holds(c, event))) return false;
  if (t.any && !t.any.some((c) => holds(c, event))) return false;
  return true;
}

/** One rule firing for one stored event: what the `actions` topic carries. */
export interface Firing {
  readonly rule: string;
  readonly version: string;
  /** sha256 of the rule and the triggering event's id: a redelivery is the same firing, another event is not. */
  readonly firing_id: string;
  /** The once-per key's value, or null. */
  readonly key: string | null;
  /** The once-per period's slot (`forever` or its start), or null. */
  readonly slot: string | null;
  readonly hops: number;
  readonly event: StoredEvent;
}

const digest = (text: string): string => hash('sha256', text);

/**
 * The start of the once-per period holding `eventTime` (periods aligned to the epoch), or
 * `forever`; undefined when either cannot make a slot (a period of 0, a time that is not one),
 * so a bad rule that slipped past its checks fires nothing rather than throwing.
 */
export function onceSlot(period: string, eventTime: string): string | undefined {
  if (period === 'forever') return 'forever';
  const ms = durationMs(period) ?? 86_400_000;
  const start = Math.floor(Date.parse(eventTime) / ms) * ms;
  if (!(ms > 0) || !Number.isFinite(start) || Math.abs(start) > 8.64e15) return undefined;
  // Formatting a date costs more than matching a rule: the few slots in use are kept formatted.
  let text = slotTexts.get(start);
  if (text === undefined) {
    if (slotTexts.size > 4096) slotTexts.clear();
    text = new Date(start).toISOString();
    slotTexts.set(start, text);
  }
  return text;
}
const slotTexts = new Map<number, string>();

/**
 * Rules by the event names they look at, so an event is checked only against rules that can
 * fire for it (rules without `names` are checked for every event). Build once per registry copy.
 */
export interface RuleIndex {
  readonly byName: ReadonlyMap<string, readonly RuleVersion[]>;
  readonly anyName: readonly RuleVersion[];
}

export function indexRules(rules: readonly RuleVersion[]): RuleIndex {
  const byName = new Map<string, RuleVersion[]>();
  const anyName: RuleVersion[] = [];
  for (const r of rules) {
    const t = eventTrigger(r.spec);
    if (!t) continue;
    const names = t.names;
    if (!names) anyName.push(r);
    else for (const n of new Set(names)) byName.set(n, [...(byName.get(n) ?? []), r]);
  }
  return { byName, anyName };
}

/** The rules an event could fire (those without `names` first). */
export function candidates(index: RuleIndex, eventName: string): readonly RuleVersion[] {
  const named = index.byName.get(eventName);
  if (!named) return index.anyName;
  return index.anyName.length === 0 ? named : [...index.anyName, ...named];
}

/**
 * The rules an event fires, in rule order. An event published by a rule never fires that rule
 * again, and nothing fires past MAX_HOPS. A rule with `once_per` whose key the event lacks
 * does not fire (there is nobody to fire once for).
 */
export function matchEventRules(
  rules: readonly RuleVersion[],
  event: StoredEvent,
  attributes: Readonly<Record<string, string>> = {},
): Firing[] {
  const origin = attributes[ORIGIN_ATTRIBUTE];
  const hops = Number(attributes[HOPS_ATTRIBUTE] ?? 0) || 0;
  if (hops >= MAX_HOPS) return [];
  const out: Firing[] = [];
  for (const r of rules) {
    if (r.spec.enabled === false || origin === `Rule/${r.name}`) continue;
    if (!triggers(r.spec, event)) continue;
    const firing = firingOf(r, event, hops);
    if (firing) out.push(firing);
  }
  return out;
}

/** The firing of a rule for a triggering event; undefined when `once_per` names a key it lacks. */
function firingOf(r: RuleVersion, event: StoredEvent, hops: number): Firing | undefined {
  const once = r.spec.once_per;
  let key: string | null = null;
  let slot: string | null = null;
  if (once) {
    const v = readPath(event, once.key);
    if (v === undefined || v === null || v === '') return undefined;
    key = typeof v === 'string' ? v : JSON.stringify(v);
    slot = onceSlot(once.period, event.event_time) ?? null;
    if (slot === null) return undefined;
  }
  const firing_id = digest(`Rule/${r.name}\n${event.event_id}`);
  return { rule: r.name, version: r.version, firing_id, key, slot, hops, event };
}

/**
 * The firings of a scheduled rule's run: one per result row, the row as the triggering
 * "event" (`event_name` `rule_row`, its columns as event data, `user_id` and `anonymous_id` from
 * columns of those names), its time the run's slot. The row's id is deterministic (rule, slot,
 * row), so a retried run is the same firings; with `once_per` the key is read from the row.
 */
export function rowFirings(
  rule: RuleVersion,
  rows: readonly Readonly<Record<string, unknown>>[],
  slot: string,
): Firing[] {
  const out: Firing[] = [];
  for (const row of rows) {
    const canonical = JSON.stringify(
      Object.keys(row)
        .sort()
        .map((k) => [k, row[k]]),
    );
    const user = row['user_id'];
    const anonymous = row['anonymous_id'];
    const event: StoredEvent = {
      event_name: 'rule_row',
      event_id: digest(`Rule/${rule.name}\n${slot}\n${canonical}`),
      event_time: slot,
      ...(typeof user === 'string' ? { user_id: user } : {}),
      ...(typeof anonymous === 'string' ? { anonymous_id: anonymous } : {}),
      event_data: row,
    };
    const firing = firingOf(rule, event, 0);
    if (firing) out.push(firing);
  }
  return out;
}

/** The marker object that makes a once-per firing happen once (registry bucket). */
export const onceMarkerPath = (f: Firing): string =>
  `once/${f.rule}/${digest(f.key ?? '')}/${f.slot === 'forever' ? 'forever' : (f.slot ?? '').replace(/[:.]/g, '')}.json`;

/**
 * A chat action's text: `{{path}}` placeholders filled from the event (missing values are empty),
 * each value escaped for chat markup so that what a producer sent reaches the channel as written
 * (docs/security.md#chat-messages). The template's own markup (a link the rule's author wrote) is
 * kept.
 */
export function renderTemplate(text: string, event: StoredEvent): string {
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g, (_, path: string) => {
    const v = readPath(event, path);
    if (v === undefined || v === null) return '';
    return chatLiteral(typeof v === 'string' ? v : JSON.stringify(v));
  });
}

/**
 * Text as a literal in Slack's and Google Chat's message markup: `&`, `<` and `>` as the HTML
 * entities Slack documents for them, so `<!channel>`, `<https://evil|Reset your password>` or
 * `<users/all>` is neither a mention nor a link. A chat connection does not say which service it
 * is, and Google Chat's links and mentions also start with `<`: one escaping serves both.
 */
export function chatLiteral(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Fields built with the mapping language from the triggering event. */
export function mapFields(fields: Readonly<Record<string, FieldSource>> | undefined, event: StoredEvent) {
  return fields ? applyMapping({ event: '', fields }, event).payload : {};
}

/**
 * The event a `publish` action sends back into the bus: its id is deterministic — the rule, the
 * once-per key and slot when the rule has one (else the firing) and the action's index — so a
 * retried firing folds in `events_dedup`; its time is the triggering event's.
 */
export function publishedEvent(
  f: Firing,
  actionIndex: number,
  action: { readonly event_name: string; readonly fields?: Readonly<Record<string, FieldSource>> },
): { readonly body: Record<string, unknown>; readonly attributes: Record<string, string> } {
  const e = f.event;
  const body: Record<string, unknown> = {
    event_name: action.event_name,
    event_id: digest(
      f.key !== null
        ? `Rule/${f.rule}\n${f.key}\n${f.slot}\n${actionIndex}`
        : `Rule/${f.rule}\n${f.firing_id}\n${actionIndex}`,
    ),
    event_time: e.event_time,
    ...(e.user_id ? { user_id: e.user_id } : {}),
    ...(e.anonymous_id ? { anonymous_id: e.anonymous_id } : {}),
    ...(e.user ? { user: e.user } : {}),
    ...(e.consent ? { consent: e.consent } : {}),
    ...mapFields(action.fields, e),
  };
  return {
    body,
    attributes: { [ORIGIN_ATTRIBUTE]: `Rule/${f.rule}`, [HOPS_ATTRIBUTE]: String(f.hops + 1) },
  };
}
