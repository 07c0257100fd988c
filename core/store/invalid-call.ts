/**
 * A Segment-path call that could not become an event (docs/senders.md, "One bad call does not
 * refuse the batch"): the gateway publishes it as `{"invalid_call": …}` with its violations in an
 * attribute, and the store keeps those violations as the row's `errors`: the call's real reasons
 * (a malformed timestamp, a missing currency), not the wrapper's missing event_name. Pure.
 */
import type { PiiPolicy } from '../pii.ts';
import { stripIdentifiers } from '../suppression/erased.ts';
import { traitNames, traitsOf } from '../translate/traits.ts';
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

/**
 * The `invalid` attribute of a refused call: its violations as text (`field: description; …`),
 * cut to Pub/Sub's 1024 bytes at a character's boundary (a field name in another script takes
 * two or three bytes a character, and one attribute over the limit refuses the whole Publish).
 */
export function invalidAttribute(violations: readonly FieldViolation[]): string {
  const text = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  const bytes = Buffer.from(text);
  if (bytes.length <= ATTRIBUTE_BYTES) return text;
  // Back to the start of the character the limit falls in (continuation bytes are 10xxxxxx).
  let end = ATTRIBUTE_BYTES;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString();
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

type Fields = Record<string, unknown>;

const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The call inside an `{"invalid_call": …}` message, when `value` is one and the call is an object. */
export function invalidCallOf(value: unknown): Fields | undefined {
  if (!isFields(value) || !Object.hasOwn(value, 'invalid_call')) return undefined;
  const call = value['invalid_call'];
  return isFields(call) ? call : undefined;
}

/** Our fields a Segment call names its own way (`userId`, `context.ip`). */
const SEGMENT_PATHS: ReadonlyMap<string, string> = new Map([
  ['user_id', 'userId'],
  ['anonymous_id', 'anonymousId'],
  ['device.ip', 'context.ip'],
  ['device.user_agent', 'context.userAgent'],
]);

/**
 * The PII policy for a call as sent (the tag's form or a Segment call), whose fields are not yet
 * where the event contract puts them: each path also where such a call keeps it. `user.<field>`
 * also as the traits that fill it (core/translate/traits.ts: `traits.firstName`, in `address`,
 * in Segment's `context.traits`, and `event_data`, where an identify call keeps them),
 * `event_data.<field>` also at the top level and in Segment's `properties`, and the ids and
 * device fields under Segment's names.
 */
export function callPolicy(pii: PiiPolicy): PiiPolicy {
  const paths = (list: readonly string[]) => [
    ...new Set(
      list.flatMap((p) => {
        const segment = SEGMENT_PATHS.get(p);
        if (segment) return [p, segment];
        if (p.startsWith('event_data.')) {
          const field = p.slice('event_data.'.length);
          return [p, field, `properties.${field}`];
        }
        if (!p.startsWith('user.')) return [p];
        const names = traitNames(p.slice('user.'.length));
        return [
          p,
          ...names.flatMap((n) => [
            `traits.${n}`,
            `traits.address.${n}`,
            `context.traits.${n}`,
            `context.traits.address.${n}`,
            `event_data.${n}`,
          ]),
        ];
      }),
    ),
  ];
  return { hashInWarehouse: paths(pii.hashInWarehouse), drop: paths(pii.drop) };
}

/**
 * A call's identifiers in the event contract's names (`anonymous_id`, `user_id`, `user.email`),
 * for the erased persons' check: its traits (and Segment's `context.traits`) read as the tag's
 * form reads them, its own `user` group first.
 */
export function callIdentity(call: Fields): Fields {
  const traits = (v: unknown) => (isFields(v) ? traitsOf(v).user : {});
  const context = isFields(call['context']) ? call['context'] : {};
  return {
    anonymous_id: call['anonymous_id'] ?? call['anonymousId'],
    user_id: call['user_id'] ?? call['userId'],
    user: {
      ...traits(context['traits']),
      ...traits(call['traits']),
      ...(isFields(call['user']) ? call['user'] : {}),
    },
  };
}

/**
 * A call without what identifies a person (an erased person's, docs/privacy.md): what
 * stripIdentifiers removes from an event, and also the traits, Segment's ids and context (its
 * address, user agent and traits), and the traits an identify call's data holds.
 */
export function strippedCall(call: Fields): Fields {
  const { traits: _t, userId: _u, anonymousId: _a, context: _c, ...rest } = stripIdentifiers(call);
  const data = rest['event_data'];
  if ((rest['event_name'] === 'identify' || rest['type'] === 'identify') && isFields(data))
    rest['event_data'] = traitsOf(data).rest;
  return rest;
}
