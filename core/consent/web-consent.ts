/**
 * The web's consent signals of a stored event (docs/delivery.md, "Consent"): the strings and flags
 * of its `consent` group, else where producers already put them at the top level (kept in
 * `event_data`: the IAB macros' `gdpr`, `gdpr_consent`, `us_privacy`, `gpp`, `gpp_sid`, and the
 * names CMP integrations use), and RudderStack's `consentManagement` category ids, which its
 * translator keeps as `consent_management` (examples/translators/segment-rudderstack.yaml).
 */
import type { ConsentPurpose } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';

/** What the decision layer reads besides the purposes. */
export interface WebConsent {
  readonly tcf?: string;
  /** Absent: GDPR is taken to apply wherever a TC string is given (fail closed). */
  readonly gdprApplies?: boolean;
  readonly gpp?: string;
  readonly gppSid?: string;
  readonly usPrivacy?: string;
  readonly gpc?: boolean;
  /** Sent before the page's GPP CMP was ready (the tag's `gpp_pending`). */
  readonly gppPending?: boolean;
}

/** Top-level names producers send the TC string under, first found wins. */
const TCF_FIELDS = ['gdpr_consent', 'tc_string', 'tcf_string', 'tcString', 'euconsent'];

/** The event's web consent signals: its `consent` group first, then its top-level fields. */
export function webConsent(event: StoredEvent): WebConsent {
  const c = (event.consent ?? {}) as Readonly<Record<string, unknown>>;
  const data = event.event_data;
  const out: { -readonly [K in keyof WebConsent]: WebConsent[K] } = {};
  const tcf = text(c['tcf']) ?? firstText(data, TCF_FIELDS);
  if (tcf !== undefined) out.tcf = tcf;
  const applies = typeof c['gdpr_applies'] === 'boolean' ? c['gdpr_applies'] : flag(data['gdpr']);
  if (applies !== undefined) out.gdprApplies = applies;
  const gpp = text(c['gpp']) ?? text(data['gpp']);
  if (gpp !== undefined) out.gpp = gpp;
  const sid = text(c['gpp_sid']) ?? sidText(data['gpp_sid']);
  if (sid !== undefined) out.gppSid = sid;
  const usp = text(c['us_privacy']) ?? firstText(data, ['us_privacy', 'usprivacy']);
  if (usp !== undefined && /^[0-9][YNyn-]{3}$/.test(usp)) out.usPrivacy = usp;
  if (c['gpc'] === true) out.gpc = true;
  if (c['gpp_pending'] === true) out.gppPending = true;
  return out;
}

/** A purpose as an SDK's consent categories state it (RudderStack's allowed and denied ids). */
export interface SdkPurpose {
  readonly state: 'granted' | 'denied';
  readonly name: string;
}

/**
 * Category ids per purpose: OneTrust's standard groups (C0002 performance, C0004 targeting) and
 * the names sites commonly give their categories, compared case-insensitively. Any other id
 * decides nothing (docs/delivery.md, "Consent": map your own in the translator).
 */
const CATEGORY_IDS: Readonly<Record<ConsentPurpose, readonly string[]>> = {
  analytics: ['c0002', 'analytics', 'performance', 'statistics'],
  ads: ['c0004', 'advertising', 'marketing', 'targeting', 'ads'],
  ad_user_data: ['c0004', 'advertising', 'marketing', 'targeting', 'ads'],
  ad_personalization: ['c0004', 'advertising', 'marketing', 'targeting', 'ads'],
};

/**
 * A purpose as RudderStack's `consentManagement` states it: an id of the purpose among the denied
 * ones denies it (denied wins), among the allowed ones grants it; otherwise undefined.
 */
export function sdkPurpose(event: StoredEvent, purpose: ConsentPurpose): SdkPurpose | undefined {
  const cm = event.event_data['consent_management'];
  if (cm === null || typeof cm !== 'object') return undefined;
  const ids = CATEGORY_IDS[purpose];
  const hit = (list: unknown): string | undefined =>
    Array.isArray(list)
      ? (list.find((x) => typeof x === 'string' && ids.includes(x.toLowerCase())) as string | undefined)
      : undefined;
  const record = cm as Record<string, unknown>;
  const denied = hit(record['deniedConsentIds']);
  if (denied !== undefined) return { state: 'denied', name: `${purpose} (consent category ${denied})` };
  const allowed = hit(record['allowedConsentIds']);
  if (allowed !== undefined) return { state: 'granted', name: purpose };
  return undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function firstText(data: Readonly<Record<string, unknown>>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const v = text(data[name]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The IAB `gdpr` macro: 1 or 0 (as a number, text or boolean). */
function flag(v: unknown): boolean | undefined {
  if (v === 1 || v === '1' || v === true) return true;
  if (v === 0 || v === '0' || v === false) return false;
  return undefined;
}

/** `gpp_sid` as text, or a list of section ids joined. */
function sidText(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.every((x) => Number.isInteger(Number(x))) ? v.join(',') : undefined;
  if (typeof v === 'number') return String(v);
  return text(v);
}
