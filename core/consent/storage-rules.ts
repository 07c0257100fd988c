/**
 * What consent lets this project keep on a visitor's device (docs/browser.md, "Storage waits for
 * consent"): one table from a consent state to a verdict for each piece of storage the tag or the
 * gateway sets — the anonymous id (cookie and localStorage, with the user id), Meta's `_fbp` and
 * `_fbc`, a `_ga` cookie, the landing's campaign parameters and the site's consent choice. The
 * tag's consent reader (gateway/tag/cmp.ts, loaded beside the tag) and the gateway's answer
 * (gateway/id-cookies.ts) both ask it, each from the signals it can see, so the page and the
 * server cannot disagree on what may be stored. Pure, and free of any import: it is bundled into
 * the browser's script as it is.
 */

/** The storage this project sets. */
export type StorageItem = 'id' | 'fbp' | 'fbc' | 'ga' | 'campaign' | 'consent';

/**
 * `store`: written (or kept) where the side that owns it writes it; `remove`: deleted, by the tag
 * from the page and by the gateway's answer (`Max-Age=0`) where the browser sent it; `leave`:
 * neither written nor deleted (what is there stays, nothing new is written).
 */
export type StorageVerdict = 'store' | 'remove' | 'leave';

/** One consent state, from the signals (storageState). */
export type StorageState =
  | 'granted'
  | 'ads_refused'
  | 'ads_unstated'
  | 'opt_out'
  | 'refused'
  | 'withdrawn'
  | 'unknown'
  | 'malformed'
  | 'cookieless';

/** The signals each side reads into a state. */
export interface StorageSignals {
  /** Storage on the device (`analytics`, Consent Mode's `analytics_storage`, TCF purpose 1), every signal weighed, a refusal winning. */
  readonly storage: 'granted' | 'denied' | undefined;
  /** The `ads` purpose (`ad_storage`; TCF purpose 1 too), weighed the same way, opt-outs included. */
  readonly ads: 'granted' | 'denied' | undefined;
  /** Whether `ads` is denied by an opt-out of sale or sharing (GPC, US Privacy, GPP). */
  readonly optOut: boolean;
  /** Whether a TC string, where GDPR applies, cannot be read. */
  readonly malformed: boolean;
  /** Whether a consent platform on the page has not answered yet (TCF silent, GPP not ready). */
  readonly pending: boolean;
  /** The page is cookieless (the tag's `data-cookieless`). */
  readonly cookieless: boolean;
  /** Whether any of our storage is there already (the page's storage, the request's cookies). */
  readonly had: boolean;
}

const ALL = (v: StorageVerdict): Readonly<Record<StorageItem, StorageVerdict>> =>
  Object.freeze({ id: v, fbp: v, fbc: v, ga: v, campaign: v, consent: v });

/**
 * Storage granted; Meta's cookies as `fbp` (and `fbc`) say. `_ga` is storage alone (analytics): the
 * gateway reads it into the event and sets it with GA4's client id; the tag never writes it.
 */
const WITH_STORAGE = (meta: StorageVerdict): Readonly<Record<StorageItem, StorageVerdict>> =>
  Object.freeze({ id: 'store', fbp: meta, fbc: meta, ga: 'store', campaign: 'store', consent: 'store' });

/**
 * The table. A refusal of storage removes everything (a withdrawal too: what was stored while it
 * was granted goes); storage unknown (no signal yet, or a platform still silent) writes nothing
 * and deletes nothing; a cookieless page never touches storage. With storage granted, Meta's
 * cookies need `ads` granted too: refused or opted out (GPC, US Privacy, GPP) they are removed;
 * unstated, they are left as they are.
 */
export const STORAGE_RULES: Readonly<Record<StorageState, Readonly<Record<StorageItem, StorageVerdict>>>> =
  Object.freeze({
    granted: WITH_STORAGE('store'),
    ads_refused: WITH_STORAGE('remove'),
    opt_out: WITH_STORAGE('remove'),
    ads_unstated: WITH_STORAGE('leave'),
    refused: ALL('remove'),
    withdrawn: ALL('remove'),
    malformed: ALL('remove'),
    unknown: ALL('leave'),
    cookieless: ALL('leave'),
  });

/**
 * The state the signals make: cookieless first; then a refusal of storage (a malformed TC string,
 * a withdrawal when something of ours is there); then unknown (nothing said, or a platform still
 * silent); with storage granted, what `ads` says.
 */
export function storageState(s: StorageSignals): StorageState {
  if (s.cookieless) return 'cookieless';
  if (s.malformed) return 'malformed';
  if (s.storage === 'denied') return s.had ? 'withdrawn' : 'refused';
  if (s.pending || s.storage === undefined) return 'unknown';
  if (s.ads === 'granted') return 'granted';
  if (s.optOut) return 'opt_out';
  return s.ads === 'denied' ? 'ads_refused' : 'ads_unstated';
}

/** Each item's verdict for the signals. */
export const storageVerdicts = (s: StorageSignals): Readonly<Record<StorageItem, StorageVerdict>> =>
  STORAGE_RULES[storageState(s)];
