/**
 * Events decided before the consent platform answered (docs/delivery.md, "A consent platform
 * slower than the tag"): a destination skipped because the event carried no answer yet — GDPR
 * said to apply with no TC string, a GPP CMP not ready, or a needed purpose no signal states — is
 * kept in a small pending record of its page view for WAIT_MS. A later event of the same page view
 * that brings the platform's answer has each kept event decided again under that answer: a
 * destination it now permits is sent the event once (a `deliveries` message that takes the
 * send-once claim, core/claims/send-once.ts), one it refuses drops it for good.
 *
 * The page view is the event's source with its anonymous id (the id the tag keeps in memory for
 * the page until storage is permitted, so it names the page view when nothing is stored; the
 * stored id once it is), else its session key (a cookieless page's). The record is a claim of the
 * space `pending` (core/claims/claim-store.ts, in the claims database): no warehouse query on the
 * delivery path. Costs: one document read per push for each page view whose events bring an
 * answer, and a write for each push that keeps or settles events (docs/scale.md).
 *
 * An erased person's kept events (docs/privacy.md, "After an erasure"): a record holds whole
 * events, identifiers included, for at most WAIT_MS. Every push that reads a record first checks
 * its events against the erased list, as `store` checks a new event: a match is kept without the
 * person's identifiers (`strip`) or dropped (`drop`) before anything is decided again, and the
 * record is written back without them. No late answer sends the person's identifiers (`forward`
 * also strips them from any message older than the erasure).
 */
import { createHash } from 'node:crypto';
import type { Settings } from '../../schemas/settings.ts';
import type { ClaimKey, ClaimStore, HeldClaim } from '../claims/claim-store.ts';
import { awaitsConsent } from '../consent/resolve.ts';
import { webConsent } from '../consent/web-consent.ts';
import { CATALOGUE_OPTIONS, type DecisionOptions, decideOne } from '../decision/decision.ts';
import type { StoredEvent } from '../event.ts';
import { DEFAULT_CONSENT } from '../platforms/requirements.ts';
import { sightingOf } from '../store/copies.ts';
import { type Suppression, stripIdentifiers, suppressionVerdict } from '../suppression/erased.ts';
import { type DeliveryMessage, reevaluatedMessage } from './message.ts';

/** How long an event decided without the consent platform's answer waits for it (60 minutes). */
export const WAIT_MS = 60 * 60_000;
/** At most this many events wait per page view; later ones are not kept (their skip stands). */
export const WAIT_MAX_EVENTS = 50;
/** At most this many characters of kept events per page view (a Firestore document holds 1 MiB). */
export const WAIT_MAX_CHARS = 512 * 1024;
/** How often a record that changed under us is read again before the push fails and comes back. */
const TRIES = 5;

/** One kept event: the stored event, the destinations that waited, when it was kept (epoch ms). */
export interface Waiting {
  readonly event: StoredEvent;
  readonly destinations: readonly string[];
  readonly at: number;
}

/** The page view an event belongs to, as a claim key; undefined when it names none. */
export function pageViewKey(event: StoredEvent): ClaimKey | undefined {
  const who = event.anonymous_id
    ? `a:${event.anonymous_id}`
    : event.session_id
      ? `s:${event.session_id}`
      : '';
  if (who === '') return undefined;
  const id = createHash('sha256')
    .update(`${event.topic ?? ''}\n${event.source ?? ''}\n${who}`)
    .digest('hex');
  return { space: 'pending', id };
}

/**
 * Whether the event carries a consent platform's answer: some consent stated, and neither of the
 * tag's marks of a platform that had not answered (GDPR applying with no TC string, `gpp_pending`).
 */
export function answersConsent(event: StoredEvent): boolean {
  const consent = event.consent;
  if (consent === undefined || Object.keys(consent).length === 0) return false;
  const web = webConsent(event);
  if (web.gppPending === true && web.gpp === undefined) return false;
  return !(web.gdprApplies === true && web.tcf === undefined && web.gpp === undefined);
}

