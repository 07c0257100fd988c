/** Pieces shared by the platform request schemas. */
import Type, { type TSchema } from 'typebox';
import type { FieldViolation } from '../validation.ts';

export const HASH_PATTERN = '^[a-f0-9]{64}$';
const HASH = new RegExp(HASH_PATTERN);

/** A lowercase SHA-256 hex digest. */
export const Hashed = Type.String({ pattern: HASH_PATTERN, description: 'SHA-256, lowercase hex' });
/** A digest or a non-empty list of digests (Meta and TikTok accept both). */
export const HashedOrList = Type.Union([Hashed, Type.Array(Hashed, { minItems: 1 })]);
/** Text or a non-empty list of texts. */
export const TextOrList = Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })]);

/** True when the value looks like a SHA-256 digest (used to catch hashed fields that must be sent as-is). */
export function looksHashed(value: unknown): boolean {
  return typeof value === 'string' && HASH.test(value.toLowerCase());
}

/** One line per violation, `field: description`, for a `rejected` reason. */
export function formatViolations(prefix: string, violations: readonly FieldViolation[]): string {
  return `${prefix}: ${violations.map((v) => `${v.field} ${v.description}`).join('; ')}`;
}

/**
 * A failed digest-or-list union gives one error per branch and element; these become one
 * violation per field that says what is expected.
 */
export function collapseHashed(
  violations: readonly FieldViolation[],
  fields: readonly string[],
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const seen = new Set<string>();
  for (const v of violations) {
    const base = fields.find((f) => v.field === f || v.field.startsWith(`${f}[`));
    if (base === undefined) {
      out.push(v);
    } else if (!seen.has(base)) {
      seen.add(base);
      out.push({
        field: base,
        description: 'must be SHA-256 lowercase hex (normalise, then hash), or a list of them',
      });
    }
  }
  return out;
}

/**
 * Checks a request whose events travel in `data` (Meta CAPI, TikTok Events API): each event
 * with the platform's own event check (so each failure carries the platform's wording), the
 * rest of the body against the request schema.
 */
export function checkDataRequest(
  body: unknown,
  maxEvents: number,
  requestValidator: { violations(value: unknown): FieldViolation[] },
  checkEvent: (event: unknown, prefix: string) => FieldViolation[],
): FieldViolation[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (Array.isArray(data) && data.length >= 1 && data.length <= maxEvents) {
    const perEvent = data.flatMap((e, i) => checkEvent(e, `data[${i}]`));
    const rest = requestValidator
      .violations({ ...(body as object), data: [] })
      .filter((v) => v.field !== 'data');
    return [...rest, ...perEvent];
  }
  const schema = requestValidator.violations(body);
  if (schema.length > 0) return schema;
  return (body as { data: unknown[] }).data.flatMap((e, i) => checkEvent(e, `data[${i}]`));
}

/** A request whose events travel in `data`, 1 to `max` of them (Pinterest, Snapchat). */
export const dataRequest = <T extends TSchema>(event: T, max: number) =>
  Type.Object({ data: Type.Array(event, { minItems: 1, maxItems: max }) }, { additionalProperties: false });

/** The fields a platform matches as sent (IP address, user agent, click ids) that arrived hashed. */
export function hashedPlainFields(
  userData: Readonly<Record<string, unknown>>,
  fields: readonly string[],
  at: (field: string) => string,
): FieldViolation[] {
  return fields
    .filter((f) => looksHashed(userData[f]))
    .map((f) => ({ field: at(`user_data.${f}`), description: 'must be sent as-is, not hashed' }));
}
