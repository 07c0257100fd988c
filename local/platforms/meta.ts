/**
 * A loopback Meta Conversions API (`POST /{version}/{pixel}/events?access_token=`), checking
 * requests against Meta's published rules (docs/platforms.md §1) and answering in Graph API shapes.
 */
import {
  type Answer,
  isHashed,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

const ACTION_SOURCES = [
  'email',
  'website',
  'app',
  'phone_call',
  'chat',
  'physical_store',
  'system_generated',
  'business_messaging',
  'other',
];
const HASHED = ['em', 'ph', 'fn', 'ln', 'ge', 'db', 'ct', 'st', 'zp', 'country'];
const PLAIN = ['client_ip_address', 'client_user_agent', 'fbc', 'fbp'];

const graphError = (
  status: number,
  code: number,
  message: string,
  subcode?: number,
  problems: string[] = [],
): Answer => ({
  status,
  problems: problems.length > 0 ? problems : [message],
  body: {
    error: {
      message,
      type: 'OAuthException',
      code,
      ...(subcode !== undefined ? { error_subcode: subcode } : {}),
      is_transient: false,
      error_user_title: message,
      error_user_msg: problems.join('; ') || message,
      fbtrace_id: 'AbCdEfGh123',
    },
  },
});

/** Starts the Meta receiver. Answers 200 `{events_received, messages, fbtrace_id}` or a Graph error. */
export function startMetaReceiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  return startPlatformServer(({ method, path, query, body }) => {
    if (method !== 'POST' || !/^\/v\d+\.\d+\/\d+\/events$/.test(path))
      return graphError(400, 2500, `Unknown path components: ${path}`);
    const token = query['access_token'];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (!isObject(body) || !Array.isArray(body['data']))
      return graphError(400, 100, '(#100) The parameter data is required');
    const data = body['data'] as unknown[];
    if (data.length === 0 || data.length > 1000)
      return graphError(400, 100, `(#100) data must hold 1 to 1000 events, got ${data.length}`);
    const nowS = Math.floor(now().getTime() / 1000);
    const problems: string[] = [];
    for (const [i, e] of data.entries()) {
      const at = `data[${i}]`;
      if (!isObject(e)) {
        problems.push(`${at} is not an object`);
        continue;
      }
      if (typeof e['event_name'] !== 'string' || e['event_name'] === '')
        problems.push(`${at}.event_name is required`);
      const t = e['event_time'];
      if (!Number.isInteger(t)) problems.push(`${at}.event_time must be an integer (unix seconds)`);
      else {
        const limit = (e['action_source'] === 'physical_store' ? 62 : 7) * 86400;
        // Whole request refused: Meta's documented behaviour for the 7-day window.
        if ((t as number) < nowS - limit)
          return graphError(400, 100, 'Invalid parameter', 2804003, [
            `${at}.event_time: Event Timestamp Too Old`,
          ]);
        if ((t as number) > 1e11) problems.push(`${at}.event_time looks like milliseconds`);
      }
      if (!ACTION_SOURCES.includes(e['action_source'] as string))
        problems.push(`${at}.action_source is invalid`);
      const user = e['user_data'];
      if (!isObject(user)) {
        problems.push(`${at}.user_data is required`);
        continue;
      }
      if (e['action_source'] === 'website') {
        if (typeof user['client_user_agent'] !== 'string')
          problems.push(`${at}.user_data.client_user_agent is required for website events`);
        if (typeof e['event_source_url'] !== 'string')
          problems.push(`${at}.event_source_url is required for website events`);
      }
      for (const f of HASHED)
        if (user[f] !== undefined && !isHashed(user[f]))
          problems.push(`${at}.user_data.${f} must be SHA-256 hashed`);
      for (const f of PLAIN)
        if (typeof user[f] === 'string' && SHA256_HEX.test(user[f] as string))
          problems.push(`${at}.user_data.${f} must not be hashed`);
      if (e['event_name'] === 'Purchase') {
        const c = e['custom_data'];
        if (!isObject(c) || typeof c['value'] !== 'number' || typeof c['currency'] !== 'string')
          problems.push(`${at}.custom_data.value and currency are required for Purchase`);
      }
    }
    if (problems.length > 0) return graphError(400, 100, '(#100) Invalid parameter', undefined, problems);
    return { status: 200, body: { events_received: data.length, messages: [], fbtrace_id: 'AbCdEfGh123' } };
  });
}
