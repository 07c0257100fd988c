/**
 * Limits on untrusted JSON that must hold before (nesting depth, on the raw bytes) and right
 * after parsing (forbidden keys, lone surrogates, numbers JSON.parse turned into Infinity).
 * Pure; shared by the gateway and the store function.
 */
import type { Settings } from '../schemas/settings.ts';

/** The limits of docs/architecture.md §3, resolved from settings. */
export interface Limits {
  readonly maxEventBytes: number;
  readonly maxRequestBytes: number;
  readonly maxEventsPerRequest: number;
  readonly maxDepth: number;
  readonly maxAttributes: number;
  readonly eventTimePastMs: number;
  readonly eventTimeFutureMs: number;
}

const DAY_MS = 86_400_000;

/** Resolves the settings' `limits` block with the defaults of docs/architecture.md §3. */
export function limitsOf(settings: Readonly<Pick<Settings, 'limits'>>): Limits {
  const l = settings.limits ?? {};
  return Object.freeze({
    maxEventBytes: l.max_event_bytes ?? 1_048_576,
    maxRequestBytes: l.max_request_bytes ?? 10_000_000,
    maxEventsPerRequest: l.max_events_per_request ?? 1000,
    maxDepth: l.max_depth ?? 32,
    maxAttributes: l.max_attributes ?? 100,
    eventTimePastMs: (l.event_time_past_days ?? 1826) * DAY_MS,
    eventTimeFutureMs: (l.event_time_future_hours ?? 24) * 3_600_000,
  });
}

/**
 * Scans raw JSON bytes and returns true when objects/arrays nest deeper than `maxDepth`.
 * Runs before JSON.parse so a 100,000-deep body never reaches the parser's recursion.
 * Brackets inside strings are skipped (escapes included); invalid JSON is left to the parser.
 */
export function exceedsDepth(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    let b = bytes[i] as number;
    if (b === 0x22) {
      // A string is skipped in its own tight loop: most bytes of an event are string content,
      // and one branch per byte there halves the scan (~1.1 -> ~0.5 us per 200-byte event).
      for (i++; i < n; i++) {
        b = bytes[i] as number;
        if (b === 0x22) break;
        if (b === 0x5c) i++; // backslash: skip the escaped byte (\" must not end the string)
      }
    } else if (b === 0x7b || b === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}

/** Keys that could reach a prototype if any consumer copies objects naively. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** What is wrong with a parsed JSON value, at which field path. */
export type JsonProblem =
  | { readonly kind: 'forbidden_key'; readonly field: string; readonly key: string }
  | { readonly kind: 'lone_surrogate'; readonly field: string }
  | { readonly kind: 'number_out_of_range'; readonly field: string };

/**
 * Walks a parsed JSON value and returns the first problem: a forbidden key, a string or key
 * with a lone UTF-16 surrogate (escaped as \uD800 in JSON: not storable as UTF-8), or a number
 * too large for a double (JSON.parse gives Infinity for 1e400).
 */
export function inspectJson(value: unknown, path = ''): JsonProblem | undefined {
  // Fast path without building paths: events are almost always clean, so the path of a
  // problem is only worked out (by the slow walk) once one is known to exist.
  return isClean(value) ? undefined : locate(value, path);
}

function isClean(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (typeof value === 'number') return Number.isFinite(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isClean(value[i])) return false;
    return true;
  }
  for (const key in value) {
    // FORBIDDEN_KEYS spelled out: parsed keys are internalized, so each test is a pointer compare.
    if (key === '__proto__' || key === 'constructor' || key === 'prototype' || !key.isWellFormed())
      return false;
    if (!isClean((value as Record<string, unknown>)[key])) return false;
  }
  // `for…in` skips an own "__proto__" key only if it is not enumerable, which JSON.parse never makes.
  return true;
}

function locate(value: unknown, path: string): JsonProblem | undefined {
  if (typeof value === 'string') {
    return value.isWellFormed() ? undefined : { kind: 'lone_surrogate', field: path || '(root)' };
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { kind: 'number_out_of_range', field: path || '(root)' };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = locate(value[i], `${path}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const field = path === '' ? safeKey(key) : `${path}.${safeKey(key)}`;
      if (FORBIDDEN_KEYS.has(key)) return { kind: 'forbidden_key', field, key };
      if (!key.isWellFormed()) return { kind: 'lone_surrogate', field: path || '(root)' };
      const p = locate((value as Record<string, unknown>)[key], field);
      if (p) return p;
    }
  }
  return undefined;
}

function safeKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key.toWellFormed());
}
