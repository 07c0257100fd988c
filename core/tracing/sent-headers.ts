/**
 * The headers of a webhook delivery as its `forward.call` span records them
 * (`eventbus.sent_headers`, docs/observability.md), for the debugger to show what was sent:
 * names and values, every credential replaced by `[redacted]` before it is recorded, so no
 * signature, token or key ever reaches the trace. A span holds nothing the producer sent (the
 * trace test searches every exported span for the event's id, user, e-mail…): only the headers
 * this project composes from its own values keep theirs; the event's id (`x-eventbus-event-id`,
 * CloudEvents `ce-subject`) and any header a destination's settings add are `[withheld]`.
 */

/** The span attribute holding them: a JSON object, names in lower case, sorted. */
export const SENT_HEADERS_ATTRIBUTE = 'eventbus.sent_headers';

/** Shown instead of a credential's value. */
export const REDACTED = '[redacted]';

/** Header names whose value is a credential: signatures, authorization, keys, tokens, cookies. */
const SECRET_NAME = /signature|authorization|auth|token|secret|key|cookie|password/;

/** Shown instead of a value that may carry what the producer sent. */
export const WITHHELD = '[withheld]';

/**
 * Headers whose values are ours alone (the delivery id, timestamps, the format's constants, the
 * event's name, the trace context): recorded as sent.
 */
const OURS =
  /^(content-type|content-length|user-agent|traceparent|tracestate|webhook-id|webhook-timestamp|x-eventbus-(timestamp|delivery-id|event-name|test)|ce-(id|specversion|type|source|time|datacontenttype))$/;

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
      : !OURS.test(lower)
        ? WITHHELD
        : value.length > VALUE_MAX
          ? `${value.slice(0, VALUE_MAX)}…`
          : value;
  }
  return JSON.stringify(out);
}
