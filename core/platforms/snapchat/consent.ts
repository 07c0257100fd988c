/**
 * Snapchat's consent signal (docs/platforms.md, "Snapchat"): with limited data use,
 * `data_processing_options: ["LDU"]`, asking Snap to process the event under its limited data use
 * terms. A value the mapping set is kept. With `ad_user_data` not granted (refused, or unstated:
 * its facts' `userData`) the hashed identifiers are left out; the address, user agent, click id
 * and Snap's cookie stay.
 */
import { leaveOutHashed, limitedDataUse } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { SNAPCHAT_FACTS } from './facts.ts';
import { SNAPCHAT_HASHED_FIELDS } from './target.ts';

export const snapchatConsentSignals: ConsentSignals = (row, destination, _event, consent) => {
  if (row['data_processing_options'] === undefined && limitedDataUse(destination, consent))
    row['data_processing_options'] = ['LDU'];
  return leaveOutHashed(row['user_data'], SNAPCHAT_HASHED_FIELDS, consent, 'user_data', SNAPCHAT_FACTS);
};
