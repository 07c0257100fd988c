/**
 * Pinterest's consent signals (docs/platforms.md, "Pinterest"): `opt_out: true` when the person denied ad
 * personalization (Pinterest then keeps the event for measurement, not targeting), and with
 * limited data use `custom_data.opt_out_type: "LDP"` (limited data processing). A value the
 * mapping set is kept.
 */
import { limitedDataUse } from '../consent-signals.ts';
import type { ConsentSignals } from '../platform.ts';

export const pinterestConsentSignals: ConsentSignals = (row, destination, _event, consent) => {
  if (consent.ad_personalization.state === 'denied' && row['opt_out'] === undefined) row['opt_out'] = true;
  if (!limitedDataUse(destination, consent)) return undefined;
  const custom = (row['custom_data'] ?? {}) as Record<string, unknown>;
  if (custom['opt_out_type'] === undefined) custom['opt_out_type'] = 'LDP';
  row['custom_data'] = custom;
  return undefined;
};
