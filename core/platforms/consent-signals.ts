/**
 * What the platforms' consent signals share (docs/linkage.md, "Consent signals"). Each platform
 * writes the event's consent as its own privacy fields in its folder (meta/, tiktok/, ga4/
 * consent.ts); the decision layer has already skipped events whose required purposes are not
 * granted, so these fields tell the platform how to use the events that are sent.
 */
import type { ConsentPurpose, Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';

/** Google Consent Mode's names for two of our purposes (docs/delivery.md, "Consent"). */
export const CONSENT_MODE_NAMES: Readonly<Partial<Record<ConsentPurpose, string>>> = Object.freeze({
  ads: 'ad_storage',
  analytics: 'analytics_storage',
});

/** A purpose as the event states it, and the name it was stated under (for the ledger's reason). */
export interface StatedPurpose {
  readonly state: 'granted' | 'denied' | undefined;
  readonly name: string;
}

/**
 * A purpose as the event's `consent` states it, under our name or Consent Mode's: given under
 * both and different, the stricter (denied) wins and is the name reported.
 */
export function statedPurpose(event: StoredEvent, purpose: ConsentPurpose): StatedPurpose {
  const consent = event.consent;
  const ours = consent?.[purpose];
  const alias = CONSENT_MODE_NAMES[purpose];
  const theirs = alias === undefined ? undefined : consent?.[alias];
  if (ours === 'denied') return { state: 'denied', name: purpose };
  if (theirs === 'denied') return { state: 'denied', name: alias as string };
  if (ours === 'granted' || theirs === 'granted') return { state: 'granted', name: purpose };
  return { state: undefined, name: purpose };
}

/**
 * Whether the event goes out flagged for limited data use: the destination's `limited_data_use`
 * (`always`, `never`, or by default `when_denied`: when the person denied ad personalization).
 */
export function limitedDataUse(destination: Readonly<Destination>, event: StoredEvent): boolean {
  const mode = destination.limited_data_use ?? 'when_denied';
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  return event.consent?.ad_personalization === 'denied';
}