/** The destinations of a fan-out's skips that wait for an answer, per event. */
export function waitingOf(
  skips: readonly { readonly event: StoredEvent; readonly destination: string; readonly reason: string }[],
  now: number,
): Waiting[] {
  const byEvent = new Map<StoredEvent, string[]>();
  for (const s of skips) {
    // A producer's copy was decided as its first message was, which kept it.
    if (!awaitsConsent(s.reason) || sightingOf(s.event)?.owner === false) continue;
    const list = byEvent.get(s.event) ?? [];
    list.push(s.destination);
    byEvent.set(s.event, list);
  }
  return [...byEvent].map(([event, destinations]) => ({ event, destinations, at: now }));
}

/** What a page view's kept events come to under an answer: messages to send, events still waiting. */
export function reevaluate(
  settings: Readonly<Settings>,
  kept: readonly Waiting[],
  answer: StoredEvent,
  options: DecisionOptions = CATALOGUE_OPTIONS,
): { readonly send: DeliveryMessage[]; readonly waiting: Waiting[] } {
  const honorGpc = settings.producers?.honor_gpc ?? true;
  const opts = { ...options, honorGpc };
  const send: DeliveryMessage[] = [];
  const waiting: Waiting[] = [];
  const byId = new Map((settings.destinations ?? []).map((d) => [d.id, d]));
  for (const w of kept) {
    const event = answer.consent === undefined ? w.event : { ...w.event, consent: answer.consent };
    const still: string[] = [];
    for (const id of w.destinations) {
      const destination = byId.get(id);
      if (destination === undefined) continue;
      const d = decideOne(destination, event, opts);
      if (d.action === 'send') send.push(reevaluatedMessage(event, id));
      else if (awaitsConsent(d.reason)) still.push(id);
    }
    if (still.length > 0) waiting.push({ ...w, destinations: still });
  }
  return { send, waiting };
}

/** The kept events of a record, those younger than WAIT_MS; a field that is not ours reads as none. */
export function keptOf(held: HeldClaim | undefined, now: number): Waiting[] {
  const text = held?.fields['entries'];
  if (typeof text !== 'string') return [];
  try {
    const entries = JSON.parse(text) as Waiting[];
    return Array.isArray(entries) ? entries.filter((w) => w && now - w.at < WAIT_MS && w.event) : [];
  } catch {
    return [];
  }
}

/**
 * The kept events without an erased person's identifiers: each event the erased list names is kept
 * stripped of them or dropped, as the list's mode says (core/suppression/erased.ts).
 */
export function withoutErased(kept: readonly Waiting[], list: Suppression | undefined): Waiting[] {
  const out: Waiting[] = [];
  for (const w of kept) {
    const verdict = suppressionVerdict(w.event, list);
    if (verdict === 'keep') out.push(w);
    else if (verdict === 'strip') out.push({ ...w, event: stripIdentifiers(w.event) });
  }
  return out;
}

/** Adds events to a page view's kept ones, each once (by event id, digest and destination), within the bounds. */
export function merged(kept: readonly Waiting[], adds: readonly Waiting[]): Waiting[] {
  const out = [...kept];
  const seen = new Set(kept.flatMap((w) => w.destinations.map((d) => idOf(w.event, d))));
  let chars = JSON.stringify(out).length;
  for (const w of adds) {
    const destinations = w.destinations.filter((d) => !seen.has(idOf(w.event, d)));
    if (destinations.length === 0) continue;
    const entry = { ...w, destinations };
    const size = JSON.stringify(entry).length;
    if (out.length >= WAIT_MAX_EVENTS || chars + size > WAIT_MAX_CHARS) break;
    out.push(entry);
    chars += size;
    for (const d of destinations) seen.add(idOf(w.event, d));
  }
  return out;
}

const idOf = (event: StoredEvent, destination: string) =>
  `${event.event_id}\n${event.payload_digest ?? ''}\n${destination}`;

