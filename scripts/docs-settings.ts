/**
 * The settings reference of docs/settings.md, written from the typebox schema `Settings`
 * (schemas/settings.ts): one row per key with its type, default and description. Where the
 * schema carries no default or description yet, docs-settings-notes.ts fills the cell; the
 * schema wins wherever it has one.
 */
import { Settings } from '../schemas/settings.ts';
import { SETTINGS_NOTES } from './docs-settings-notes.ts';

/** The JSON Schema keywords typebox writes that the reference reads. */
interface Schema {
  readonly type?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly const?: unknown;
  readonly anyOf?: readonly Schema[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly patternProperties?: Readonly<Record<string, Schema>>;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
}

/** One key of the reference. */
export interface SettingRow {
  readonly key: string;
  readonly type: string;
  readonly required: boolean;
  readonly default: string;
  readonly description: string;
}

const tick = (v: unknown): string => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/** A schema's type as a reader says it: `` `a` or `b` ``, "integer 1–1000", "list of string". */
function typeOf(s: Schema): string {
  if (s.const !== undefined) return tick(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'any'}`;
  if (s.type === 'object' && s.patternProperties) {
    const value = Object.values(s.patternProperties)[0];
    return `map of name → ${value ? typeOf(value) : 'any'}`;
  }
  if (s.type === 'integer' || s.type === 'number') {
    if (s.minimum !== undefined && s.maximum !== undefined) return `${s.type} ${s.minimum}–${s.maximum}`;
    const bounds = [
      s.minimum !== undefined ? `≥ ${s.minimum}` : undefined,
      s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : undefined,
      s.maximum !== undefined ? `≤ ${s.maximum}` : undefined,
    ].filter((b) => b !== undefined);
    return [s.type, bounds.join(', ')].filter(Boolean).join(' ');
  }
  return s.type ?? 'any';
}

/** The object a key holds, when it holds one (directly, or as the items of a list). */
function objectOf(s: Schema): { schema: Schema; suffix: string } | undefined {
  if (s.type === 'object' && s.properties) return { schema: s, suffix: '' };
  if (s.type === 'array' && s.items?.type === 'object' && s.items.properties)
    return { schema: s.items, suffix: '[]' };
  return undefined;
}

/**
 * A schema's properties, sibling objects of one shape as one entry named `{a,b,c}`
 * (`functions.{store,forward,…}`: one sizing schema, one set of rows).
 */
function grouped(schema: Schema): [string, Schema][] {
  const out: [string[], Schema, string][] = [];
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    const shape = JSON.stringify(s);
    const same = s.type === 'object' ? out.find((o) => o[2] === shape) : undefined;
    if (same) same[0].push(name);
    else out.push([[name], s, shape]);
  }
  return out.map(([names, s]) => [names.length > 1 ? `{${names.join(',')}}` : (names[0] as string), s]);
}

/** Every key of a schema object, depth first in the schema's order, nested keys dotted. */
function rows(schema: Schema, prefix: string): SettingRow[] {
  const required = new Set(schema.required ?? []);
  return grouped(schema).flatMap(([name, s]) => {
    const key = `${prefix}${name}`;
    const nested = objectOf(s);
    const note = SETTINGS_NOTES[key];
    const own: SettingRow = {
      key,
      type: nested ? (nested.suffix ? 'list of objects' : 'object') : typeOf(s),
      required: required.has(name),
      default: s.default !== undefined ? tick(s.default) : (note?.default ?? ''),
      description: s.description ?? note?.description ?? '',
    };
    const children = nested ? rows(nested.schema, `${key}${nested.suffix}.`) : [];
    // An object with nothing to say of its own is only a heading for its keys.
    return nested && own.description === '' ? children : [own, ...children];
  });
}

/** Every key of the settings, in the schema's order. */
export function settingRows(): SettingRow[] {
  return rows(Settings as unknown as Schema, '');
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The reference as a markdown table. */
export function settingsTable(): string {
  const lines = ['| key | type | default | description |', '| --- | --- | --- | --- |'];
  for (const r of settingRows())
    lines.push(
      `| \`${r.key}\` | ${cell(r.type)} | ${r.required ? '(required)' : cell(r.default)} | ${cell(r.description)} |`,
    );
  return lines.join('\n');
}
