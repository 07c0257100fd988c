/**
 * The catalogue page's form as data (catalog.ts draws it): the text each field starts with (its
 * preset), what a field's text means (a value of the field's type, or JSON for objects, lists and
 * mapping directives), and the `segment_action` destination the form's values make — only what
 * differs from the presets is written, so the action's own defaults keep applying. No DOM here.
 */
import type {
  CatalogAction,
  CatalogField,
  CatalogPreset,
  CatalogSetting,
} from '../../core/platforms/segment-action/catalog.ts';
import { SYNC_MODE_KEY } from '../../core/platforms/segment-action/presets.ts';

/**
 * The action choice that writes no `actions`: Segment's presets run, as Segment's app enables
 * them when the destination is added (docs/catalog-destinations.md, "Presets").
 */
export const PRESETS = '';

/** The form's values, by what they fill. */
export interface FormValues {
  readonly id: string;
  readonly slug: string;
  /** Settings fields' texts by key (a credential's is its secret's name). */
  readonly settings: Readonly<Record<string, string>>;
  /** The action's key, or PRESETS: no `actions`, the destination's presets run. */
  readonly action: string;
  readonly when: string;
  /** The action's fields' texts by key. */
  readonly fields: Readonly<Record<string, string>>;
}

/** A field's text read as a value, or what is wrong with it. */
export type Read =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string };

/** The text a field starts with: its preset as written in the form ('' for none). */
export function presetText(f: Pick<CatalogField, 'default'>): string {
  const d = f.default;
  if (d === undefined || d === null) return '';
  return typeof d === 'string' ? d : JSON.stringify(d);
}

/**
 * The text a field starts with in the form: its preset, else, for an object whose properties have
 * presets of their own (Klaviyo's `profile`), those composed — a suggestion, written into the
 * mapping as it is, since actions-core applies only a field's own default — else the suggested
 * mapping entry for it (core/platforms/segment-action/suggest.ts), written into the mapping too
 * unless the user clears or changes it.
 */
export function startText(f: Pick<CatalogField, 'default' | 'properties'>, suggested?: unknown): string {
  const preset = presetText(f);
  if (preset !== '') return preset;
  if (suggested !== undefined) return typeof suggested === 'string' ? suggested : JSON.stringify(suggested);
  const composed = Object.fromEntries(
    (f.properties ?? []).filter((p) => p.default !== undefined).map((p) => [p.key, p.default]),
  );
  return Object.keys(composed).length > 0 ? JSON.stringify(composed) : '';
}

/**
 * The action's fields as the form shows them: its own, then, for an action with sync modes, the
 * mode (Segment's "How to sync records"), written into the mapping under SYNC_MODE_KEY.
 */
export function formFields(a: Pick<CatalogAction, 'fields' | 'syncMode'>): CatalogField[] {
  if (a.syncMode === undefined) return [...a.fields];
  return [
    ...a.fields,
    {
      key: SYNC_MODE_KEY,
      label: 'How to sync records',
      type: 'string',
      required: true,
      description: "The action's sync mode: it refuses every event without one.",
      choices: a.syncMode.choices.map((value) => ({ value, label: value })),
    },
  ];
}

/** Whether a field is written as JSON in the form (objects, lists, directives). */
export function isJsonField(f: CatalogField): boolean {
  return f.type === 'object' || f.multiple === true || (typeof f.default === 'object' && f.default !== null);
}

/** A field's text as its value: JSON where it starts as JSON, numbers and booleans by type. */
export function readField(f: Pick<CatalogField, 'type'>, text: string): Read {
  const t = text.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return { ok: true, value: JSON.parse(t) };
    } catch {
      return { ok: false, problem: 'is not valid JSON' };
    }
  }
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(t);
    if (t === '' || !Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n)))
      return {
        ok: false,
        problem: `must be ${f.type === 'integer' ? 'a whole number' : 'a number'} or a directive`,
      };
    return { ok: true, value: n };
  }
  if (f.type === 'boolean') {
    if (t !== 'true' && t !== 'false') return { ok: false, problem: 'must be true or false' };
    return { ok: true, value: t === 'true' };
  }
  return { ok: true, value: text };
}

