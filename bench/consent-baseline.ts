/**
 * Bench-only: the decision layer's consent rule as it was before the one resolver (git 9c3b2d9^,
 * core/decision/consent.ts), kept so `npm run bench consent` measures the resolver against it in
 * the same run. It reads the same signals with the same bounded readers, but gates the opt-outs
 * for ad destinations only and maps no TCF purpose to ours: it is the cost baseline, not a rule
 * anything uses. Nothing outside bench/ imports it.
 */
import { readTcf } from '../core/consent/tcf.ts';
import { readGpp, uspOptedOut } from '../core/consent/us-privacy.ts';
import { sdkPurpose, webConsent } from '../core/consent/web-consent.ts';
import type { StoredEvent } from '../core/event.ts';
import { TCF_VENDORS } from '../core/platforms/requirements.ts';
import type { ConsentPurpose, Destination } from '../schemas/settings.ts';

const AD_PURPOSES: ReadonlySet<ConsentPurpose> = new Set(['ads', 'ad_user_data', 'ad_personalization']);
const ALIAS: Partial<Record<ConsentPurpose, string>> = { ads: 'ad_storage', analytics: 'analytics_storage' };

/** A purpose as the event states it, our name or Consent Mode's, denied winning. */
function statedPurpose(
  event: StoredEvent,
  purpose: ConsentPurpose,
): { state: 'granted' | 'denied' | undefined; name: string } {
  const consent = event.consent;
  const ours = consent?.[purpose];
  const alias = ALIAS[purpose];
  const theirs = alias === undefined ? undefined : consent?.[alias];
  if (ours === 'denied') return { state: 'denied', name: purpose };
  if (theirs === 'denied') return { state: 'denied', name: alias as string };
  if (ours === 'granted' || theirs === 'granted') return { state: 'granted', name: purpose };
  return { state: undefined, name: purpose };
}

/** The old `consentRefusal`, as it was. */
export function baselineConsentRefusal(
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
    if (state !== 'granted') return `consent ${name} ${state ?? 'missing'}`;
  }
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
  if (!ads) return undefined;
  if (honorGpc && web.gpc === true) return 'consent Sec-GPC opt-out';
  if (web.usPrivacy !== undefined && uspOptedOut(web.usPrivacy)) return 'consent US Privacy opt-out';
  if (gpp !== undefined) {
    if (!gpp.ok) return `consent GPP string malformed (${gpp.why})`;
    if (gpp.optOut !== undefined) return `consent GPP opt-out (${gpp.optOut})`;
  }
  return undefined;
}
