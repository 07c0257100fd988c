/**
 * X's consent (docs/platforms.md, "X"): X documents no consent or limited-data-use field, so the
 * decision layer's consent is the gate. With `ad_user_data` not granted (refused, or unstated: its
 * facts' `userData`) the identifiers made of the person's data — the hashed e-mail and phone — are
 * left out of `identifiers`; the click id and the address with the user agent stay.
 */
import { userDataWithheld } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { X_FACTS } from './facts.ts';

/** The identifier objects of the person's data (mapping.ts, IDENTIFIERS). */
const PERSONAL = ['hashed_email', 'hashed_phone_number'];

export const xConsentSignals: ConsentSignals = (conversion, _destination, _event, consent) => {
  const why = userDataWithheld(consent, X_FACTS);
  const ids = conversion['identifiers'];
  if (why === undefined || !Array.isArray(ids)) return undefined;
  const personal = (id: unknown) =>
    id !== null && typeof id === 'object' && PERSONAL.some((k) => k in (id as object));
  const gone = ids.filter(personal).flatMap((id) => Object.keys(id as object));
  if (gone.length === 0) return undefined;
  conversion['identifiers'] = ids.filter((id) => !personal(id));
  return `left out identifiers ${gone.join(', ')} (${why})`;
};
