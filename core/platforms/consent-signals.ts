/**
 * What the platforms' consent signals share (docs/linkage.md, "Consent signals"). Each platform
 * writes the event's consent as its own privacy fields in its folder (meta/, tiktok/, ga4/
 * consent.ts); the decision layer has already skipped events whose required purposes are not
 * granted, so these fields tell the platform how to use the events that are sent.
 */
import type { Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';

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
