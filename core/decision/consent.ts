/**
 * The decision layer's consent rule (docs/delivery.md, "Consent"), fail closed: every purpose the
 * destination needs must be granted (our names or Consent Mode's, an SDK's categories where the
 * event states none); then, for a destination that needs an ad or analytics purpose, the web's
 * signals: the IAB TCF string (purpose 1, and the platform's vendor where it is on the Global
 * Vendor List); and for ad destinations the opt-outs of sale and sharing — Global Privacy Control,
 * US Privacy, GPP. The reason names the signal that decided.
 */
import type { ConsentPurpose, Destination } from '../../schemas/settings.ts';
import { readTcf } from '../consent/tcf.ts';
import { readGpp, uspOptedOut } from '../consent/us-privacy.ts';
import { sdkPurpose, webConsent } from '../consent/web-consent.ts';
import type { StoredEvent } from '../event.ts';
import { statedPurpose } from '../platforms/consent-signals.ts';
import { GA4_TCF_VENDOR } from '../platforms/ga4/consent.ts';
import { GOOGLE_TCF_VENDOR } from '../platforms/google-ads/consent.ts';
import { LINKEDIN_TCF_VENDOR } from '../platforms/linkedin/consent.ts';
import { META_TCF_VENDOR } from '../platforms/meta/consent.ts';
import { MICROSOFT_TCF_VENDOR } from '../platforms/microsoft/consent.ts';
import { PINTEREST_TCF_VENDOR } from '../platforms/pinterest/consent.ts';
import { REDDIT_TCF_VENDOR } from '../platforms/reddit/consent.ts';
import { SNAPCHAT_TCF_VENDOR } from '../platforms/snapchat/consent.ts';
import { TIKTOK_TCF_VENDOR } from '../platforms/tiktok/consent.ts';

/**
 * Each destination type's IAB TCF vendor id, as its platform declares it (its consent.ts, with
 * the source); undefined where none could be confirmed: X has no consent.ts and no confirmed id,
 * and a webhook is the business's own system.
 */
export const TCF_VENDORS: Readonly<Record<Destination['type'], number | undefined>> = Object.freeze({
  meta_capi: META_TCF_VENDOR,
  ga4_mp: GA4_TCF_VENDOR,
  google_ads: GOOGLE_TCF_VENDOR,
  tiktok_events: TIKTOK_TCF_VENDOR,
  pinterest_capi: PINTEREST_TCF_VENDOR,
  snapchat_capi: SNAPCHAT_TCF_VENDOR,
  linkedin_capi: LINKEDIN_TCF_VENDOR,
  microsoft_uet: MICROSOFT_TCF_VENDOR,
  reddit_capi: REDDIT_TCF_VENDOR,
  x_conversions: undefined,
  webhook: undefined,
  // Many vendors, each with its own TCF id where it has one: the settings' consent decides.
  segment_action: undefined,
});

const AD_PURPOSES: ReadonlySet<ConsentPurpose> = new Set(['ads', 'ad_user_data', 'ad_personalization']);

/**
 * Why the event may not go to the destination for consent, or undefined when it may. `required`
 * is the destination's consent list (its own or its type's); `honorGpc` is
 * `producers.honor_gpc` (default true).
 */
export function consentRefusal(
  destination: Readonly<Destination>,
  event: StoredEvent,
  required: readonly ConsentPurpose[],
  honorGpc: boolean,
): string | undefined {
  let ads = false;
  for (const purpose of required) {
    if (AD_PURPOSES.has(purpose)) ads = true;
    const stated = statedPurpose(event, purpose);
    const { state, name } = stated.state === undefined ? (sdkPurpose(event, purpose) ?? stated) : stated;
    // Fail closed: absent or anything but "granted" is a refusal.
    if (state !== 'granted') return `consent ${name} ${state ?? 'missing'}`;
  }
  // A destination that needs no purpose (a webhook by default) is not gated by the web's signals.
  if (required.length === 0) return undefined;
  const web = webConsent(event);

  const gpp = web.gpp === undefined ? undefined : readGpp(web.gpp, web.gppSid);
  const tcf = web.tcf ?? (gpp?.ok ? gpp.tcf : undefined);
  if (tcf !== undefined && web.gdprApplies !== false) {
    const reading = readTcf(tcf);
    if (!reading.ok) return `consent TCF string malformed (${reading.why})`;
    if (!reading.purpose(1)) return 'consent TCF purpose 1 denied';
    const vendor = TCF_VENDORS[destination.type];
    if (vendor !== undefined) {
      if (reading.disclosed(vendor) === false) return `consent vendor ${vendor} not disclosed (TCF)`;
      if (!reading.vendor(vendor)) return `consent vendor ${vendor} not consented (TCF)`;
    }
  }

  // The opt-outs of sale and sharing are about advertising: analytics destinations are not gated.
  if (!ads) return undefined;
  if (honorGpc && web.gpc === true) return 'consent Sec-GPC opt-out';
  if (web.usPrivacy !== undefined && uspOptedOut(web.usPrivacy)) return 'consent US Privacy opt-out';
  if (gpp !== undefined) {
    if (!gpp.ok) return `consent GPP string malformed (${gpp.why})`;
    if (gpp.optOut !== undefined) return `consent GPP opt-out (${gpp.optOut})`;
  }
  return undefined;
}
