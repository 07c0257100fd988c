/**
 * Snapchat's consent signal (docs/platforms.md, "Snapchat"): with limited data use,
 * `data_processing_options: ["LDU"]`, asking Snap to process the event under its limited data use
 * terms. A value the mapping set is kept.
 */
import { limitedDataUse } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';

export const snapchatConsentSignals: ConsentSignals = (row, destination, _event, consent) => {
  if (row['data_processing_options'] === undefined && limitedDataUse(destination, consent))
    row['data_processing_options'] = ['LDU'];
  return undefined;
};
