/**
 * Load-time checks of the `mappings` of every destination: rule syntax (with one clear
 * message per field instead of a union's noise), and, for catalogue events, that every
 * source path names a field the event type has. Context paths are checked for every event.
 */
import type { TSchema } from 'typebox';
import { lookupEvent } from '../../schemas/catalogue.ts';
import { CONTEXT_FIELDS, Context, Enriched } from '../../schemas/context.ts';
import { SIMPLE_TRANSFORMS } from '../../schemas/mapping.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { FieldViolation } from '../validation.ts';
import { isMappedType } from './mappings.ts';
import { PLATFORMS } from './platforms.ts';

const SOURCE_PATH = /^(\$|\$\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const TARGET_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const SIMPLE: ReadonlySet<string> = new Set(SIMPLE_TRANSFORMS);
const RULE_KEYS = 'a source path, or an object with `from`, `first`, `const`, `list`, `object` or `each`';

/** Appends a key to a field path the way settings errors name keys (`a.b`, `a["x.y"]`). */
function key(path: string, k: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Properties of an object schema (following a typebox array to its items), or undefined. */
function properties(schema: TSchema | undefined): Record<string, TSchema> | undefined {
  const s = schema as { properties?: Record<string, TSchema>; items?: TSchema } | undefined;
  return s?.properties;
}

/**
 * What a mapping may read for one event: undefined schema = custom event (event data is
 * not declared, so only context paths are checked).
 */
interface Scope {
  readonly eventName: string;
  readonly data: TSchema | undefined;
  /** The element schema inside `each` (undefined when unknown). */
  readonly item: TSchema | undefined;
  readonly inEach: boolean;
}

/** Why a source path cannot be read for this event, or undefined when it can. */
function pathProblem(path: string, scope: Scope): string | undefined {
  if (!SOURCE_PATH.test(path)) return `"${path}" is not a dotted source path`;
  if (path.startsWith('$')) {
    if (!scope.inEach) return `"${path}" reads an \`each\` element outside \`each\``;
    if (path === '$' || scope.item === undefined) return undefined;
    return walkSchema(path.slice(2).split('.'), scope.item, path, `the elements of this list`);
  }
  const parts = path.split('.');
  const head = parts[0] as string;
  if (CONTEXT_FIELDS.has(head) || head === 'received_at' || head === 'topic') {
    const schema = (Context.properties as Record<string, TSchema>)[head];
    return parts.length === 1 ? undefined : walkSchema(parts.slice(1), schema, path, `context field ${head}`);
  }
  // What store derived (docs/enrichment.md): its own schema, like a context group.
  if (head === 'enriched') return walkSchema(parts.slice(1), Enriched, path, 'enriched');
  if (scope.data === undefined) return undefined;
  const rest = head === 'event_data' ? parts.slice(1) : parts;
  if (rest.length === 0) return undefined;
  return walkSchema(rest, scope.data, path, scope.eventName);
}

function walkSchema(
  parts: readonly string[],
  schema: TSchema | undefined,
  path: string,
  what: string,
): string | undefined {
  let current = schema;
  for (const part of parts) {
    const props = properties(current);
    if (props === undefined) return undefined; // Not an object we know the shape of (e.g. a list).
    if (!Object.hasOwn(props, part)) return `reads "${path}", which ${what} does not have`;
    current = props[part];
  }
  return undefined;
}

function checkTransforms(value: unknown, field: string, scope: Scope, out: FieldViolation[]): void {
  if (!Array.isArray(value)) {
    out.push({ field: `${field}.transform`, description: 'must be a list of transforms' });
    return;
  }
  value.forEach((tr, i) => {
    const f = `${field}.transform[${i}]`;
    if (typeof tr === 'string') {
      if (!SIMPLE.has(tr)) out.push({ field: f, description: `unknown transform "${tr}"` });
    } else if (isObj(tr) && 'phone' in tr) {
      if (tr['phone'] !== 'e164' && tr['phone'] !== 'digits')
        out.push({ field: `${f}.phone`, description: 'expected "e164" or "digits"' });
      const extra = Object.keys(tr).filter((k) => k !== 'phone' && k !== 'country');
      if (extra.length > 0)
        out.push({ field: key(f, extra[0] as string), description: 'is not a known field' });
      if (tr['country'] !== undefined) {
        const p =
          typeof tr['country'] === 'string' ? pathProblem(tr['country'], scope) : 'must be a source path';
        if (p) out.push({ field: `${f}.country`, description: p });
      }
    } else if (isObj(tr) && 'join' in tr) {
      if (typeof tr['join'] !== 'string' || Object.keys(tr).length !== 1)
        out.push({ field: f, description: '`join` takes one separator string' });
    } else if (isObj(tr) && 'oneOf' in tr) {
      const list = tr['oneOf'];
      if (
        !Array.isArray(list) ||
        list.length === 0 ||
        list.some((v) => typeof v !== 'string') ||
        Object.keys(tr).length !== 1
      )
        out.push({ field: f, description: '`oneOf` takes a non-empty list of strings' });
    } else {
      out.push({
        field: f,
        description: 'expected a transform name, {phone: e164|digits}, {join: "…"} or {oneOf: […]}',
      });
    }
  });
}

function checkRule(rule: unknown, field: string, scope: Scope, out: FieldViolation[]): void {
  if (typeof rule === 'string') {
    const p = pathProblem(rule, scope);
    if (p) out.push({ field, description: p });
    return;
  }
  if (!isObj(rule)) {
    out.push({ field, description: `expected ${RULE_KEYS}` });
    return;
  }
  const keys = Object.keys(rule);
  const allowed = (names: string[]) => {
    for (const k of keys)
      if (!names.includes(k)) out.push({ field: key(field, k), description: 'is not a known field' });
  };
  if ('from' in rule) {
    allowed(['from', 'transform', 'default']);
    const paths = Array.isArray(rule['from']) ? rule['from'] : [rule['from']];
    if (paths.length === 0) out.push({ field: `${field}.from`, description: 'needs at least one path' });
    for (const p of paths) {
      const problem = typeof p === 'string' ? pathProblem(p, scope) : 'must be a source path';
      if (problem) out.push({ field, description: problem });
    }
    if (rule['transform'] !== undefined) checkTransforms(rule['transform'], field, scope, out);
    return;
  }
  if ('const' in rule) {
    allowed(['const']);
    return;
  }
  if ('first' in rule) {
    allowed(['first']);
    if (!Array.isArray(rule['first']) || rule['first'].length === 0)
      out.push({ field: `${field}.first`, description: 'must be a non-empty list of rules' });
    else
      rule['first'].forEach((r, i) => {
        checkRule(r, `${field}.first[${i}]`, scope, out);
      });
    return;
  }
  if ('list' in rule) {
    allowed(['list', 'transform']);
    if (!Array.isArray(rule['list']))
      out.push({ field: `${field}.list`, description: 'must be a list of rules' });
    else
      rule['list'].forEach((r, i) => {
        checkRule(r, `${field}.list[${i}]`, scope, out);
      });
    if (rule['transform'] !== undefined) checkTransforms(rule['transform'], field, scope, out);
    return;
  }
  if ('object' in rule) {
    allowed(['object', 'required']);
    checkFields(rule['object'], `${field}.object`, scope, out);
    return;
  }
  if ('each' in rule) {
    allowed(['each', 'fields', 'value']);
    const each = rule['each'];
    const problem = typeof each === 'string' ? pathProblem(each, scope) : 'must be a source path';
    if (problem) {
      out.push({ field: `${field}.each`, description: problem });
      return;
    }
    const listSchema = scope.data && typeof each === 'string' ? elementSchema(each, scope) : undefined;
    const inner: Scope = { ...scope, item: listSchema, inEach: true };
    if ('fields' in rule) checkFields(rule['fields'], `${field}.fields`, inner, out);
    else if ('value' in rule) checkRule(rule['value'], `${field}.value`, inner, out);
    else out.push({ field, description: '`each` needs `fields` or `value`' });
    return;
  }
  out.push({ field, description: `expected ${RULE_KEYS}` });
}

/** The element schema of a list field of the event, for `$.x` checks inside `each`. */
function elementSchema(path: string, scope: Scope): TSchema | undefined {
  if (path.startsWith('$')) return undefined;
  const parts = path.split('.');
  let current: TSchema | undefined = scope.data;
  for (const part of parts[0] === 'event_data' ? parts.slice(1) : parts) {
    current = properties(current)?.[part];
  }
  return (current as { items?: TSchema } | undefined)?.items;
}

function checkFields(
  fields: unknown,
  field: string,
  scope: Scope,
  out: FieldViolation[],
  nullable = false,
): void {
  if (!isObj(fields)) {
    out.push({ field, description: 'must be an object of target field → rule' });
    return;
  }
  for (const [target, rule] of Object.entries(fields)) {
    const f = key(field, target);
    if (!TARGET_PATH.test(target)) out.push({ field: f, description: 'is not a dotted target field name' });
    if (rule === null && nullable) continue;
    checkRule(rule, f, scope, out);
  }
}

/**
 * Checks every destination's `mappings`: syntax, source paths against the catalogue and the
 * context, custom events naming their target `event`, and the platform's event-name rules (GA4's). Returns
 * violations with settings key paths (`destinations[0].mappings.quote_requested.fields.value`).
 */
export function checkMappings(settings: Readonly<Pick<Settings, 'destinations'>>): FieldViolation[] {
  const out: FieldViolation[] = [];
  (settings.destinations ?? []).forEach((d, i) => {
    const base = `destinations[${i}].mappings`;
    if (d.mappings === undefined) return;
    if (!isMappedType(d.type)) {
      out.push({
        field: base,
        description: `a ${d.type} destination sends the stored event; it has no mappings`,
      });
      return;
    }
    for (const [eventName, mapping] of Object.entries(d.mappings)) {
      const m = key(base, eventName);
      if (!isObj(mapping)) {
        out.push({ field: m, description: 'must be an object with `event`, `fields`, `replace`' });
        continue;
      }
      const known = lookupEvent(eventName);
      const event = mapping['event'];
      if (known === undefined && event === undefined)
        out.push({
          field: `${m}.event`,
          description: `is required: ${eventName} is a custom event with no default`,
        });
      const payload = PLATFORMS[d.type].payload;
      if (typeof event === 'string' && payload.kind === 'mapped' && payload.eventNameProblem) {
        const problem = payload.eventNameProblem(event);
        if (problem) out.push({ field: `${m}.event`, description: problem });
      }
      const scope: Scope = { eventName, data: known?.schema, item: undefined, inEach: false };
      if (mapping['fields'] !== undefined) checkFields(mapping['fields'], `${m}.fields`, scope, out, true);
    }
  });
  return out;
}
