/**
 * Google's consent signals for the EEA (docs/platforms.md §6): the event's
 * `ad_user_data` and `ad_personalization` as the Data Manager event's `consent.adUserData` and
 * `consent.adPersonalization` (`CONSENT_GRANTED` / `CONSENT_DENIED`). A purpose the event does not
 * state is left out, which Google reads as unspecified; a value the mapping set is kept. With
 * `ad_user_data` not granted (refused, or unstated: its facts' `userData`) the hashed user data is left out too (as at GA4): the person refused
 * that their data be used for ads, which a destination's own consent list may not have checked.
 */
import { userDataWithheld } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { GOOGLE_ADS_FACTS } from './facts.ts';

const STATE = { granted: 'CONSENT_GRANTED', denied: 'CONSENT_DENIED' } as const;

export const googleAdsConsentSignals: ConsentSignals = (platformEvent, _destination, _event, resolved) => {
  const consent = (platformEvent['consent'] ?? {}) as Record<string, unknown>;
  for (const [purpose, field] of [
    ['ad_user_data', 'adUserData'],
    ['ad_personalization', 'adPersonalization'],
  ] as const) {
    const { state } = resolved[purpose];
    // A refusal replaces what the mapping set; a grant only fills what it left open.
    if (state === 'denied' || (state === 'granted' && consent[field] === undefined))
      consent[field] = STATE[state];
  }
  if (Object.keys(consent).length > 0) platformEvent['consent'] = consent;
  const why = userDataWithheld(resolved, GOOGLE_ADS_FACTS);
  if (why !== undefined && platformEvent['userData'] !== undefined) {
    delete platformEvent['userData'];
    return `left out userData (${why})`;
  }
  return undefined;
};
