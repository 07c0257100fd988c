/**
 * TikTok's consent signal (docs/linkage.md, "Consent signals"): `limited_data_use: true` when the
 * event is flagged for limited data use. A value the mapping set is kept. With `ad_user_data`
 * not granted (refused, or unstated: its facts' `userData`) the hashed identifiers are left out, as at Meta.
 */
import { leaveOutHashed, limitedDataUse } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { TIKTOK_FACTS } from './facts.ts';

export const tiktokConsentSignals: ConsentSignals = (row, destination, _event, consent) => {
  if (row['limited_data_use'] === undefined && limitedDataUse(destination, consent))
    row['limited_data_use'] = true;
  return leaveOutHashed(row['user'], HASHED, consent, 'user', TIKTOK_FACTS);
};

/** TikTok's hashed `user` fields (mapping.ts). */
const HASHED = ['email', 'phone', 'external_id'];
