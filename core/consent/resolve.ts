/**
 * One resolver for every consent signal (docs/delivery.md, "Consent"): the event's own purposes
 * and Google Consent Mode's names (its region defaults applied where the visitor is, regions.ts),
 * an SDK's consent categories, the IAB TCF string, and the opt-outs of sale and sharing (Global
 * Privacy Control, US Privacy, GPP, or a GPP CMP that had not answered) become, for one
 * destination's needs, a verdict — send or skip, the signal that decided — and the state of every
 * purpose, which is what the platform is told. Pure: the same event, needs and `honorGpc` give
 * the same verdict at the decision layer (store) and in the driver (forward).
 *
 * Precedence: a refusal wins. A purpose is denied when any signal denies it, and the reason
 * names the first of: the event's own purposes (Consent Mode named when its name decided), an
 * SDK's category, TCF, an opt-out of sale or sharing. It is granted when none denies and the
 * event, an SDK's category or TCF grants it; otherwise it is missing. An opt-out of sale or
 * sharing denies the advertising purposes for every destination: one that needs them is
 * skipped, and any other (GA4) is told they are denied.
 */
import { CONSENT_PURPOSES as PURPOSES } from '../../schemas/consent-purposes.ts';
import type { ConsentPurpose } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import { type RegionalWord, regionalWords } from './regions.ts';
import { readTcf, type TcfReading } from './tcf.ts';
import { type GppReading, readGpp, uspOptedOut } from './us-privacy.ts';
import { sdkPurpose, type WebConsent, webConsent } from './web-consent.ts';

/** What a destination needs: its purposes (its settings' or its type's) and its TCF vendor id. */
export interface ConsentNeeds {
  readonly purposes: readonly ConsentPurpose[];
  /** The destination's vendor on the IAB Global Vendor List, where one is confirmed. */
  readonly tcfVendor?: number | undefined;
}

/** A purpose as the signals together state it, and the signal that decided. */
export interface PurposeVerdict {
  readonly state: 'granted' | 'denied' | undefined;
  /** The deciding signal: `event`, `Consent Mode`, `SDK category`, `TCF`, `GPC`, `US Privacy`, `GPP`. */
  readonly signal: string | undefined;
  /** The ledger's words for a refusal (`consent TCF purpose 1 denied`). */
  readonly reason: string;
}

export type ResolvedPurposes = Readonly<Record<ConsentPurpose, PurposeVerdict>>;

/** The verdict for one destination. */
export interface ConsentVerdict {
  /** Why the event may not go; undefined when it may. */
  readonly refusal: string | undefined;
  /** The signal that decided (the refusing one, else the ones that granted the needed purposes). */
  readonly signal: string | undefined;
}

/** The purposes, from their one list (schemas/consent-purposes.ts). */
export const CONSENT_PURPOSES: readonly ConsentPurpose[] = PURPOSES;

const ADVERTISING: ReadonlySet<ConsentPurpose> = new Set(['ads', 'ad_user_data', 'ad_personalization']);

/** Google Consent Mode's names for two of our purposes (the other two share their names). */
export const CONSENT_MODE_NAMES: Readonly<Partial<Record<ConsentPurpose, string>>> = Object.freeze({
  ads: 'ad_storage',
  analytics: 'analytics_storage',
});

/**
 * The TCF purposes each of ours needs, besides the destination's vendor consent: 1 (store and/or
 * access information on a device) for all; 7 (measure advertising performance) for the user data
 * sent for ads measurement; 3 and 4 (create and use a personalised advertising profile) for ad
 * personalisation.
 */
export const TCF_PURPOSES: Readonly<Record<ConsentPurpose, readonly number[]>> = Object.freeze({
  analytics: [1],
  ads: [1],
  ad_user_data: [1, 7],
  ad_personalization: [1, 3, 4],
});

