/**
 * The words the gateway's steps put in their error messages. The `Step` type and its builders
 * are every entry point's, in core/step.ts.
 */

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
