/**
 * Microsoft's consent signal (docs/platforms.md, Microsoft): `adStorageConsent` `G` (granted) or
 * `D` (denied), from the event's `ads` purpose — UET's own consent mode speaks of ad storage. A
 * purpose the event does not state leaves the field out; a value the mapping set is kept. With
 * `ad_user_data` not granted (refused, or unstated: its facts' `userData`) the hashed e-mail and phone are left out.
 */
import { userDataWithheld } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { MICROSOFT_FACTS } from './facts.ts';

export const microsoftConsentSignals: ConsentSignals = (platformEvent, _destination, _event, consent) => {
  // Consent Mode's ad_storage counts as ads, as UET's own consent mode names it.
  const ads = consent.ads.state;
  if (ads === 'denied' || (ads === 'granted' && platformEvent['adStorageConsent'] === undefined))
    platformEvent['adStorageConsent'] = ads === 'granted' ? 'G' : 'D';
  const user = platformEvent['userData'] as Record<string, unknown> | undefined;
  const why = userDataWithheld(consent, MICROSOFT_FACTS);
  if (why === undefined || user === undefined) return undefined;
  const dropped = ['em', 'ph'].filter((k) => user[k] !== undefined);
  for (const k of dropped) delete user[k];
  return dropped.length > 0 ? `left out userData.${dropped.join(', userData.')} (${why})` : undefined;
};