/** A signal's word on one purpose. */
interface Word {
  readonly state: 'granted' | 'denied';
  readonly signal: string;
  readonly reason: string;
}

/**
 * The verdict for a destination's needs (`honorGpc`: `producers.honor_gpc`): only the purposes it
 * needs are weighed, each as resolvePurposes weighs it.
 */
export function resolveConsent(event: StoredEvent, needs: ConsentNeeds, honorGpc: boolean): ConsentVerdict {
  // A destination that needs no purpose (a webhook by default) is gated by no signal.
  if (needs.purposes.length === 0) return { refusal: undefined, signal: undefined };
  const granting: string[] = [];
  const refusing = refusingVerdict(event, needs, honorGpc, granting);
  if (refusing !== undefined) return { refusal: refusing.reason, signal: refusing.signal };
  return { refusal: undefined, signal: granting.join(', ') };
}

/**
 * Why the event may not go, or undefined: the same verdict as resolveConsent without naming the
 * granting signals (what the decision layer needs, for every destination of every event).
 */
export function consentRefusalOf(
  event: StoredEvent,
  needs: ConsentNeeds,
  honorGpc: boolean,
): string | undefined {
  if (needs.purposes.length === 0) return undefined;
  return refusingVerdict(event, needs, honorGpc, undefined)?.reason;
}

/**
 * The refusal to name among the needed purposes (the lowest rank, the first of equals), or
 * undefined when all are granted; the granting signals go into `granting` when it is given.
 */
function refusingVerdict(
  event: StoredEvent,
  needs: ConsentNeeds,
  honorGpc: boolean,
  granting: string[] | undefined,
): PurposeVerdict | undefined {
  const signals = signalsOf(event);
  let refusing: PurposeVerdict | undefined;
  let refusingRank = Number.POSITIVE_INFINITY;
  for (const purpose of needs.purposes) {
    const v = purposeVerdict(event, signals, needs.tcfVendor, honorGpc, purpose);
    if (v.state === 'granted') {
      if (granting !== undefined && !granting.includes(v.signal as string)) granting.push(v.signal as string);
      continue;
    }
    const rank = v.state === 'denied' ? (RANK_OF[v.signal ?? ''] ?? 9) : 10;
    // The event's own refusal (rank 0) is named whatever the other purposes say.
    if (rank === 0) return v;
    if (rank < refusingRank) {
      refusing = v;
      refusingRank = rank;
    }
  }
  return refusing;
}

/** Every purpose's state for a TCF vendor, needed or not: what the platform is told. */
export function resolvePurposes(
  event: StoredEvent,
  tcfVendor: number | undefined,
  honorGpc: boolean,
): ResolvedPurposes {
  const signals = signalsOf(event);
  const purposes = {} as Record<ConsentPurpose, PurposeVerdict>;
  for (const purpose of CONSENT_PURPOSES)
    purposes[purpose] = purposeVerdict(event, signals, tcfVendor, honorGpc, purpose);
  return purposes;
}

/** The web's signals of an event, read once: its strings are decoded (and kept) by their readers. */
interface EventSignals {
  readonly web: WebConsent;
  /** The TC string's reading, or undefined without one (or where GDPR does not apply). */
  readonly tcf: TcfReading | undefined;
  /** The opt-out of sale or sharing in force other than GPC (US Privacy, GPP), if any. */
  readonly optOut: Word | undefined;
  /** Consent Mode's region defaults where the visitor is (regions.ts), if the event has any. */
  readonly regions: Partial<Record<ConsentPurpose, RegionalWord>> | undefined;
}

/**
 * The store decides every destination of an event in a row: the last event's signals are kept,
 * so they are read once per event (events are never changed once stored).
 */
let last: { readonly event: StoredEvent; readonly signals: EventSignals } | undefined;

