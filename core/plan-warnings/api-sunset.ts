/**
 * The API sunset warning: a destination whose platform API version (declared in the platform's
 * folder, `core/platforms/<platform>/api-version.ts`) is sunset within SUNSET_WARNING_DAYS, or
 * already is. A sunset version fails every delivery at once, so it is said while there is time to
 * upgrade. Versions whose platform publishes no sunset (null) are never warned about; nor is a
 * destination that sends its own version (Meta's, LinkedIn's `config.api_version`): the declared
 * sunset is not about it.
 */
import type { Settings } from '../../schemas/settings.ts';
import { PLATFORMS } from '../platforms/platforms.ts';

/** How long before a sunset it is warned about. */
export const SUNSET_WARNING_DAYS = 60;

const DAY_MS = 86_400_000;

/** A destination whose platform's API version is near its sunset (or past it). */
export interface ApiSunset {
  readonly destination: string;
  readonly platform: string;
  readonly version: string;
  readonly sunset: string;
  /** Days left (0 or less: retired). */
  readonly days: number;
  readonly text: string;
}

/**
 * One warning per enabled destination whose platform's API version is sunset within
 * SUNSET_WARNING_DAYS of `now` (or before it), naming the version, the day, the source and what
 * to do. `now` is the caller's clock, so a test fixes it.
 */
export function apiSunsetWarnings(settings: Readonly<Settings>, now: Date): string[] {
  return apiSunsets(settings, now).map((s) => s.text);
}

/** The same, as data: the scheduler logs them daily for the alert (functions/schedule/api-sunset.ts). */
export function apiSunsets(settings: Readonly<Settings>, now: Date): ApiSunset[] {
  const warnings: ApiSunset[] = [];
  for (const d of settings.destinations ?? []) {
    if (d.enabled === false) continue;
    const api = PLATFORMS[d.type].apiVersion;
    if (api.version === null || api.sunset === null) continue;
    if (api.override !== undefined && d.config?.[api.override] !== undefined) continue;
    const days = Math.ceil((Date.parse(`${api.sunset}T00:00:00Z`) - now.getTime()) / DAY_MS);
    if (days > SUNSET_WARNING_DAYS) continue;
    const when =
      days > 0
        ? `retires on ${api.sunset}, in ${days} day${days === 1 ? '' : 's'}`
        : `retired on ${api.sunset}`;
    const instead =
      api.override === undefined
        ? ''
        : `, or set destinations[id=${d.id}].config.${api.override} to a newer version the platform serves`;
    warnings.push({
      destination: d.id,
      platform: d.type,
      version: api.version,
      sunset: api.sunset,
      days,
      text:
        `destination ${d.id}: ${d.type} sends API version ${api.version}, which the platform ${when} ` +
        `(${api.source}); from then every delivery to it fails. Upgrade eventbus to a release that sends a ` +
        `newer version${instead} (docs/platforms.md, "API versions").`,
    });
  }
  return warnings;
}
