/**
 * CORS preflights (docs/gateway.md, "CORS"): answered for every path, routed or not, so a browser
 * shows the real status of the request that follows (a 404 with CORS headers) rather than a CORS
 * error that hides it. Allowed for the environment's origins (`producers.origins`), the methods
 * the gateway serves and the headers the browser SDKs send; a refused preflight is a 403 recorded
 * like every refusal (the refusal log line, and `gateway_refusals` through the recorder).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError } from '../core/errors.ts';
import { type Runtime, refused, sendError } from './runtime.ts';

/** What a browser may send besides CORS-safelisted methods and headers. */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'] as const;

/**
 * The request headers a preflight may ask for: ours, and what the browser SDKs set (their
 * sources in node_modules: @segment/analytics-next's dispatchers, @rudderstack/analytics-js's
 * XhrQueue, @jitsu/js's `send`). A header not listed makes the browser drop the request, so a
 * preflight asking for one is refused here, where it is recorded, instead.
 */
export const ALLOWED_HEADERS: readonly string[] = Object.freeze([
  // ours
  'content-type',
  'content-encoding',
  'x-write-key',
  'authorization',
  'idempotency-key',
  // Analytics.js: its retry count
  'x-retry-count',
  // RudderStack: the anonymous id (base64) and send time on every request, Rsa-* on retries
  'anonymousid',
  'sentat',
  'rsa-recovered',
  'rsa-retry-attempt',
  'rsa-since-last-attempt',
  'rsa-since-first-attempt',
  'rsa-retry-reason',
  // Jitsu: its debug switch and IP policy (read by Jitsu's own server; ignored here)
  'x-enable-debug',
  'x-ip-policy',
  // Snowplow's trackers: server-side anonymisation asked for (@snowplow/tracker-core's emitter
  // request; gateway/collect-paths.ts then keeps no address)
  'sp-anonymous',
]);
const ALLOWED_HEADER_SET: ReadonlySet<string> = new Set(ALLOWED_HEADERS);
const ALLOW_HEADERS_VALUE = ALLOWED_HEADERS.join(', ');
const ALLOW_METHODS_VALUE = ALLOWED_METHODS.join(', ');

/** Why a preflight is refused, or undefined: an origin not listed, a method or headers not allowed. */
export function preflightProblem(
  origins: ReadonlySet<string>,
  origin: string | undefined,
  method: string | undefined,
  headers: string | undefined,
): { reason: string; detail: string } | undefined {
  if (!origin || !origins.has(origin))
    return { reason: 'preflight_origin', detail: `origin ${origin ?? '(none)'} is not in producers.origins` };
  if (method && !(ALLOWED_METHODS as readonly string[]).includes(method.toUpperCase()))
    return { reason: 'preflight_method', detail: `method ${method} is not served` };
  const refusedHeaders = (headers ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '' && !ALLOWED_HEADER_SET.has(h));
  if (refusedHeaders.length > 0)
    return {
      reason: 'preflight_headers',
      detail: `header(s) ${refusedHeaders.join(', ')} are not allowed (allowed: ${ALLOW_HEADERS_VALUE})`,
    };
  return undefined;
}

/**
 * A browser's CORS preflight, on any path: 204 with the CORS headers for a listed origin asking
 * for what the gateway allows, so the real request then gets its real answer (a 404 included);
 * else 403, logged and recorded with the reason (`preflight_origin`, `preflight_method`,
 * `preflight_headers`), since the browser itself reports nothing to the gateway. `credentials`:
 * the path's senders send with credentials (Snowplow's trackers fetch with `credentials:
 * 'include'`), which a browser allows only when told so; the gateway authenticates nothing by cookie, so the
 * allowance gives a page nothing it did not have.
 */
export function preflight(rt: Runtime, req: IncomingMessage, res: ServerResponse, credentials = false): void {
  const origin = req.headers.origin;
  const problem = preflightProblem(
    rt.origins,
    origin,
    req.headers['access-control-request-method'],
    req.headers['access-control-request-headers'],
  );
  if (problem) {
    const e =
      problem.reason === 'preflight_origin'
        ? apiError('ORIGIN_NOT_ALLOWED', { origin: origin ?? '(none)' })
        : apiError('PERMISSION_DENIED', { detail: `CORS preflight refused: ${problem.detail}` });
    refused(rt, req, e, undefined, { size: undefined, reason: problem.reason });
    sendError(rt, req, res, e, true);
    return;
  }
  res.writeHead(204, {
    'access-control-allow-origin': origin as string,
    'access-control-allow-methods': ALLOW_METHODS_VALUE,
    'access-control-allow-headers': ALLOW_HEADERS_VALUE,
    'access-control-max-age': '600',
    ...(credentials ? { 'access-control-allow-credentials': 'true' } : {}),
    vary: 'Origin',
  });
  res.end();
}