function signalsOf(event: StoredEvent): EventSignals {
  if (last?.event === event) return last.signals;
  const web = webConsent(event);
  const gpp = web.gpp === undefined ? undefined : readGpp(web.gpp, web.gppSid);
  const tcString = web.tcf ?? (gpp?.ok ? gpp.tcf : undefined);
  let tcf: TcfReading | undefined;
  // GDPR said to apply and no TC string (a CMP whose banner is still up, or that had not answered
  // when the tag sent the event): nothing was consented under TCF.
  if (tcString === undefined) tcf = web.gdprApplies === true ? NO_TC_STRING : undefined;
  else tcf = web.gdprApplies === false ? undefined : readTcf(tcString);
  const signals = { web, tcf, optOut: optOutWord(web, gpp), regions: regionalWords(event) };
  last = { event, signals };
  return signals;
}

/** One purpose from every signal's word on it. */
function purposeVerdict(
  event: StoredEvent,
  signals: EventSignals,
  vendor: number | undefined,
  honorGpc: boolean,
  purpose: ConsentPurpose,
): PurposeVerdict {
  // In rank order (the event's, TCF, an opt-out): a refusal wins, named by the first refusing
  // signal; else the first granting one decides. Each is read only when the ones before it allow.
  const stated = statedWord(event, purpose, signals.regions?.[purpose]);
  if (stated?.state === 'denied') return stated;
  const tcf = signals.tcf === undefined ? undefined : tcfWord(signals.tcf, vendor, purpose);
  if (tcf?.state === 'denied') return tcf;
  if (ADVERTISING.has(purpose)) {
    const optOut = honorGpc && signals.web.gpc === true ? GPC_OPT_OUT : signals.optOut;
    if (optOut !== undefined) return optOut;
  }
  return stated ?? tcf ?? MISSING[purpose];
}

/** Which refusal the ledger names when several needed purposes are refused: the lowest first. */
const RANK_OF: Readonly<Record<string, number>> = {
  event: 0,
  'Consent Mode': 0,
  'SDK category': 1,
  TCF: 2,
  GPC: 3,
  'US Privacy': 3,
  GPP: 3,
};

const MISSING = Object.fromEntries(
  CONSENT_PURPOSES.map((p) => [p, { state: undefined, signal: undefined, reason: `consent ${p} missing` }]),
) as Record<ConsentPurpose, PurposeVerdict>;

/**
 * The purpose as the event states it, under our name or Consent Mode's (given under both and
 * different, denied wins and is the name reported), else as an SDK's category states it. A
 * Consent Mode region default for the visitor's region (`regional`) replaces the state under
 * Consent Mode's name, as the more specific default does in gtag.
 */
function statedWord(
  event: StoredEvent,
  purpose: ConsentPurpose,
  regional: RegionalWord | undefined,
): Word | undefined {
  const consent = event.consent;
  const ours = consent?.[purpose];
  const alias = CONSENT_MODE_NAMES[purpose];
  if (regional !== undefined) {
    // Our own name, where it is not Consent Mode's too (the site's own statement).
    const own = alias === undefined ? undefined : ours;
    if (own === 'denied') return STATED[purpose].denied;
    if (regional.state === 'denied' || own === undefined)
      return { state: regional.state, signal: 'Consent Mode', reason: regional.reason };
    return STATED[purpose].granted;
  }
  const theirs = alias === undefined ? undefined : consent?.[alias];
  const words = STATED[purpose];
  if (ours === 'denied') return words.denied;
  if (theirs === 'denied') return words.consentModeDenied;
  if (ours === 'granted') return words.granted;
  if (theirs === 'granted') return words.consentModeGranted;
  const sdk = sdkPurpose(event, purpose);
  if (sdk === undefined) return undefined;
  return { state: sdk.state, signal: 'SDK category', reason: `consent ${sdk.name} ${sdk.state}` };
}

type StatedWords = Readonly<Record<'denied' | 'granted' | 'consentModeDenied' | 'consentModeGranted', Word>>;

