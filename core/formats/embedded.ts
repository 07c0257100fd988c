/**
 * Text that holds more inside it (docs/translators.md, "JSON inside a value"): base64 of UTF-8
 * text, and JSON text (a form field holding JSON, Snowplow's `ue_px` after base64), decoded under
 * the bounds a body has. The translators' `base64` and `json` transforms
 * (core/translate/transforms.ts) and the creator's samples (core/samples/) both read with these.
 * Pure.
 */
import { shown } from '../definitions/event-validator.ts';
import { exceedsDepth, inspectJson } from '../json-limits.ts';

export type Step =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly why: string };

const ok = (value: unknown): Step => ({ ok: true, value });
const fail = (why: string): Step => ({ ok: false, why });
const text = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/** Decoded base64 (standard or URL-safe alphabet, padding optional) as UTF-8 text, or why not. */
export function base64Text(value: unknown): Step {
  const s = text(value)?.trim();
  if (s === undefined || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(s) || s.length % 4 === 1)
    return fail(`expected base64, got ${shown(value)}`);
  // atob and TextDecoder, not Buffer: the creator's page runs this in the browser too.
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  } catch {
    return fail(`expected base64, got ${shown(value)}`);
  }
  try {
    return ok(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return fail('the base64 does not hold UTF-8 text');
  }
}

/** JSON text inside a value (a form field holding JSON, Snowplow's `ue_px`) is at most this long. */
export const EMBEDDED_JSON_MAX_CHARS = 256 * 1024;
/** … and nests at most this deep (the body's own depth check does not see inside a string). */
export const EMBEDDED_JSON_MAX_DEPTH = 32;

/**
 * JSON held in a string, parsed (an object or list stays as it is), under the same bounds as a
 * body: its length and depth checked before the parser runs (json-limits.ts exceedsDepth), then
 * no forbidden key (`__proto__`), lone surrogate or out-of-range number (inspectJson).
 */
export function jsonValue(value: unknown): Step {
  if (typeof value !== 'string') return ok(value);
  if (value.length > EMBEDDED_JSON_MAX_CHARS)
    return fail(`the JSON text is ${value.length} characters; at most ${EMBEDDED_JSON_MAX_CHARS}`);
  if (exceedsDepth(new TextEncoder().encode(value), EMBEDDED_JSON_MAX_DEPTH))
    return fail(`the JSON text nests deeper than ${EMBEDDED_JSON_MAX_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    return fail(`expected JSON text: ${(err as Error).message.slice(0, 120)}`);
  }
  const problem = inspectJson(parsed);
  if (problem)
    return fail(
      `the JSON text has ${problem.kind === 'forbidden_key' ? `the key ${problem.key}` : problem.kind.replace(/_/g, ' ')} at ${problem.field || '(root)'}`,
    );
  return ok(parsed);
}
