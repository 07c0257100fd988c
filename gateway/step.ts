/**
 * The small vocabulary the gateway's steps share: a step either gives a value or the API
 * error to answer with.
 */
import { type ApiError, apiError, type ErrorCode } from '../core/errors.ts';
import type { FieldViolation } from '../core/validation.ts';

export type Step<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export const fail = (
  code: ErrorCode,
  params: Record<string, string | number> = {},
  v: FieldViolation[] = [],
) => ({ ok: false, error: apiError(code, params, v) }) as const;

/** What kind of JSON value this is, in words for an error message. */
export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** A caller's text cut to a length an error message can carry. */
export function truncate(s: string, n = 100): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/**
 * A value now, or a promise of it. The gateway's steps answer a common request (a known token,
 * a body already received, definitions in memory) synchronously: each promise and microtask hop
 * on the hot path costs CPU per request (docs/gateway.md, "Performance").
 */
export type Now<T> = T | Promise<T>;

/** `f` of a value now, or once its promise resolves. */
export function after<T, U>(v: Now<T>, f: (value: T) => Now<U>): Now<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}
