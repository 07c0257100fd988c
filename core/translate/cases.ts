/**
 * Per-type field rules of a translator (docs/translators.md, "Per-type field rules"): one source
 * maps several event types (Stripe's `type`, Paddle's `event_type`, GitHub's `X-GitHub-Event`),
 * and a field right for one type is wrong for another (a Paddle customer's id is no transaction).
 * `spec.cases` picks, per record, the first case whose `when` matches; its fields replace the
 * common fields of the same targets, and add targets of their own. Pure.
 */
import type { TranslatorCaseWhen, TranslatorField, TranslatorSpec } from '../../schemas/translator.ts';
import { headerOf, type RequestHeaders } from './headers.ts';
import { applyTransforms, readPath } from './transforms.ts';

/** One source's value: a `header:` source from the request's headers, else a path in the record. */
export function readSource(
  record: Record<string, unknown>,
  source: string,
  headers: RequestHeaders = {},
): unknown {
  const name = headerOf(source);
  return name === undefined ? readPath(record, source) : headers[name];
}

/**
 * The first present value of a source or a fallback list (absent and null go on to the next; so
 * does a blank CSV cell, which cannot say null).
 */
export function readSources(
  record: Record<string, unknown>,
  source: string | readonly string[],
  headers: RequestHeaders | undefined,
  cells: boolean,
): unknown {
  let value: unknown;
  for (const s of typeof source === 'string' ? [source] : source) {
    value = readSource(record, s, headers);
    if (cells && typeof value === 'string' && value.trim() === '') value = undefined;
    if (value !== undefined && value !== null) return value;
  }
  return value;
}

/** The field lists a translation chooses from: the common one, and each case's merged. */
export interface FieldPlan {
  readonly common: readonly TranslatorField[];
  readonly cases: readonly {
    readonly when: TranslatorCaseWhen;
    readonly fields: readonly TranslatorField[];
  }[];
}

/**
 * A case's fields merged into the common ones: a common field whose target the case maps is
 * replaced where it stands (the order of fields is the order values are placed), and the case's
 * other targets follow.
 */
export function mergedFields(
  common: readonly TranslatorField[],
  own: readonly TranslatorField[],
): TranslatorField[] {
  const byTarget = new Map(own.map((f) => [f.target, f]));
  const merged = common.map((f) => byTarget.get(f.target) ?? f);
  const placed = new Set(common.map((f) => f.target));
  return [...merged, ...own.filter((f) => !placed.has(f.target))];
}

/** The plan of a spec, made once per payload. */
export function fieldPlan(spec: TranslatorSpec): FieldPlan {
  return {
    common: spec.fields,
    cases: (spec.cases ?? []).map((c) => ({ when: c.when, fields: mergedFields(spec.fields, c.fields) })),
  };
}

/** A scalar as the text a `when` compares (a CSV cell is text, a JSON value may be a number). */
const asText = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/**
 * Whether a record (and the request's headers) meets a case's `when`: the source's value, through
 * the `when`'s transforms if any (a value they refuse meets no case), compared as text.
 */
export function caseMatches(
  when: TranslatorCaseWhen,
  record: Record<string, unknown>,
  headers: RequestHeaders | undefined,
  cells: boolean,
): boolean {
  let value = readSources(record, when.source, headers, cells);
  if (when.transforms && value !== undefined && value !== null) {
    const step = applyTransforms(value, when.transforms, record);
    if (!step.ok) return false;
    value = step.value;
  }
  const got = asText(value);
  if (got === undefined) return false;
  return 'equals' in when ? asText(when.equals) === got : when.in.some((v) => asText(v) === got);
}

/** The fields a record takes: those of the first case it matches, else the common ones. */
export function fieldsFor(
  plan: FieldPlan,
  record: Record<string, unknown>,
  headers: RequestHeaders | undefined,
  cells: boolean,
): readonly TranslatorField[] {
  for (const c of plan.cases) if (caseMatches(c.when, record, headers, cells)) return c.fields;
  return plan.common;
}

/** Every field a spec can apply, common and per case (for the checks that look at all of them). */
export function allFields(spec: TranslatorSpec): TranslatorField[] {
  return [...spec.fields, ...(spec.cases ?? []).flatMap((c) => c.fields)];
}
