/**
 * The checks of a Translator's `spec` on `apply` (docs/translators.md): its schema, then what a
 * schema cannot say — one source or one constant per field, each target once (in the common
 * fields and in each case's), valid date patterns and time zones, no `key` beside a mapped
 * `event_id`, and `unmappable: store` only where a call can be kept as sent. Pure.
 */
import { CONTEXT_FIELDS } from '../../schemas/context.ts';
import {
  ANY_CUSTOM_EVENT,
  type TranslatorField,
  type TranslatorSpec,
  TranslatorSpecSchema,
} from '../../schemas/translator.ts';
import { dataFieldNameProblem, isReservedFieldName } from '../definitions/definitions.ts';
import { isTimeZone, patternProblem } from '../formats/patterns.ts';
import { compileValidator, type FieldViolation } from '../validation.ts';
import { allFields } from './cases.ts';
import { headerViolations } from './headers.ts';
import { signatureSpecViolations } from './signature-spec.ts';

const shape = compileValidator<TranslatorSpec>(TranslatorSpecSchema);

/** Targets that are not event data: the event's own fields. */
const EVENT_TARGETS = new Set(['event_name', 'event_id', 'event_time']);

/** Where fallback lists are taken (the schema's `SourcePaths`), for the text of a misplaced one. */
const LISTS_TAKEN =
  'a list of fallback paths is taken by a field’s source, key, major_units.source, each’s sources and a case’s when.source';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A list where one path or code is taken (a transform's `path`, `major_units.currency`,
 * `format.records`), said plainly: the schema alone would answer a union's every branch.
 */
function misplacedLists(spec: unknown, prefix: string): FieldViolation[] {
  if (!isRecord(spec)) return [];
  const out: FieldViolation[] = [];
  const one = (field: string) =>
    out.push({ field, description: `takes one path, not a list: ${LISTS_TAKEN}` });
  const transforms = (list: unknown, at: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((t, j) => {
      if (!isRecord(t)) return;
      if (Array.isArray(t['path'])) one(`${at}[${j}].path`);
      const mu = t['major_units'];
      if (isRecord(mu) && Array.isArray(mu['currency']))
        out.push({
          field: `${at}[${j}].major_units.currency`,
          description:
            'takes one ISO 4217 code: to read the code from the record, use major_units.source (a path or a list of fallback paths)',
        });
      if (isRecord(t['each']))
        for (const [k, v] of Object.entries(t['each']))
          if (isRecord(v)) transforms(v['transforms'], `${at}[${j}].each.${k}.transforms`);
    });
  };
  if (isRecord(spec['format']) && Array.isArray(spec['format']['records'])) one(`${prefix}.format.records`);
  const fields = (list: unknown, at: string): void => {
    if (Array.isArray(list))
      list.forEach((f, i) => {
        if (isRecord(f)) transforms(f['transforms'], `${at}[${i}].transforms`);
      });
  };
  fields(spec['fields'], `${prefix}.fields`);
  if (Array.isArray(spec['cases']))
    spec['cases'].forEach((c, i) => {
      if (isRecord(c)) fields(c['fields'], `${prefix}.cases[${i}].fields`);
    });
  return out;
}

export function translatorViolations(spec: unknown, prefix: string): FieldViolation[] {
  const misplaced = misplacedLists(spec, prefix);
  if (misplaced.length > 0) return misplaced;
  const problems = shape.violations(spec, prefix);
  if (problems.length > 0) return problems;
  const s = spec as TranslatorSpec;
  const out: FieldViolation[] = fieldViolations(s.fields, `${prefix}.fields`, 'fields');
  (s.cases ?? []).forEach((c, i) => {
    out.push(...fieldViolations(c.fields, `${prefix}.cases[${i}].fields`, `cases[${i}].fields`));
  });
  // A key needs no event_time of the payload's: a re-sent row without one takes the first copy's
  // time in store (docs/storage.md, "One event, one row"). A case may name its own type's id (a
  // Shopify checkout's token beside the order's key): where a record of it has one, it stands in
  // place of the key's, so two types whose ids share a number never fold.
  if (s.key) {
    if (s.fields.some((f) => f.target === 'event_id'))
      out.push({ field: `${prefix}.key`, description: 'makes the event_id: do not map event_id as well' });
  }
  const named = s.fields.findIndex((f) => f.target === 'event_name' && f.source !== undefined);
  const caseNamed = (s.cases ?? []).findIndex((c) =>
    c.fields.some((f) => f.target === 'event_name' && f.source !== undefined),
  );
  if ((named >= 0 || caseNamed >= 0) && !s.events)
    out.push({
      field: `${prefix}.events`,
      description: `${named >= 0 ? `fields[${named}]` : `cases[${caseNamed}]`} takes event_name from the payload: list the events it may produce (custom:* for any custom event), or a sender could publish any event`,
    });
  out.push(...signatureViolations(s, prefix));
  out.push(...headerViolations(s, prefix));
  const format = s.format;
  // Stored calls are kept as sent (invalid_events' `invalid_call`): a JSON record or a form's.
  if (s.unmappable === 'store' && format.type !== 'json' && format.type !== 'form')
    out.push({
      field: `${prefix}.unmappable`,
      description: `store keeps a JSON or form sender's calls as sent; a ${format.type} file's rows are refused with their reasons (refuse, or ?partial=true)`,
    });
  if (format.type === 'csv' && format.header === false && !format.columns)
    out.push({
      field: `${prefix}.format.columns`,
      description: 'names the columns when there is no header row',
    });
  return out;
}

