/**
 * Event definitions (docs/studio.md): the checks of an `EventDefinition`'s `spec.fields`, and the
 * compatibility rule that decides its next version. Pure.
 *
 * A change is a new **major** version when an event valid under the old version can be invalid
 * under the new one, or its readers lose a column: a field removed, retyped or made required, a
 * required field added, an enum narrowed, bounds or lengths tightened, a format added. Anything
 * else (an optional field added, a field made optional, descriptions, widening) is a minor version.
 */
import { CONTEXT_FIELDS } from '../../schemas/context.ts';
import type { FieldViolation } from '../validation.ts';

/** Columns of `events` besides the context that a data field's view column would collide with. */
const RESERVED_FIELDS: ReadonlySet<string> = new Set([
  'event_data',
  'definition_version',
  'received_at',
  'stored_at',
  'topic',
  'message_id',
  'schema_version',
  'attributes',
  'enriched',
]);

export const FIELD_TYPES = [
  'string',
  'integer',
  'number',
  'boolean',
  'timestamp',
  'date',
  'json',
  'array',
  'object',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const FIELD_FORMATS = ['email', 'url', 'uuid', 'currency', 'country', 'phone'] as const;

export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  readonly required?: boolean;
  readonly description?: string;
  readonly format?: (typeof FIELD_FORMATS)[number];
  readonly enum?: readonly (string | number)[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pii?: boolean;
  /** For `object` (its properties) and `array` (the properties of its object items). */
  readonly fields?: readonly FieldSpec[];
  /** For `array` of scalars: the items' type. */
  readonly items?: Exclude<FieldType, 'array' | 'object'>;
}

const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const KEYS = new Set([
  'name',
  'type',
  'required',
  'description',
  'format',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pii',
  'fields',
  'items',
]);
/** The most fields one level of a definition lists (a view has at most 10,000 columns). */
const MAX_FIELDS = 500;
/** The most values an enum lists. */
const MAX_ENUM = 1000;
/** Nesting deeper than this is refused: events are flat-ish, and views must stay readable. */
const MAX_DEPTH = 4;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function checkField(f: unknown, at: string, depth: number, out: FieldViolation[]): void {
  const bad = (field: string, description: string): void => {
    out.push({ field: `${at}${field}`, description });
  };
  if (!isRecord(f)) {
    bad('', 'must be an object with name and type');
    return;
  }
  for (const k of Object.keys(f)) if (!KEYS.has(k)) bad(`.${k}`, 'is not a field setting');
  if (typeof f.name !== 'string' || !FIELD_NAME.test(f.name)) bad('.name', `must match ${FIELD_NAME.source}`);
  const type = f.type;
  if (!FIELD_TYPES.includes(type as FieldType)) {
    bad('.type', `must be one of ${FIELD_TYPES.join(', ')}`);
    return;
  }
  for (const k of ['required', 'pii'] as const)
    if (f[k] !== undefined && typeof f[k] !== 'boolean') bad(`.${k}`, 'must be true or false');
  if (f.description !== undefined && (typeof f.description !== 'string' || f.description.length > 1024))
    bad('.description', 'must be text of at most 1024 characters');
  if (f.format !== undefined) {
    if (type !== 'string') bad('.format', 'applies to string fields only');
    else if (!FIELD_FORMATS.includes(f.format as (typeof FIELD_FORMATS)[number]))
      bad('.format', `must be one of ${FIELD_FORMATS.join(', ')}`);
  }
  if (f.enum !== undefined) {
    const want =
      type === 'string' ? 'string' : type === 'integer' || type === 'number' ? 'number' : undefined;
    if (!want) bad('.enum', 'applies to string, integer and number fields');
    else if (
      !Array.isArray(f.enum) ||
      f.enum.length === 0 ||
      f.enum.length > MAX_ENUM ||
      f.enum.some((v) => typeof v !== want || (typeof v === 'string' && v.length > 1024))
    )
      bad('.enum', `must be a list of 1 to ${MAX_ENUM} ${want}s (strings of at most 1024 characters)`);
  }
  for (const [lo, hi, types] of [
    ['minimum', 'maximum', ['integer', 'number']],
    ['minLength', 'maxLength', ['string']],
  ] as const) {
    for (const k of [lo, hi]) {
      if (f[k] === undefined) continue;
      if (!(types as readonly string[]).includes(type as string))
        bad(`.${k}`, `applies to ${types.join(' and ')} fields`);
      else if (!isNumber(f[k])) bad(`.${k}`, 'must be a number');
      else if (lo === 'minLength' && !(Number.isSafeInteger(f[k]) && (f[k] as number) >= 0))
        bad(`.${k}`, 'must be a whole number, 0 or more');
    }
    if (isNumber(f[lo]) && isNumber(f[hi]) && f[lo] > f[hi]) bad(`.${lo}`, `must not be above ${hi}`);
  }
  if (f.items !== undefined && (type !== 'array' || !FIELD_TYPES.slice(0, 7).includes(f.items as FieldType)))
    bad('.items', 'applies to array fields, naming a scalar type');
  if (f.fields !== undefined) {
    if (type !== 'object' && type !== 'array') bad('.fields', 'applies to object and array fields');
    else if (depth >= MAX_DEPTH) bad('.fields', `nesting is limited to ${MAX_DEPTH} levels`);
    else checkFields(f.fields, `${at}.fields`, depth + 1, out);
  } else if (type === 'object') bad('.fields', 'an object field lists its fields');
}

function checkFields(fields: unknown, at: string, depth: number, out: FieldViolation[]): void {
  if (!Array.isArray(fields) || fields.length === 0 || fields.length > MAX_FIELDS) {
    const size = Array.isArray(fields) && fields.length > 0 ? ` at most ${MAX_FIELDS}` : '';
    out.push({ field: at, description: `must be a non-empty list of${size} fields` });
    return;
  }
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    checkField(f, `${at}[${i}]`, depth, out);
    const name = isRecord(f) ? f.name : undefined;
    if (typeof name === 'string') {
      if (seen.has(name)) out.push({ field: `${at}[${i}].name`, description: `${name} is listed twice` });
      seen.add(name);
    }
  });
}

