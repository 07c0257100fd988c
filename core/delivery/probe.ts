/**
 * The open breaker's probe (breaker.ts), without an event in it (docs/delivery.md, "A destination
 * that stops answering"). A destination that hangs reads every request it is sent and handles it
 * when it runs again, so a probe that carried an event would be a copy of that event the
 * destination receives later, after the event has been sent again. The probe asks only whether
 * the destination's host answers at all: a `HEAD` of the delivery's own URL, without its query
 * (which may hold a token), its body or its headers. Any HTTP answer, an error status too, is an
 * answer; the event itself goes only after one.
 *
 * `HEAD` is safe by definition (RFC 9110 §9.2.1: no effect on the server's state asked for), and
 * it leaves through the egress gate like every request, so a host the gate refuses is never
 * probed. A driver that makes its own requests (the catalogue's Segment actions) has no request
 * to take the URL from: its probe is the delivery itself, as before.
 */
import type { OutboundRequest } from '../platforms/driver.ts';

/** The eventless probe for a delivery's request: HEAD of its URL without the query or fragment. */
export function probeRequest(request: OutboundRequest): OutboundRequest {
  const url = withoutQuery(request.url);
  return { method: 'HEAD', url, redactedUrl: url, headers: {}, body: '' };
}

function withoutQuery(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.origin}${url.pathname}`;
  } catch {
    // Not a URL the sender could call either: the gate refuses it, as it refuses the delivery.
    return raw.split(/[?#]/, 1)[0] ?? raw;
  }
}
