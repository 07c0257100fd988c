/**
 * What the decision layer's conditions and the rules' criteria share: regular expressions with
 * RE2 semantics (re2js: linear time, so no pattern can stall storage or forwarding, and the same
 * dialect as BigQuery's REGEXP_CONTAINS, so a rule tested in SQL means the same here), and the
 * checks of one condition's value. Pure.
 */
import { RE2JS } from 're2js';
import type { Condition } from '../schemas/settings.ts';
import type { FieldViolation } from './validation.ts';

const patterns = new Map<string, RE2JS | null>();

/**
 * The longest pattern (UTF-8 bytes): RE2 runs in linear time, but in the size of the pattern too,
 * and a 1 MB pattern tripled `store`'s latency for every event it was tried on. Real conditions
 * are a few dozen bytes; 16 KiB leaves room for long alternations of ids.
 */
export const MAX_PATTERN_BYTES = 16 * 1024;
const utf8 = new TextEncoder();
const tooLong = (pattern: string): boolean =>
  pattern.length > MAX_PATTERN_BYTES || utf8.encode(pattern).length > MAX_PATTERN_BYTES;

/**
 * The compiled pattern, or null when it is not a valid RE2 expression or is longer than
 * MAX_PATTERN_BYTES (cached either way): settings and rules are checked when applied, this
 * keeps one that slipped past from costing more than a refusal.
 */
export function compilePattern(pattern: string): RE2JS | null {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = tooLong(pattern) ? null : RE2JS.compile(pattern);
    } catch {
      re = null;
    }
    if (patterns.size > 1000) patterns.clear();
    patterns.set(pattern, re);
  }
  return re;
}

/** Whether a string contains a match (REGEXP_CONTAINS); an invalid pattern never matches (fail closed). */
export function patternMatches(actual: unknown, pattern: unknown): boolean {
  if (typeof actual !== 'string' || typeof pattern !== 'string') return false;
  return compilePattern(pattern)?.matcher(actual).find() ?? false;
}

/** Why a pattern is refused, or undefined. */
export function patternProblem(pattern: string): string | undefined {
  if (tooLong(pattern))
    return `is longer than ${MAX_PATTERN_BYTES / 1024} KiB: match fewer alternatives, or test the list in SQL`;
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return `is not a valid RE2 regular expression (the dialect of BigQuery's REGEXP_CONTAINS): ${(err as Error).message}`;
  }
}

/** The problems of one condition's value for its operator (`field` names the value). */
export function conditionProblems(c: Readonly<Condition>, field: string): FieldViolation[] {
  const errors: FieldViolation[] = [];
  const needsValue = c.op !== 'exists' && c.op !== 'not_exists';
  if (needsValue && c.value === undefined) errors.push({ field, description: `is required for ${c.op}` });
  if ((c.op === 'in' || c.op === 'not_in') && c.value !== undefined && !Array.isArray(c.value))
    errors.push({ field, description: `must be a list for ${c.op}` });
  if (['gt', 'gte', 'lt', 'lte'].includes(c.op) && c.value !== undefined) {
    if (typeof c.value !== 'number' && typeof c.value !== 'string')
      errors.push({ field, description: `must be a number or a string for ${c.op}` });
  }
  if (c.op === 'between' && c.value !== undefined) {
    const v = c.value;
    const ok =
      Array.isArray(v) &&
      v.length === 2 &&
      ((typeof v[0] === 'number' && typeof v[1] === 'number' && v[0] <= v[1]) ||
        (typeof v[0] === 'string' && typeof v[1] === 'string' && v[0] <= v[1]));
    if (!ok)
      errors.push({ field, description: 'must be [low, high] (two numbers or two strings, low ≤ high)' });
  }
  if (c.op === 'matches') {
    if (typeof c.value !== 'string')
      errors.push({ field, description: 'must be a regular expression string' });
    else {
      const why = patternProblem(c.value);
      if (why) errors.push({ field, description: why });
    }
  }
  return errors;
}