/** The violations of an EventDefinition's spec, with paths under `prefix` (e.g. `documents[0].spec`). */
export function definitionViolations(spec: unknown, prefix: string): FieldViolation[] {
  const out: FieldViolation[] = [];
  if (!isRecord(spec)) return [{ field: prefix, description: 'must be an object with fields' }];
  for (const k of Object.keys(spec))
    if (k !== 'fields' && k !== 'mappings' && k !== 'accept_previous_major_until')
      out.push({ field: `${prefix}.${k}`, description: 'is not a definition setting' });
  const until = spec.accept_previous_major_until;
  if (until !== undefined && (typeof until !== 'string' || !isCalendarDate(until)))
    out.push({
      field: `${prefix}.accept_previous_major_until`,
      description:
        'must be a date (YYYY-MM-DD): until then events valid under the previous major are accepted',
    });
  checkFields(spec.fields, `${prefix}.fields`, 1, out);
  // Context fields are read from the top level of an event, never from its data: such a field
  // could never be filled (and its view column would collide with the context's).
  if (Array.isArray(spec.fields))
    spec.fields.forEach((f, i) => {
      const name = isRecord(f) ? f.name : undefined;
      if (typeof name === 'string' && isReservedFieldName(name))
        out.push({ field: `${prefix}.fields[${i}].name`, description: reservedText(name) });
    });
  if (spec.mappings !== undefined && !isRecord(spec.mappings))
    out.push({ field: `${prefix}.mappings`, description: 'must map destination types to mappings' });
  return out;
}

/** Whether a top-level data field may not have this name (a context field, or a column of `events`). */
export function isReservedFieldName(name: string): boolean {
  return CONTEXT_FIELDS.has(name) || RESERVED_FIELDS.has(name);
}

/**
 * Why an event data field may not have this name, or undefined: the field-name rule, and the
 * names the warehouse and the context already use at the top (`topic`, `user`). The check the
 * registry applies to a definition's fields (above) and to a translator's targets
 * (core/translate/spec.ts), which the creator's page runs as the person types.
 */
export function dataFieldNameProblem(name: string, top = true): string | undefined {
  if (!FIELD_NAME.test(name))
    return `must match ${FIELD_NAME.source} (lower case, digits and _, starting with a letter)`;
  return top && isReservedFieldName(name) ? reservedText(name) : undefined;
}

const reservedText = (name: string) =>
  `${name} is a context field of every event (or a column of the warehouse), not event data`;

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(text);
}

function byName(fields: readonly FieldSpec[] | undefined): Map<string, FieldSpec> {
  return new Map((fields ?? []).map((f) => [f.name, f]));
}

function tightened(before: FieldSpec, after: FieldSpec, path: string, out: string[]): void {
  if (after.required && !before.required) out.push(`${path} became required`);
  if (after.type !== before.type) out.push(`${path} changed type ${before.type} → ${after.type}`);
  if (after.items !== before.items && before.items !== undefined) out.push(`${path} changed item type`);
  if (after.format !== undefined && after.format !== before.format)
    out.push(`${path} gained format ${after.format}`);
  if (after.enum) {
    const lost = (before.enum ?? [null]).filter((v) => !after.enum?.includes(v as string | number));
    if (lost.length > 0) out.push(`${path} allows fewer values`);
  }
  // A bound that appears, or moves inward, turns away values the previous version accepted.
  const raised = (b?: number, a?: number) => a !== undefined && (b === undefined || a > b);
  const lowered = (b?: number, a?: number) => a !== undefined && (b === undefined || a < b);
  if (raised(before.minimum, after.minimum)) out.push(`${path}.minimum raised`);
  if (raised(before.minLength, after.minLength)) out.push(`${path}.minLength raised`);
  if (lowered(before.maximum, after.maximum)) out.push(`${path}.maximum lowered`);
  if (lowered(before.maxLength, after.maxLength)) out.push(`${path}.maxLength lowered`);
  if (after.type === before.type) compare(before.fields, after.fields, path, out);
}

function compare(
  before: readonly FieldSpec[] | undefined,
  after: readonly FieldSpec[] | undefined,
  prefix: string,
  out: string[],
): void {
  const old = byName(before);
  const now = byName(after);
  for (const [name, f] of old) {
    const path = prefix ? `${prefix}.${name}` : name;
    const next = now.get(name);
    if (!next) out.push(`${path} removed`);
    else tightened(f, next, path, out);
  }
  for (const [name, f] of now)
    if (!old.has(name) && f.required) out.push(`${prefix ? `${prefix}.${name}` : name} added as required`);
}

/** Why changing one definition spec into another breaks its readers (empty: a minor change). */
export function breakingChanges(before: unknown, after: unknown): string[] {
  const out: string[] = [];
  const fieldsOf = (s: unknown) => (isRecord(s) && Array.isArray(s.fields) ? (s.fields as FieldSpec[]) : []);
  compare(fieldsOf(before), fieldsOf(after), '', out);
  return out;
}
