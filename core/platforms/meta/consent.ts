/**
 * Meta's consent signals (docs/linkage.md, "Consent signals"): `opt_out: true` when ad
 * personalization is denied (Meta then uses the event for attribution only, not ad delivery
 * optimisation); with limited data use, `data_processing_options: ["LDU"]` and country/state 0,
 * which asks Meta to geolocate the event. A value the mapping set is kept. With `ad_user_data`
 * not granted (a refusal, an opt-out of sale or sharing, or no signal stating it: its facts'
 * `userData`) the hashed identifiers are left out, even where the destination's own consent list
 * let the event through.
 */
import { leaveOutHashed, limitedDataUse } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { META_FACTS } from './facts.ts';
import { META_HASHED_FIELDS } from './target.ts';

/** Meta's hashed `user_data` fields (mapping.ts). */
const HASHED = [...META_HASHED_FIELDS, 'external_id'];

export const metaConsentSignals: ConsentSignals = (serverEvent, destination, _event, consent) => {
  if (consent.ad_personalization.state === 'denied' && serverEvent['opt_out'] === undefined)
    serverEvent['opt_out'] = true;
  if (serverEvent['data_processing_options'] === undefined && limitedDataUse(destination, consent)) {
    serverEvent['data_processing_options'] = ['LDU'];
    serverEvent['data_processing_options_country'] = 0;
    serverEvent['data_processing_options_state'] = 0;
  }
  return leaveOutHashed(serverEvent['user_data'], HASHED, consent, 'user_data', META_FACTS);
};
