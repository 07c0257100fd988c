/**
 * A loopback TikTok Events API 2.0 (`POST /open_api/v1.3/event/track/`, `Access-Token` header),
 * answering HTTP 200 with `{code, message, request_id, data}` as TikTok does (docs/platforms.md §3);
 * `40002` names each field TikTok's rules refuse (a hashed field in clear, a content without its id).
 */
import {
  type Answer,
  isHashed,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  startPlatformServer,
} from './server.ts';

const SOURCES = ['web', 'app', 'offline', 'crm'];

const reply = (code: number, message: string, problems: string[] = []): Answer => ({
  status: 200,
  problems,
  body: { code, message, request_id: '2024111608000001', data: {} },
});

/** Starts the TikTok receiver. */
export function startTikTokReceiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  return startPlatformServer(({ method, path, headers, body }) => {
    if (method !== 'POST' || path !== '/open_api/v1.3/event/track/')
      return { status: 404, problems: [`no route ${path}`] };
    const token = headers['access-token'];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return reply(40001, 'No permission to operate pixel or access token is invalid', [
        'access token invalid',
      ]);
    if (!isObject(body)) return reply(40002, 'Request body is not valid JSON', ['body not JSON']);
    const problems: string[] = [];
    if (!SOURCES.includes(body['event_source'] as string)) problems.push('event_source: Not a valid choice');
    if (typeof body['event_source_id'] !== 'string' || body['event_source_id'] === '')
      problems.push('event_source_id: Missing data for required field');
    const data = body['data'];
    if (!Array.isArray(data) || data.length === 0 || data.length > 1000)
      problems.push('data: Length must be between 1 and 1000');
    else
      for (const [i, e] of data.entries()) {
        const at = `Batch.${i}`;
        if (!isObject(e)) {
          problems.push(`${at}: Not a valid object`);
          continue;
        }
        if (typeof e['event'] !== 'string' || e['event'] === '')
          problems.push(`${at}.event: Missing data for required field`);
        if (!Number.isInteger(e['event_time'])) problems.push(`${at}.event_time: Not a valid integer`);
        const user = isObject(e['user']) ? e['user'] : {};
        for (const f of ['email', 'phone', 'external_id'])
          if (user[f] !== undefined && !isHashed(user[f]))
            problems.push(`${at}.user.${f}: must be SHA-256 hashed`);
        const contents = isObject(e['properties']) ? e['properties']['contents'] : undefined;
        // Each content's content_id is required (ads.tiktok.com/help/article/about-parameters).
        if (Array.isArray(contents))
          for (const [j, c] of contents.entries())
            if (isObject(c) && (c['content_id'] === undefined || c['content_id'] === ''))
              problems.push(`${at}.properties.contents.${j}.content_id: Missing data for required field`);
            else if (isObject(c) && typeof c['content_id'] !== 'string')
              problems.push(`${at}.properties.contents.${j}.content_id: Not a valid string`);
      }
    if (problems.length > 0) return reply(40002, problems.join('; '), problems);
    return reply(0, 'OK');
  });
}
