/**
 * What the studio checks of a request before it acts on it (docs/security.md#the-studio):
 * - a state-changing request (POST, PUT, PATCH, DELETE) from a browser comes from the studio's
 *   own origin (the cross-site request forgery defence);
 * - a body is JSON (`application/json` or a `+json` type), read with the gateway's reader
 *   (gateway/body.ts): capped, cut at 10 s, its nesting bounded before it is parsed;
 * - the path is valid percent-encoding, and every resource name in it follows its kind's rule.
 * Each check returns a Step (core/step.ts): a failure is the 4xx to answer, in the error envelope.
 */
import type { IncomingMessage } from 'node:http';
import type { RegistryKind } from '../core/registry/registry.ts';
import { fail, ok, type Step } from '../core/step.ts';
import { decodeJson, mediaAccepted, readRawBody } from '../gateway/body.ts';
import { eventNameProblem } from '../schemas/catalogue.ts';
import { RESOURCE_NAME_PATTERN } from '../schemas/resource.ts';

/** The largest body the admin API reads (an apply of many documents fits well within). */
export const STUDIO_MAX_BODY_BYTES = 4 << 20;
/** How deep a body's JSON may nest: resource documents nest far less. */
const STUDIO_MAX_DEPTH = 64;
/** How long a body may take to arrive, as at the gateway (gateway/server.ts bodyTimeoutMs). */
export const STUDIO_BODY_TIMEOUT_MS = 10_000;

/** What the admin API takes as a body: JSON, under its own or a structured-syntax type. */
const JSON_TYPES = ['application/json', '+json'] as const;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request may change something: every method but GET, HEAD and OPTIONS. */
export const changesState = (method: string): boolean => !SAFE_METHODS.has(method);

/** Whether a request carries a body (a length over 0, or a chunked one). */
const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** Whether a request has a body not yet read whole: an answer now should close the connection. */
export const bodyUnread = (req: IncomingMessage): boolean => hasBody(req) && !req.complete;

const first = (v: string | string[] | undefined): string | undefined =>
  (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim() || undefined;

/**
 * Why a state-changing request must be refused as cross-site, or undefined.
 *
 * A browser names the page's origin in `Origin` on every POST, PUT, PATCH and DELETE (same-origin
 * ones too); it must name this studio: its host (with port) is the request's `Host`, or
 * `X-Forwarded-Host` when a proxy in front rewrote Host. Trusting the forwarded header is safe
 * here: a cross-site page cannot add it without a CORS preflight, which the studio never
 * grants. The scheme is not compared (behind Cloud Run the studio sees plain HTTP). Without
 * `Origin`, `Sec-Fetch-Site` (sent by current browsers) must not say `cross-site` or
 * `same-site` (a sibling subdomain is another party). A request with neither is not a
 * browser's (the CLI, curl): it proves itself with its credential alone. `origins` are more
 * origins to take as the studio's own (EVENTBUS_STUDIO_ORIGINS: a proxy that rewrites Host and
 * says nothing, like `gcloud run services proxy` on localhost).
 */
export function crossSiteProblem(req: IncomingMessage, origins: readonly string[] = []): string | undefined {
  const origin = first(req.headers.origin);
  if (origin === undefined) {
    const site = first(req.headers['sec-fetch-site'])?.toLowerCase();
    return site === 'cross-site' || site === 'same-site'
      ? `a ${site} request (Sec-Fetch-Site) may not change the studio`
      : undefined;
  }
  if (origins.includes(origin)) return undefined;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return `the origin ${origin} is not the studio's`;
  }
  if (origin === 'null' || (from.protocol !== 'http:' && from.protocol !== 'https:'))
    return `the origin ${origin} is not the studio's`;
  const own = [first(req.headers.host), first(req.headers['x-forwarded-host'])]
    .filter((h): h is string => h !== undefined)
    .map((h) => {
      try {
        // Parsed with the origin's scheme, so a default port (:443, :80) compares as absent.
        return new URL(`${from.protocol}//${h}`).host;
      } catch {
        return undefined;
      }
    });
  return own.includes(from.host) ? undefined : `the origin ${origin} is not the studio's`;
}

/**
 * Refuses what a state-changing request must not be, before anyone is authenticated: from
 * another site (403), or with a body that is not JSON (415), so a form or a `text/plain` fetch
 * from another page is turned away whatever cookie or header it carries.
 */
export function guardStateChange(
  req: IncomingMessage,
  method: string,
  origins: readonly string[] = [],
): Step<void> {
  if (!changesState(method)) return ok(undefined);
  const problem = crossSiteProblem(req, origins);
  if (problem) return fail('PERMISSION_DENIED', { detail: problem });
  if (!hasBody(req)) return ok(undefined);
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!mediaAccepted(type, JSON_TYPES))
    return fail('UNSUPPORTED_MEDIA_TYPE', {
      type: type === '' ? '(none)' : type.slice(0, 100),
      accepted: 'application/json or */*+json',
    });
  return ok(undefined);
}

/** A request's JSON body through the gateway's reader: capped, cut after 10 s, depth-bounded. */
export async function readJsonBody(
  req: IncomingMessage,
  timeoutMs = STUDIO_BODY_TIMEOUT_MS,
): Promise<Step<unknown>> {
  const raw = await readRawBody(req, { maxRequestBytes: STUDIO_MAX_BODY_BYTES }, timeoutMs, JSON_TYPES, [
    'utf-8',
    'utf8',
  ]);
  return raw.ok ? decodeJson(raw.value.bytes, STUDIO_MAX_DEPTH) : raw;
}

/** The path's segments, decoded; malformed percent-encoding is the caller's error (400). */
export function pathSegments(pathname: string): Step<string[]> {
  try {
    return ok(pathname.split('/').filter(Boolean).map(decodeURIComponent));
  } catch {
    return fail('INVALID_REQUEST', { detail: 'The path is not valid percent-encoding (RFC 3986).' });
  }
}

const namePattern = new RegExp(RESOURCE_NAME_PATTERN);

/**
 * Why `name` cannot name a resource of `kind`, or undefined: the rule apply checks
 * (core/registry/resources.ts), shared by every route and action that takes a name, so `__proto__`,
 * `a/b` or 200 characters are refused before anything is looked up.
 */
export function resourceNameProblem(kind: RegistryKind, name: string): string | undefined {
  if (kind === 'EventDefinition') return eventNameProblem(name);
  return namePattern.test(name) ? undefined : `must match ${RESOURCE_NAME_PATTERN}`;
}

/** The name, or a 400 naming `field` and the rule it breaks. */
export function checkedName(kind: RegistryKind, name: unknown, field: string): Step<string> {
  const problem =
    typeof name === 'string' ? resourceNameProblem(kind, name) : `must be a ${kind} name (a string)`;
  if (problem === undefined) return ok(name as string);
  const description = `${kind} name ${JSON.stringify(name)?.slice(0, 80)} ${problem}`;
  return invalidField(field, description, description);
}

/**
 * A 400 naming one field of the request and what is wrong with it; the message says the same
 * (or `detail`, when it should lead with something else).
 */
export const invalidField = (field: string, description: string, detail = `${field} ${description}`) =>
  fail('INVALID_REQUEST', { detail }, [{ field, description }]);

/** A 400 for a request field's first problem, as core/ checks name them; undefined when none. */
export const invalidProblem = (problem: { field: string; description: string } | undefined) =>
  problem ? invalidField(problem.field, problem.description) : undefined;

/** A 400 (FAILED_PRECONDITION) for what an action needs but this studio was started without. */
export const notConfigured = (what: string) => fail('NOT_CONFIGURED', { detail: what });
