/**
 * The one error style of the entry points (the gateway, the studio, the functions): a step
 * gives a value or the API error to answer with, returned rather than thrown, as the core's
 * failures are data (docs/style.md, "Errors"). Only what the caller cannot fix (an outage, a
 * bug) is thrown, and each entry point's outermost handler answers it 5xx.
 */
import { type ApiError, apiError, type ErrorCode } from './errors.ts';
import type { FieldViolation } from './validation.ts';

export type Step<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** A step that gives `value`. */
export const ok = <T>(value: T): Step<T> => ({ ok: true, value });

/** A step that fails with one of the registry's codes (core/errors.ts). */
export const fail = (
  code: ErrorCode,
  params: Record<string, string | number> = {},
  v: readonly FieldViolation[] = [],
) => ({ ok: false, error: apiError(code, params, v) }) as const;

/** A step that fails with an error already built (headers or violations added to it). */
export const refuse = (error: ApiError) => ({ ok: false, error }) as const;
