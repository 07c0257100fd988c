/**
 * GA4's consent signals (docs/linkage.md, "Consent signals"): user-provided data (`user_data`) is
 * for ads measurement; when the person denied `ad_user_data` it is left out (the request's
 * `consent` field, filled by the mapping, says the same). Says what it left out.
 */
import type { ConsentSignals } from '../platform.ts';

/**
 * Google's IAB TCF vendor id, 755 ("Google Advertising Products"), whose consent Google Analytics
 * honours when its TCF support is on (Gravito, "Communicating consent with Google", 2020).
 */
export const GA4_TCF_VENDOR = 755;

export const ga4ConsentSignals: ConsentSignals = (body, _destination, event) => {
  if (event.consent?.ad_user_data !== 'denied' || body['user_data'] === undefined) return undefined;
  delete body['user_data'];
  return 'left out user_data (consent ad_user_data denied)';
};
