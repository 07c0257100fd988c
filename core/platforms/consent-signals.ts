/**
 * The event's consent as each platform's own privacy fields (docs/linkage.md, "Consent signals").
 * The decision layer already skips events whose required purposes are not granted; these fields
 * tell the platform how to use the events that are sent. A mapping that fills one of them itself
 * (an override) wins: nothing here replaces a value the mapping set.
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

/**
 * Meta: `opt_out: true` when ad personalization is denied (Meta then uses the event for
 * attribution only, not ad delivery optimisation); with limited data use,
 * `data_processing_options: ["LDU"]` and country/state 0, which asks Meta to geolocate the event.
 */
export function applyMetaConsent(
  serverEvent: Record<string, unknown>,
  destination: Readonly<Destination>,
  event: StoredEvent,
): void {
  if (event.consent?.ad_personalization === 'denied' && serverEvent['opt_out'] === undefined)
    serverEvent['opt_out'] = true;
  if (serverEvent['data_processing_options'] !== undefined) return;
  if (limitedDataUse(destination, event)) {
    serverEvent['data_processing_options'] = ['LDU'];
    serverEvent['data_processing_options_country'] = 0;
    serverEvent['data_processing_options_state'] = 0;
  }
}

/** TikTok: `limited_data_use: true` when the event is flagged for limited data use. */
export function applyTikTokConsent(
  row: Record<string, unknown>,
  destination: Readonly<Destination>,
  event: StoredEvent,
): void {
  if (row['limited_data_use'] === undefined && limitedDataUse(destination, event))
    row['limited_data_use'] = true;
}

/**
 * GA4: user-provided data (`user_data`) is for ads measurement; when the person denied
 * `ad_user_data` it is left out (the `consent` field says the same). Says what it left out.
 */
export function applyGa4Consent(body: Record<string, unknown>, event: StoredEvent): string | undefined {
  if (event.consent?.ad_user_data !== 'denied' || body['user_data'] === undefined) return undefined;
  delete body['user_data'];
  return 'left out user_data (consent ad_user_data denied)';
}
