/**
 * The headers of a webhook delivery as its `forward.call` span records them
 * (`eventbus.sent_headers`, docs/observability.md), for the debugger to show what was sent:
 * names and values, every credential replaced by `[redacted]` before it is recorded, so no
 * signature, token or key ever reaches the trace.
 */

/** The span attribute holding them: a JSON object, names in lower case, sorted. */
export const SENT_HEADERS_ATTRIBUTE = 'eventbus.sent_headers';

/** Shown instead of a credential's value. */
export const REDACTED = '[redacted]';

/** Header names whose value is a credential: signatures, authorization, keys, tokens, cookies. */
const SECRET_NAME = /signature|authorization|auth|token|secret|key|cookie|password/;

/** Longest value kept (a longer one is cut, with `…`); the whole attribute stays small. */
const VALUE_MAX = 200;

/** The headers as the span records them (credentials redacted, values bounded), as JSON. */
export function sentHeaders(headers: Readonly<Record<string, string>>): string {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    const lower = name.toLowerCase();
    const value = headers[name] ?? '';
    out[lower] = SECRET_NAME.test(lower)
      ? REDACTED
      : value.length > VALUE_MAX
        ? `${value.slice(0, VALUE_MAX)}…`
        : value;
  }
  return JSON.stringify(out);
}
