/**
 * LinkedIn's consent (docs/platforms.md, LinkedIn): its API has no consent field — the upload is
 * covered by LinkedIn's data processing terms — so the destination's consent purposes are the
 * gate. When a destination's own consent list lets an event through with `ad_user_data` denied,
 * the person's data is left out (the hashed e-mail and the name), keeping only the click id.
 */
import { userDataDenied } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';

export const linkedinConsentSignals: ConsentSignals = (platformEvent, _destination, _event, consent) => {
  if (!userDataDenied(consent)) return undefined;
  const user = platformEvent['user'] as { userIds?: { idType?: string }[]; userInfo?: unknown } | undefined;
  if (user === undefined) return undefined;
  const ids = user.userIds ?? [];
  const kept = ids.filter((id) => id.idType === 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID');
  if (kept.length === ids.length && user.userInfo === undefined) return undefined;
  user.userIds = kept;
  delete user.userInfo;
  return 'left out the hashed e-mail and userInfo (ad_user_data denied)';
};
