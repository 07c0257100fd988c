/**
 * A loopback Reddit Conversions API v3 (`POST /api/v3/pixels/{pixel_id}/conversion_events`,
 * `Authorization: Bearer`, `{data: {events, test_id?, partner?}}` of 1 to 1,000 events), checking
 * requests against Reddit's published rules (docs/platforms.md, Reddit) and refusing a request
 * with a message naming the field (`invalid action_source: web`). Written out again on purpose,
 * not imported from core/platforms/reddit/: the stand-in checks the driver.
 */
import {
  type Answer,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

const LIMIT = 1000;
const SOURCES = ['WEBSITE', 'APP', 'PHYSICAL_STORE', 'OTHER'];
const TYPES = [
  'PAGE_VISIT',
  'VIEW_CONTENT',
  'SEARCH',
  'ADD_TO_CART',
  'ADD_TO_WISHLIST',
  'PURCHASE',
  'LEAD',
  'SIGN_UP',
  'CUSTOM',
];
const EVENT_KEYS = new Set([
  'event_at',
  'action_source',
  'type',
  'click_id',
  'event_source_url',
  'metadata',
  'user',
]);
const HASHED = ['email', 'phone_number', 'external_id', 'ip_address', 'idfa', 'aaid'];

const redditError = (status: number, code: string, message: string, problems: string[] = []): Answer => ({
  status,
  problems: problems.length > 0 ? problems : [message],
  body: { error: { code, message } },
});

function eventProblems(e: unknown, i: number, now: Date): string[] {
  if (!isObject(e)) return [`events[${i}] must be an object`];
  const out: string[] = [];
  for (const k of Object.keys(e)) if (!EVENT_KEYS.has(k)) out.push(`unknown field ${k}`);
  const t = e['event_at'];
  if (!Number.isInteger(t) || (t as number) < 1e11)
    out.push(`invalid event_at: ${String(t)} (epoch milliseconds)`);
  else if ((t as number) < now.getTime() - 7 * 86_400_000) out.push('invalid event_at: older than 7 days');
  if (!SOURCES.includes(e['action_source'] as string))
    out.push(`invalid action_source: ${String(e['action_source'])}`);
  const type = isObject(e['type']) ? e['type'] : {};
  if (!TYPES.includes(type['tracking_type'] as string))
    out.push(`invalid type.tracking_type: ${String(type['tracking_type'])}`);
  if (type['tracking_type'] === 'CUSTOM' && typeof type['custom_event_name'] !== 'string')
    out.push('type.custom_event_name is required for CUSTOM');
  const user = isObject(e['user']) ? e['user'] : {};
  for (const f of HASHED)
    if (user[f] !== undefined && !(typeof user[f] === 'string' && SHA256_HEX.test(user[f] as string)))
      out.push(`invalid user.${f}: must be SHA-256 hashed`);
  return out;
}

/** Starts the Reddit stand-in. `accessToken`, when given, is the only token it accepts. */
export function startRedditReceiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  return startPlatformServer(({ method, path, headers, body }) => {
    if (method !== 'POST' || !/^\/api\/v3\/pixels\/[^/]+\/conversion_events$/.test(path))
      return redditError(404, 'NOT_FOUND', `no route ${method} ${path}`);
    const token = /^Bearer (.+)$/.exec(headers['authorization'] ?? '')?.[1];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return redditError(401, 'UNAUTHORIZED', 'invalid or expired conversion access token');
    const data = isObject(body) && isObject(body['data']) ? body['data'] : undefined;
    if (data === undefined) return redditError(400, 'INVALID_REQUEST', 'data is required');
    const unknown = Object.keys(data).filter((k) => !['events', 'test_id', 'partner'].includes(k));
    if (unknown.length > 0) return redditError(400, 'INVALID_REQUEST', `unknown field ${unknown[0]}`);
    const events = data['events'];
    if (!Array.isArray(events) || events.length === 0 || events.length > LIMIT)
      return redditError(
        400,
        'INVALID_REQUEST',
        `data.events must hold 1 to ${LIMIT} events, got ${Array.isArray(events) ? events.length : 'none'}`,
      );
    const problems = events.flatMap((e, i) => eventProblems(e, i, now()));
    if (problems.length > 0)
      return redditError(400, 'INVALID_REQUEST', problems.slice(0, 5).join('; '), problems);
    return { status: 200, body: { message: `${events.length} conversion events received` } };
  });
}