export interface ConsentWaitDeps {
  readonly settings: Readonly<Settings>;
  readonly records: ClaimStore;
  /** Publishes the messages of re-evaluated events (before the record changes: a lost update sends again, folded). */
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  readonly options?: DecisionOptions;
  /** The erased persons' list as the store function holds it (adapters/suppression-list.ts). */
  readonly suppression?: () => Suppression | undefined;
}

/**
 * The fan-out's second step: keeps the events skipped for want of an answer (`skips`), and decides
 * again those kept for every page view whose events in `events` bring one. Resolves with the
 * messages it published; rejects when the claims database cannot be reached (the push comes back).
 */
export function createConsentWait(
  deps: ConsentWaitDeps,
): (
  events: readonly StoredEvent[],
  skips: readonly { event: StoredEvent; destination: string; reason: string }[],
  now: number,
) => Promise<readonly DeliveryMessage[]> {
  // Where no destination needs a purpose, no event ever waits: no record is read.
  const gated = (deps.settings.destinations ?? []).some(
    (d) => d.enabled !== false && (d.consent ?? DEFAULT_CONSENT[d.type]).length > 0,
  );
  return async (events, skips, now) => {
    if (!gated) return [];
    const pages = new Map<string, { key: ClaimKey; adds: Waiting[]; answer?: StoredEvent }>();
    const page = (event: StoredEvent) => {
      const key = pageViewKey(event);
      if (key === undefined) return undefined;
      const p = pages.get(key.id) ?? { key, adds: [] };
      pages.set(key.id, p);
      return p;
    };
    for (const w of waitingOf(skips, now)) page(w.event)?.adds.push(w);
    for (const e of events) {
      if (!answersConsent(e)) continue;
      const p = page(e);
      // The latest answer of the page view in this push decides.
      if (p && (p.answer === undefined || p.answer.event_time <= e.event_time)) p.answer = e;
    }
    const sent = await Promise.all(
      [...pages.values()].map((p) => settle(deps, p.key, p.adds, p.answer, now)),
    );
    return sent.flat();
  };
}

/** One page view: its record read (or made), the answer applied, the record written back or released. */
async function settle(
  deps: ConsentWaitDeps,
  key: ClaimKey,
  adds: readonly Waiting[],
  answer: StoredEvent | undefined,
  now: number,
): Promise<DeliveryMessage[]> {
  for (let i = 0; i < TRIES; i++) {
    let held: HeldClaim | undefined;
    if (adds.length > 0 && answer === undefined) {
      const made = await deps.records.create(
        key,
        { entries: JSON.stringify(merged([], adds)) },
        now + WAIT_MS,
      );
      if (made.created) return [];
      held = made.held;
    } else {
      held = await deps.records.read(key);
      if (held === undefined && answer !== undefined && adds.length === 0) return [];
    }
    const all = merged(withoutErased(keptOf(held, now), deps.suppression?.()), adds);
    const { send, waiting } = answer
      ? reevaluate(deps.settings, all, answer, deps.options)
      : { send: [], waiting: all };
    if (send.length > 0) await deps.publish(send);
    const written = await write(deps.records, key, held, waiting, now);
    if (written) return send;
  }
  throw new Error(`the pending record ${key.space}/${key.id} kept changing: trying the push again`);
}

/** Writes the page view's waiting events (or removes the record when none wait); false when it changed meanwhile. */
async function write(
  records: ClaimStore,
  key: ClaimKey,
  held: HeldClaim | undefined,
  waiting: readonly Waiting[],
  now: number,
): Promise<boolean> {
  if (held === undefined) {
    if (waiting.length === 0) return true;
    const made = await records.create(key, { entries: JSON.stringify(waiting) }, expiry(waiting, now));
    return made.created;
  }
  if (waiting.length === 0) return records.release(key, held.version);
  const version = await records.replace(
    key,
    held.version,
    { entries: JSON.stringify(waiting) },
    expiry(waiting, now),
  );
  return version !== undefined;
}

/** The record lasts as long as its youngest event waits. */
const expiry = (waiting: readonly Waiting[], now: number) =>
  Math.max(now, ...waiting.map((w) => w.at)) + WAIT_MS;
