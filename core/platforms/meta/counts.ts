/**
 * Meta's count of the events a pixel received (docs/delivery.md, "Counted by the platform"):
 * the Graph API's Ads Pixel stats edge, `GET /{version}/{pixel_id}/stats?aggregation=event
 * &start_time=<unix>&end_time=<unix>&access_token=…`, answers per hour `{start_time, data:
 * [{value: <event name>, count}]}`; the day's hours are added up per event name. Asked with the
 * destination's own `access_token`. Pure.
 */
import type { Destination } from '../../../schemas/settings.ts';
import { type CountReads, countOf, type PlatformCount, sumByName } from '../counts.ts';
import { baseUrl, configText } from '../prepare.ts';
import { META_API } from './api-version.ts';
import { META_BASE_URL } from './driver.ts';

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const version = (d: Readonly<Destination>) => configText(d, 'api_version') ?? META_API.version;

/** The day's bounds in unix seconds. */
function bounds(day: string): [number, number] {
  const start = Date.parse(`${day}T00:00:00Z`) / 1000;
  return [start, start + 86_400];
}

export const META_COUNTS: CountReads = {
  auth: { kind: 'secret', role: 'access_token' },
  problem: (d) => (configText(d, 'pixel_id') ? undefined : 'config.pixel_id is required for meta_capi'),
  request(d, day, token) {
    const [start, end] = bounds(day);
    const path = `${baseUrl(d, META_BASE_URL)}/${version(d)}/${configText(d, 'pixel_id') ?? ''}/stats`;
    const query = new URLSearchParams({
      aggregation: 'event',
      start_time: String(start),
      end_time: String(end),
      access_token: token,
    });
    return { method: 'GET', url: `${path}?${query}`, redactedUrl: path };
  },
  read(body) {
    const data = obj(body)?.['data'];
    if (!Array.isArray(data)) return undefined;
    const out: PlatformCount[] = [];
    for (const hour of data) {
      const rows = obj(hour)?.['data'];
      if (!Array.isArray(rows)) continue;
      for (const r of rows) {
        const name = obj(r)?.['value'];
        const count = countOf(obj(r)?.['count']);
        if (typeof name === 'string' && name !== '' && count !== undefined)
          out.push({ event_name: name.slice(0, 100), counted: count });
      }
    }
    return sumByName(out);
  },
  source: (d) => `meta pixel stats ${version(d)}`,
};