/**
 * The checks of one list of fields (the common ones, or a case's): one source or one constant
 * each, each target once, targets an event may take, valid date patterns and time zones.
 */
function fieldViolations(
  fields: readonly TranslatorField[],
  prefix: string,
  label: string,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const seen = new Map<string, number>();
  fields.forEach((f, i) => {
    const at = `${prefix}[${i}]`;
    if ((f.source === undefined) === (f.value === undefined))
      out.push({
        field: at,
        description: 'takes a value from a `source` or a constant `value`, one of them',
      });
    const first = seen.get(f.target);
    if (first !== undefined)
      out.push({ field: `${at}.target`, description: `${f.target} is also ${label}[${first}].target` });
    else seen.set(f.target, i);
    const reserved = reservedTarget(f.target);
    if (reserved) out.push({ field: `${at}.target`, description: reserved });
    const [top = ''] = f.target.split('.');
    if (EVENT_TARGETS.has(top) && f.target !== top)
      out.push({ field: `${at}.target`, description: `${top} has no parts` });
    (f.transforms ?? []).forEach((t, j) => {
      if (typeof t !== 'object') return;
      const tat = `${at}.transforms[${j}]`;
      if ('date' in t) {
        const why = patternProblem(t.date, 'date');
        if (why) out.push({ field: `${tat}.date`, description: why });
      }
      if ('timestamp' in t) {
        const why = patternProblem(t.timestamp, 'timestamp');
        if (why) out.push({ field: `${tat}.timestamp`, description: why });
        if (t.zone !== undefined && !isTimeZone(t.zone))
          out.push({
            field: `${tat}.zone`,
            description: `${t.zone} is not an IANA time zone (Europe/Berlin)`,
          });
      }
    });
  });
  return out;
}

/**
 * Why a translator may not write to this target, or undefined: a top-level name the warehouse
 * keeps for itself (`topic`, `received_at`). Context targets (`user.email`) and the event's own
 * (`event_time`) are targets, not event data.
 */
export function reservedTarget(target: string): string | undefined {
  const [top = ''] = target.split('.');
  const isContext = CONTEXT_FIELDS.has(top) || EVENT_TARGETS.has(top);
  return !isContext && isReservedFieldName(top)
    ? `${top} is a column of the warehouse, not an event field`
    : undefined;
}

/**
 * Why the creator may not keep a column as this event data field, or undefined: the definition's
 * field-name rule and a translator's reserved targets (core/definitions/definitions.ts, above),
 * the checks the save would fail. The page runs it as the person types a field name.
 */
export function eventFieldProblem(name: string): string | undefined {
  return dataFieldNameProblem(name) ?? reservedTarget(name);
}

/** The checks of `auth.signature` (signature-spec.ts). */
function signatureViolations(s: TranslatorSpec, prefix: string): FieldViolation[] {
  const sig = s.auth?.signature;
  return sig ? signatureSpecViolations(sig, `${prefix}.auth.signature`, s.auth?.url_token) : [];
}

/** The events a translator may produce: listed names, and whether any custom event may pass. */
export interface TranslatorEvents {
  readonly names: ReadonlySet<string>;
  readonly custom: boolean;
}

/**
 * The translator's event allow-list (issue 33): its `events` when it has them; otherwise the
 * names its mapping can produce — `event`, the `event_name` field's constant or default, and
 * what its lookups map to. A value a lookup does not list is not among them, so a resource
 * stored before `events` existed refuses rows naming other events rather than publish them.
 */
export function translatorEvents(spec: TranslatorSpec): TranslatorEvents {
  if (spec.events)
    return {
      names: new Set(spec.events.filter((e) => e !== ANY_CUSTOM_EVENT)),
      custom: spec.events.includes(ANY_CUSTOM_EVENT),
    };
  const names = new Set([spec.event]);
  // The common event_name field and every case's.
  for (const f of allFields(spec).filter((x) => x.target === 'event_name')) {
    for (const v of [f.value, f.default]) if (typeof v === 'string') names.add(v);
    for (const t of f.transforms ?? [])
      if (typeof t === 'object' && 'lookup' in t)
        for (const v of [...Object.values(t.lookup), t.otherwise]) if (typeof v === 'string') names.add(v);
  }
  return { names, custom: false };
}
