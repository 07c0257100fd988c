/**
 * The rules page's form (docs/rules.md, "In the studio"): the common rule — events by name,
 * conditions that must all (or any) hold, once per a key and period, one action — as the same
 * `kind: Rule` document the YAML beside it holds, and back: a document of that shape fills the
 * form; anything the form cannot show (nested groups, several actions, a schedule) is left to
 * the YAML. Pure.
 */
import type { Condition } from '../../schemas/settings.ts';

export const FORM_OPS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
  'exists',
  'not_exists',
  'matches',
] as const;
export type FormOp = (typeof FORM_OPS)[number];

export interface FormCondition {
  readonly field: string;
  readonly op: FormOp;
  /** As typed: a list is comma-separated; a number or true/false is read as one. */
  readonly value: string;
}

export type FormAction =
  | { readonly kind: 'chat'; readonly connection: string; readonly text: string }
  | { readonly kind: 'webhook'; readonly connection: string }
  | { readonly kind: 'publish'; readonly event_name: string };

export interface RuleForm {
  readonly name: string;
  readonly description: string;
  /** Event names, comma-separated as typed. */
  readonly events: string;
  readonly match: 'all' | 'any';
  readonly conditions: readonly FormCondition[];
  /** Empty key: no once_per. */
  readonly onceKey: string;
  readonly oncePeriod: string;
  readonly action: FormAction;
}

/** A typed scalar as YAML would read it bare: a number, true/false, else the text. */
function scalar(text: string): string | number | boolean {
  const t = text.trim();
  if (t === 'true' || t === 'false') return t === 'true';
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function condition(c: FormCondition): Condition {
  const field = c.field.trim();
  if (c.op === 'exists' || c.op === 'not_exists') return { field, op: c.op };
  if (c.op === 'in' || c.op === 'not_in') return { field, op: c.op, value: list(c.value).map(scalar) };
  if (c.op === 'matches') return { field, op: c.op, value: c.value };
  return { field, op: c.op, value: scalar(c.value) };
}

/** The form as the Rule document the rules resource takes (checked when it is applied). */
export function ruleDocument(f: RuleForm): Record<string, unknown> {
  const names = list(f.events);
  const conditions = f.conditions.filter((c) => c.field.trim() !== '').map(condition);
  const a = f.action;
  const action =
    a.kind === 'chat'
      ? { chat: { connection: a.connection.trim(), text: a.text } }
      : a.kind === 'webhook'
        ? { webhook: { connection: a.connection.trim() } }
        : { publish: { event_name: a.event_name.trim() } };
  return {
    kind: 'Rule',
    name: f.name.trim(),
    ...(f.description.trim() ? { description: f.description.trim() } : {}),
    spec: {
      trigger: {
        event: {
          ...(names.length > 0 ? { names } : {}),
          ...(conditions.length > 0 ? { [f.match]: conditions } : {}),
        },
      },
      ...(f.onceKey.trim() ? { once_per: { key: f.onceKey.trim(), period: f.oncePeriod.trim() } } : {}),
      actions: [action],
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const asText = (v: unknown): string =>
  Array.isArray(v) ? v.map(String).join(', ') : v === undefined ? '' : String(v);

/** A document as the form, or why the form cannot show it (the YAML then stays the editor). */
export function formOf(doc: unknown): RuleForm | { problem: string } {
  if (!isRecord(doc) || !isRecord(doc['spec'])) return { problem: 'it is not a Rule document' };
  const spec = doc['spec'];
  const trigger = spec['trigger'];
  const event = isRecord(trigger) ? trigger['event'] : undefined;
  if (!isRecord(event)) return { problem: 'its trigger is not on events (a schedule is written in YAML)' };
  if (event['all'] !== undefined && event['any'] !== undefined)
    return { problem: 'it has both all and any criteria' };
  const match = event['any'] !== undefined ? 'any' : 'all';
  const criteria = (event[match] ?? []) as unknown[];
  const conditions: FormCondition[] = [];
  for (const c of criteria) {
    if (!isRecord(c) || typeof c['field'] !== 'string' || !(FORM_OPS as readonly unknown[]).includes(c['op']))
      return { problem: 'it has a nested group or a between condition' };
    conditions.push({ field: c['field'], op: c['op'] as FormOp, value: asText(c['value']) });
  }
  const actions = spec['actions'];
  if (!Array.isArray(actions) || actions.length !== 1 || !isRecord(actions[0]))
    return { problem: 'it has more than one action' };
  const a = actions[0];
  const chat = a['chat'];
  const webhook = a['webhook'];
  const publish = a['publish'];
  let action: FormAction;
  if (isRecord(chat))
    action = { kind: 'chat', connection: asText(chat['connection']), text: asText(chat['text']) };
  else if (isRecord(webhook) && webhook['payload'] === undefined)
    action = { kind: 'webhook', connection: asText(webhook['connection']) };
  else if (isRecord(publish) && publish['fields'] === undefined && publish['topic'] === undefined)
    action = { kind: 'publish', event_name: asText(publish['event_name']) };
  else return { problem: 'its action has fields, a payload or a topic' };
  const extra = Object.keys(spec).filter((k) => !['trigger', 'once_per', 'actions'].includes(k));
  if (extra.length > 0) return { problem: `it sets ${extra.join(', ')}` };
  const once = isRecord(spec['once_per']) ? spec['once_per'] : {};
  return {
    name: asText(doc['name']),
    description: asText(doc['description']),
    events: asText(event['names']),
    match,
    conditions,
    onceKey: asText(once['key']),
    oncePeriod: asText(once['period']),
    action,
  };
}
