/**
 * What the platforms' consent signals share (docs/linkage.md, "Consent signals"). Each platform
 * writes the resolved consent (core/consent/resolve.ts: every signal of the event, a refusal
 * winning) as its own privacy fields in its folder (meta/, tiktok/, ga4/ consent.ts); the
 * decision layer has already skipped events whose required purposes are not granted, so these
 * fields tell the platform how to use the events that are sent.
 */

import type { Destination } from '../../schemas/settings.ts';
import type { ResolvedPurposes } from '../consent/resolve.ts';
import type { PlatformFacts } from './platform.ts';

/**
 * Whether the event goes out flagged for limited data use: the destination's `limited_data_use`
 * (`always`, `never`, or by default `when_denied`: when ad personalization is denied, by the
 * person or by an opt-out of sale or sharing).
 */
export function limitedDataUse(destination: Readonly<Destination>, consent: ResolvedPurposes): boolean {
  const mode = destination.limited_data_use ?? 'when_denied';
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  return consent.ad_personalization.state === 'denied';
}

/**
 * Why the person's data may not go to the platform (the resolver's words: `consent ad_user_data
 * missing`, `consent Sec-GPC opt-out`…), or undefined when it may: `ad_user_data` refused (the
 * person, or an opt-out of sale or sharing) always withholds it; unstated, it withholds it unless
 * the platform's facts say `userData: 'not_denied'` (none does: a purpose nobody granted is refused).
 */
export function userDataWithheld(
  consent: ResolvedPurposes,
  facts: Pick<PlatformFacts, 'userData'>,
): string | undefined {
  const verdict = consent.ad_user_data;
  if (verdict.state === 'granted') return undefined;
  if (verdict.state === undefined && facts.userData === 'not_denied') return undefined;
  return verdict.reason;
}

/**
 * Leaves out the hashed identifiers (`names`) of a platform's user data object (`group`) unless
 * the platform may have the person's data (userDataWithheld), even where the destination's own
 * consent list let the event through: what the platform is told follows the verdict. Identifiers
 * it matches as sent (address, user agent, click ids) stay. Says what it left out, or undefined.
 */
export function leaveOutHashed(
  group: unknown,
  names: readonly string[],
  consent: ResolvedPurposes,
  where: string,
  facts: Pick<PlatformFacts, 'userData'>,
): string | undefined {
  const why = userDataWithheld(consent, facts);
  if (why === undefined || group === null || typeof group !== 'object') return undefined;
  const fields = group as Record<string, unknown>;
  const gone = names.filter((n) => fields[n] !== undefined);
  for (const n of gone) delete fields[n];
  return gone.length > 0 ? `left out ${where} ${gone.join(', ')} (${why})` : undefined;
}
