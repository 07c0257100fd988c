/**
 * A Segment-path call that could not become an event (docs/senders.md, "One bad call does not
 * refuse the batch"): the gateway publishes it as `{"invalid_call": …}` with its violations in an
 * attribute, and the store keeps those violations as the row's `errors`: the call's real reasons
 * (a malformed timestamp, a missing currency), not the wrapper's missing event_name. Pure.
 */
import type { FieldViolation } from '../validation.ts';

/** The attribute holding an invalid call's violations, as JSON `[{field, description}]`. */
export const INVALID_ERRORS_ATTRIBUTE = 'invalid_errors';

/** Pub/Sub's limit on an attribute's value, in bytes. */
const ATTRIBUTE_BYTES = 1024;

/**
 * The attribute value for one call's violations, their `rows[n].` prefix dropped (the stored row
 * is the call itself); as many as fit, the rest summed up in a last entry.
 */
export function invalidErrorsAttribute(violations: readonly FieldViolation[]): string {
  const own = violations.map((v) => ({
    field: v.field.replace(/^rows\[\d+\]\.?/, '') || '(call)',
    description: v.description.slice(0, 400),
  }));
  for (let n = own.length; n > 0; n--) {
    const kept: FieldViolation[] = own.slice(0, n);
    if (n < own.length) kept.push({ field: '(call)', description: `and ${own.length - n} more` });
    const text = JSON.stringify(kept);
    if (new TextEncoder().encode(text).length <= ATTRIBUTE_BYTES) return text;
  }
  return JSON.stringify([{ field: '(call)', description: `${own.length} violations` }]);
}

const isViolation = (v: unknown): v is FieldViolation =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Record<string, unknown>)['field'] === 'string' &&
  typeof (v as Record<string, unknown>)['description'] === 'string';

/**
 * An invalid call's own violations, when `value` is one (`{"invalid_call": …}`) and its message
 * carries them; undefined otherwise (the store then reports what its own validation found).
 */
export function invalidCallErrors(
  value: unknown,
  attributes: Readonly<Record<string, string>>,
): FieldViolation[] | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'invalid_call')) return undefined;
  const text = attributes[INVALID_ERRORS_ATTRIBUTE];
  if (text === undefined) return undefined;
  try {
    const list: unknown = JSON.parse(text);
    if (Array.isArray(list) && list.length > 0 && list.every(isViolation))
      return list.map((v) => ({ field: v.field, description: v.description }));
  } catch {
    // A malformed attribute: the store's own reasons stand.
  }
  return undefined;
}
