/**
 * Reddit's consent signals (docs/platforms.md, Reddit): with limited data use,
 * `user.data_processing_options {modes: ["LDU"]}`, as Meta's LDU; with `ad_user_data` denied the
 * hashed identifiers are left out (the click id and the _rdt_uuid cookie stay). A value the
 * mapping set is kept.
 */
import { limitedDataUse, userDataDenied } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';

const PERSONAL = ['email', 'phone_number', 'external_id', 'ip_address', 'idfa', 'aaid'];

export const redditConsentSignals: ConsentSignals = (platformEvent, destination, _event, consent) => {
  const user = (platformEvent['user'] ?? {}) as Record<string, unknown>;
  if (user['data_processing_options'] === undefined && limitedDataUse(destination, consent)) {
    user['data_processing_options'] = { modes: ['LDU'] };
    platformEvent['user'] = user;
  }
  if (!userDataDenied(consent)) return undefined;
  const dropped = PERSONAL.filter((k) => user[k] !== undefined);
  for (const k of dropped) delete user[k];
  return dropped.length > 0 ? `left out user.${dropped.join(', user.')} (ad_user_data denied)` : undefined;
};
