/**
 * GA4's consent signals (docs/linkage.md, "Consent signals"): the request's `consent` field says
 * `ad_user_data` and `ad_personalization` as resolved (core/consent/resolve.ts) — DENIED under a
 * refusal or an opt-out of sale or sharing, whatever the mapping copied from the event — and
 * user-provided data (`user_data`, hashed identifiers for ads measurement) is left out when
 * `ad_user_data` is denied. Says what it left out.
 */
import { userDataDenied } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';

export const ga4ConsentSignals: ConsentSignals = (body, _destination, _event, consent) => {
  const fields = (body['consent'] ?? {}) as Record<string, unknown>;
  for (const purpose of ['ad_user_data', 'ad_personalization'] as const) {
    const { state } = consent[purpose];
    if (state === 'denied' || (state === 'granted' && fields[purpose] === undefined))
      fields[purpose] = state.toUpperCase();
  }
  if (Object.keys(fields).length > 0) body['consent'] = fields;
  if (!userDataDenied(consent) || body['user_data'] === undefined) return undefined;
  delete body['user_data'];
  return `left out user_data (${consent.ad_user_data.reason})`;
};