/** The words of the event's own statements, made once. */
const STATED = Object.fromEntries(
  CONSENT_PURPOSES.map((purpose) => {
    const alias = CONSENT_MODE_NAMES[purpose] ?? purpose;
    const word = (state: 'granted' | 'denied', consentMode: boolean): Word => ({
      state,
      signal: consentMode ? 'Consent Mode' : 'event',
      reason: consentMode ? `consent ${alias} ${state} (Consent Mode)` : `consent ${purpose} ${state}`,
    });
    const words: StatedWords = {
      denied: word('denied', false),
      granted: word('granted', false),
      consentModeDenied: word('denied', true),
      consentModeGranted: word('granted', true),
    };
    return [purpose, words];
  }),
) as Record<ConsentPurpose, StatedWords>;

/**
 * What the TC string says of a purpose for this vendor: a malformed string, or the vendor refused
 * or not disclosed, denies it; otherwise it follows its TCF purposes (TCF_PURPOSES).
 */
function tcfWord(reading: TcfReading, vendor: number | undefined, purpose: ConsentPurpose): Word {
  if (reading === NO_TC_STRING) return TCF_MISSING;
  if (!reading.ok) return tcfDenied(`consent TCF string malformed (${reading.why})`);
  if (vendor !== undefined) {
    if (reading.disclosed(vendor) === false) return tcfDenied(`consent vendor ${vendor} not disclosed (TCF)`);
    if (!reading.vendor(vendor)) return tcfDenied(`consent vendor ${vendor} not consented (TCF)`);
  }
  for (const id of TCF_PURPOSES[purpose])
    if (!reading.purpose(id)) return tcfDenied(`consent TCF purpose ${id} denied`);
  return TCF_GRANTED;
}

const tcfDenied = (reason: string): Word => ({ state: 'denied', signal: 'TCF', reason });
const NO_TC_STRING: TcfReading = { ok: false, why: 'no TC string' };
/** GDPR applies and there is no TC string (a TCF CMP that had not answered): the same object every time. */
export const TCF_MISSING = tcfDenied('consent TCF string missing (gdpr_applies true)');
const TCF_GRANTED: Word = { state: 'granted', signal: 'TCF', reason: 'consent granted (TCF)' };

const optOutDenied = (signal: string, reason: string): Word => ({ state: 'denied', signal, reason });
const GPC_OPT_OUT = optOutDenied('GPC', 'consent Sec-GPC opt-out');
const GPP_PENDING = optOutDenied('GPP', 'consent GPP unknown (sent before the GPP CMP was ready)');

/**
 * Whether a refusal says only that the consent platform had not answered: GDPR said to apply with
 * no TC string, a GPP CMP not ready, or a needed purpose no signal states. A later answer for the
 * same page view may change it (core/delivery/consent-wait.ts); any other refusal stands.
 */
export function awaitsConsent(reason: string): boolean {
  return reason === TCF_MISSING.reason || reason === GPP_PENDING.reason || MISSING_REASONS.has(reason);
}

const MISSING_REASONS: ReadonlySet<string> = new Set(Object.values(MISSING).map((v) => v.reason));

/** The opt-out of sale or sharing in force besides GPC, first found: US Privacy, GPP (or its string malformed). */
function optOutWord(web: WebConsent, gpp: GppReading | undefined): Word | undefined {
  if (web.usPrivacy !== undefined && uspOptedOut(web.usPrivacy))
    return optOutDenied('US Privacy', 'consent US Privacy opt-out');
  // Sent before the page's GPP CMP was ready: an opt-out cannot be ruled out (fail closed).
  if (gpp === undefined) return web.gppPending === true ? GPP_PENDING : undefined;
  if (!gpp.ok) return optOutDenied('GPP', `consent GPP string malformed (${gpp.why})`);
  return gpp.optOut === undefined ? undefined : optOutDenied('GPP', `consent GPP opt-out (${gpp.optOut})`);
}