/** A secret's default name: the destination id and the role, in the characters a name may hold. */
export function secretName(id: string, role: string): string {
  return `${id}-${role}`.toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
}

/** A destination id from a slug (`google-analytics-4` → `google_analytics_4`). */
export function idOf(slug: string): string {
  const id = slug.replace(/[^a-z0-9_]+/g, '_').slice(0, 63);
  return /^[a-z]/.test(id) ? id : `d_${id}`.slice(0, 63);
}

/** The presets that run when the settings name no actions (those with a subscription). */
export function runningPresets(presets: readonly CatalogPreset[] | undefined): CatalogPreset[] {
  return (presets ?? []).filter((p) => p.subscribe !== undefined);
}

/**
 * The one action to suggest for a purchase, the page's sample event: the action of the preset that
 * takes `Order Completed` (Amplitude's `logPurchase`, which sends the revenue; its `logEvent`
 * would carry it only among the event's properties), else the first that takes every track call,
 * else a preset's, else the first with a subscription of its own.
 */
export function suggestedAction(
  actions: readonly Pick<CatalogAction, 'key' | 'defaultSubscription'>[],
  presets: readonly CatalogPreset[] | undefined,
): string | undefined {
  const running = runningPresets(presets);
  return (
    running.find((p) => /event\s*=\s*"Order Completed"/.test(p.subscribe ?? ''))?.action ??
    actions.find((a) => a.defaultSubscription === 'type = "track"')?.key ??
    running[0]?.action ??
    actions.find((a) => a.defaultSubscription)?.key
  );
}

/** `purchase, sign_up` → a list of names; anything with an operator or quotes → FQL as written. */
export function whenOf(text: string): string | string[] | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (/[=!<>"()]|\band\b|\bor\b/.test(t)) return t;
  return t
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The `segment_action` destination the form makes, or each field's problem (`field: problem`). */
export function destinationOf(
  values: FormValues,
  settings: readonly CatalogSetting[],
  fields: readonly CatalogField[],
  tokenRole?: string,
  /** An OAuth destination's connection id as typed (undefined: the destination takes none). */
  connection?: string,
): { readonly destination: Record<string, unknown>; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const config: Record<string, string | number | boolean> = {};
  const secrets: Record<string, string> = {};
  for (const s of settings) {
    const text = (values.settings[s.key] ?? '').trim();
    if (text === '') {
      if (s.required) problems.push(`${s.label}: is required`);
      continue;
    }
    if (s.secret) {
      secrets[s.key] = text;
      continue;
    }
    const read = readField(s, text);
    if (!read.ok) problems.push(`${s.label}: ${read.problem}`);
    else config[s.key] = read.value as string | number | boolean;
  }
  if (tokenRole) {
    const text = (values.settings[tokenRole] ?? '').trim();
    if (text === '') problems.push('Access token: is required');
    else secrets[tokenRole] = text;
  }
  const connectionId = connection?.trim();
  if (connectionId === '') problems.push('OAuth connection: is required');
  const mapping: Record<string, unknown> = {};
  for (const f of fields) {
    const text = values.fields[f.key] ?? '';
    // Unchanged, or emptied: the action's preset applies.
    if (text.trim() === '' || text.trim() === presetText(f).trim()) continue;
    const read = readField(f, text);
    if (!read.ok) problems.push(`${f.label}: ${read.problem}`);
    else mapping[f.key] = read.value;
  }
  const when = whenOf(values.when);
  const action = {
    action: values.action,
    ...(when === undefined ? {} : { when }),
    ...(Object.keys(mapping).length > 0 ? { mapping } : {}),
  };
  return {
    destination: {
      id: values.id,
      type: 'segment_action',
      destination: values.slug,
      ...(Object.keys(config).length > 0 ? { config } : {}),
      ...(Object.keys(secrets).length > 0 ? { secrets } : {}),
      ...(connectionId ? { connection: connectionId } : {}),
      ...(values.action === PRESETS ? {} : { actions: [action] }),
    },
    problems,
  };
}
