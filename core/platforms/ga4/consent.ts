/**
 * GA4's consent signals (docs/linkage.md, "Consent signals"): the request's `consent` field says
 * `ad_user_data` and `ad_personalization` as resolved (core/consent/resolve.ts) — GRANTED only
 * where a signal grants them; DENIED under a refusal, an opt-out of sale or sharing, or where no
 * signal states them (a purpose nobody granted is refused), whatever the mapping copied from the
 * event — and user-provided data (`user_data`, hashed identifiers for ads measurement) is left
 * out unless `ad_user_data` is granted. Says what it left out.
 */
import { userDataWithheld } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';
import { GA4_FACTS } from './facts.ts';

export const ga4ConsentSignals: ConsentSignals = (body, _destination, _event, consent) => {
  const fields = (body['consent'] ?? {}) as Record<string, unknown>;
  for (const purpose of ['ad_user_data', 'ad_personalization'] as const) {
    const granted = consent[purpose].state === 'granted';
    if (!granted || fields[purpose] === undefined) fields[purpose] = granted ? 'GRANTED' : 'DENIED';
  }
  body['consent'] = fields;
  const why = userDataWithheld(consent, GA4_FACTS);
  if (why === undefined || body['user_data'] === undefined) return undefined;
  delete body['user_data'];
  return `left out user_data (${why})`;
};
