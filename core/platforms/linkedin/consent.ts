/**
 * LinkedIn's consent (docs/platforms.md, LinkedIn): its API has no consent field — the upload is
 * covered by LinkedIn's data processing terms — so the destination's consent purposes are the
 * gate. When a destination's own consent list lets an event through with `ad_user_data` not
 * granted (refused, or unstated: its facts' `userData`), the person's data is left out (the hashed e-mail and the name), keeping only the click id.
 */
import { userDataWithheld } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { LINKEDIN_FACTS } from './facts.ts';

export const linkedinConsentSignals: ConsentSignals = (platformEvent, _destination, _event, consent) => {
  const why = userDataWithheld(consent, LINKEDIN_FACTS);
  if (why === undefined) return undefined;
  const user = platformEvent['user'] as { userIds?: { idType?: string }[]; userInfo?: unknown } | undefined;
  if (user === undefined) return undefined;
  const ids = user.userIds ?? [];
  const kept = ids.filter((id) => id.idType === 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID');
  if (kept.length === ids.length && user.userInfo === undefined) return undefined;
  user.userIds = kept;
  delete user.userInfo;
  return `left out the hashed e-mail and userInfo (${why})`;
};
