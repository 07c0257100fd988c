/**
 * Reddit's consent signals (docs/platforms.md, Reddit): with limited data use,
 * `user.data_processing_options {modes: ["LDU"]}`, as Meta's LDU; with `ad_user_data` not granted
 * (refused, or unstated: its facts' `userData`) the hashed identifiers are left out (the click id and the _rdt_uuid cookie stay). A value the
 * mapping set is kept.
 */
import { limitedDataUse, userDataWithheld } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { REDDIT_FACTS } from './facts.ts';

const PERSONAL = ['email', 'phone_number', 'external_id', 'ip_address', 'idfa', 'aaid'];

export const redditConsentSignals: ConsentSignals = (platformEvent, destination, _event, consent) => {
  const user = (platformEvent['user'] ?? {}) as Record<string, unknown>;
  if (user['data_processing_options'] === undefined && limitedDataUse(destination, consent)) {
    user['data_processing_options'] = { modes: ['LDU'] };
    platformEvent['user'] = user;
  }
  const why = userDataWithheld(consent, REDDIT_FACTS);
  if (why === undefined) return undefined;
  const dropped = PERSONAL.filter((k) => user[k] !== undefined);
  for (const k of dropped) delete user[k];
  return dropped.length > 0 ? `left out user.${dropped.join(', user.')} (${why})` : undefined;
};
