/**
 * The `ApiSunset` job of the scheduler (docs/platforms.md, "API versions"): once a day, while a
 * configured destination's platform API version is within 60 days of its sunset (or past it), one
 * WARNING log line per such destination with an `api_sunset` field. A log-based metric counts
 * them and an alert policy opens on any (infra/alerts.ts), so the warning `settings check` gives
 * at deploy time keeps being given while the environment runs.
 */
import { apiSunsets } from '../../core/plan-warnings/api-sunset.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { Job } from './runner.ts';

export const API_SUNSET_KIND = 'ApiSunset';

export function apiSunsetJob(deps: {
  readonly settings: Readonly<Settings>;
  readonly log: (entry: Readonly<Record<string, unknown>>) => void;
}): Job {
  return {
    kind: API_SUNSET_KIND,
    async scheduled(now) {
      return apiSunsets(deps.settings, now).length > 0
        ? [{ kind: API_SUNSET_KIND, name: 'platforms', schedule: { every: '1d' } }]
        : [];
    },
    async chunk(ctx) {
      const found = apiSunsets(deps.settings, ctx.now);
      for (const s of found)
        deps.log({
          severity: 'WARNING',
          component: 'schedule',
          message: s.text,
          api_sunset: {
            destination: s.destination,
            platform: s.platform,
            version: s.version,
            sunset: s.sunset,
            days: s.days,
          },
        });
      return { done: true, summary: { warned: found.length } };
    },
  };
}
