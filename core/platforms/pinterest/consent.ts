/**
 * Pinterest's consent signals (docs/platforms.md, "Pinterest"): `opt_out: true` when the person denied ad
 * personalization (Pinterest then keeps the event for measurement, not targeting), and with
 * limited data use `custom_data.opt_out_type: "LDP"` (limited data processing). A value the
 * mapping set is kept. With `ad_user_data` not granted (refused, or unstated: its facts'
 * `userData`) the hashed identifiers are left out; the address, user agent and click id stay.
 */
import { leaveOutHashed, limitedDataUse } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { PINTEREST_FACTS } from './facts.ts';
import { PINTEREST_HASHED_FIELDS } from './target.ts';

export const pinterestConsentSignals: ConsentSignals = (row, destination, _event, consent) => {
  if (consent.ad_personalization.state === 'denied' && row['opt_out'] === undefined) row['opt_out'] = true;
  if (limitedDataUse(destination, consent)) {
    const custom = (row['custom_data'] ?? {}) as Record<string, unknown>;
    if (custom['opt_out_type'] === undefined) custom['opt_out_type'] = 'LDP';
    row['custom_data'] = custom;
  }
  return leaveOutHashed(row['user_data'], PINTEREST_HASHED_FIELDS, consent, 'user_data', PINTEREST_FACTS);
};
