/**
 * The Customer Match terms warning: a `google_ads_audience` connection that does not say the
 * advertiser accepted Google's Customer Match terms. Google adds members only to an upload that
 * says so (`termsOfService.customerMatchTermsOfServiceStatus: ACCEPTED`, docs/platforms.md,
 * "Customer Match"), so every sync through such a connection must say it itself, or `eventbus
 * apply` refuses it (core/syncs/syncs.ts). Syncs are runtime resources the settings file does not
 * hold: the settings check can only see the connection, so it warns rather than refuses.
 */
import type { Settings } from '../../schemas/settings.ts';

/** One warning per google_ads_audience connection without `terms_of_service: accepted`; none otherwise. */
export function customerMatchTermsWarnings(settings: Readonly<Settings>): string[] {
  return (settings.connections ?? [])
    .filter((c) => c.type === 'google_ads_audience' && c.terms_of_service !== 'accepted')
    .map(
      (c) =>
        `connection ${c.id}: google_ads_audience without terms_of_service: accepted. Google adds Customer ` +
        `Match members only when the advertiser accepted its Customer Match terms ` +
        `(support.google.com/adspolicy/answer/6299717); once they have, set terms_of_service: accepted on ` +
        `the connection (or on each sync through it: eventbus apply refuses a sync where neither says so; ` +
        `docs/syncs.md).`,
    );
}
