/**
 * Send once (docs/delivery.md, "One event, one delivery"): the one place that decides whether a
 * call to a destination may go out. Every sending path — the first fan-out, a producer's copy that
 * reached `store` again, a Pub/Sub redelivery, a dead letter re-driven, `eventbus replay`, a
 * catalogue destination in `forward-catalog` — reaches the platform through `forward`'s core
 * (core/delivery/forward.ts), which asks `claimSend` right before the call and settles the claim
 * with `settleSend` (or `settleFirst`) after it. test/unit/claims/paths.test.ts lists the paths
 * and fails when one sends around it.
 *
 * Whether a delivery already happened is known from the claim store alone: never from the
 * warehouse (the ledger is the record, not the lock; no query runs on the delivery path).
 *
 * - `store`'s first sighting of the event's identity (core/store/store.ts): created only if absent,
 *   so exactly one store push fans an identity out as its *first fan-out*, marked on its
 *   `deliveries` messages with the sighting's time. That push's messages hold the claim for each
 *   destination: their first attempt, within FIRST_WINDOW_MS of being published, sends without a
 *   claim beforehand, and a delivery settles a record `delivered` afterwards (`settleFirst`).
 * - Every other attempt — a retry, a late first attempt, a copy fanned out again, a replay — takes
 *   the send-once claim: a record under the delivery id (SHA-256 of event_id, payload digest and
 *   destination), created only if absent (core/claims/claim-store.ts), and the record it finds is
 *   read in the same step (a create that fails returns what holds the key):
 *   - settled `delivered`: folded (acknowledged, a `folded` row, nothing sent);
 *   - held by another message within its lease: wait (answer retry; Pub/Sub brings it back);
 *   - held, its lease run out or held by this same message: take it over and send;
 *   - expired (past SEND_ONCE_DAYS), forced (`replay --force`) or unreadable (a malformed
 *     document: a fault of ours, repaired by replacing it): take it over;
 *   - a message that is not the first fan-out's waits while the first fan-out may still be sending
 *     (`horizon`), then sends unless the record was settled delivered meanwhile.
 * - After the call: delivered → the claim is settled `delivered` with the outcome and stays until
 *   the window ends. A platform's refusal, a retryable answer or a request never made → released
 *   (a claim after a rejected answer is not a delivery). No answer (timeout, connection reset) →
 *   kept: the holder's own retry takes it over, a copy from elsewhere waits for the lease.
 */
import type { ClaimFields, ClaimKey, ClaimStore, HeldClaim } from './claim-store.ts';

/** How long a copy may fold into an earlier delivery: claims (and their settled outcome) expire then. */
export const SEND_ONCE_DAYS = 7;
export const SEND_ONCE_WINDOW_MS = SEND_ONCE_DAYS * 86_400_000;

/**
 * How long after it is published a first fan-out's message may send on its first attempt without
 * a claim of its own. Later (a backlog), it takes the claim like any other attempt.
 */
export const FIRST_WINDOW_MS = 2 * 60_000;

/** What a claim says of its delivery: being sent now, or settled delivered (with the outcome). */
export type ClaimStatus = 'sending' | 'delivered';

/**
 * How long a claim protects an attempt that may still be sending: three times the destination's
 * call timeout (the ack deadline `plan()` gives its subscription), and at least a minute. Past it
 * the attempt has answered or its instance is gone.
 */
export function leaseMs(timeoutMs: number): number {
  return Math.max(3 * timeoutMs, 60_000);
}

/**
 * Until when a first fan-out's message may still be sending: its publish comes at most one store
 * push after the sighting, its first attempt at most the first window (FIRST_WINDOW_MS unless
 * EVENTBUS_FIRST_WINDOW_MS sets it) after that, and the call ends within its lease.
 */
export function firstFanOutHorizon(
  sightedAt: number,
  storePushMs: number,
  timeoutMs: number,
  windowMs: number = FIRST_WINDOW_MS,
): number {
  return sightedAt + storePushMs + windowMs + leaseMs(timeoutMs);
}

export interface SendRequest {
  readonly store: ClaimStore;
  /** The delivery id (core/identity.ts). */
  readonly id: string;
  /** The `deliveries` message that wants to send: one holder across its attempts. */
  readonly holder: string;
  readonly attempt: number;
  readonly now: number;
  readonly timeoutMs: number;
  /** An explicit `replay --force`: sends again whatever the claim says. */
  readonly force: boolean;
  /** The first fan-out's message on its first attempt, within FIRST_WINDOW_MS: it sends as is. */
  readonly privileged: boolean;
  /**
   * For a message that is not the first fan-out's: until when that one may still be sending
   * (firstFanOutHorizon); undefined when this is the first fan-out's message or none can be.
   */
  readonly horizon: number | undefined;
}

/** A claim this attempt holds: what settleSend needs. */
export interface SendTicket {
  readonly key: ClaimKey;
  readonly version: string;
  /** The fields the claim was taken with (settled `delivered`, they are kept). */
  readonly fields: ClaimFields;
  readonly expireAt: number;
  /** Set when the claim was taken over from another holder, forced or repaired: the ledger row says so. */
  readonly note?: string;
}

export type SendVerdict =
  /** `ticket` is absent for the first fan-out's first attempt, which holds store's claim. */
  | { readonly go: true; readonly ticket?: SendTicket }
  | {
      readonly go: false;
      readonly folded: true;
      readonly reason: string;
      /**
       * The record was settled by this same message: its own earlier attempt delivered, and the
       * message came back (its process stopped between the settle and the acknowledgement, maybe
       * before the ledger row). That attempt, to record the delivery again (REDELIVERY_RECORD).
       */
      readonly own?: { readonly attempt: number; readonly outcome: string };
    }
  | { readonly go: false; readonly folded: false; readonly reason: string };

/**
 * How the reason of a `delivered` row begins when a message records its own earlier delivery
 * again: one delivery, maybe with a second row of it, never a second send. Readers counting sends
 * count the rows without it (scripts/chaos.ts).
 */
export const REDELIVERY_RECORD = 'recorded again by its redelivery: ';

const key = (id: string): ClaimKey => ({ space: 'sends', id });

function fields(holder: string, attempt: number, now: number, timeoutMs: number): ClaimFields {
  return {
    holder,
    attempt,
    claimed_at: now,
    lease_until: now + leaseMs(timeoutMs),
    status: 'sending' satisfies ClaimStatus,
  };
}

/** The claim before the call. Rejects only when the claim store cannot be reached or refuses. */
export async function claimSend(r: SendRequest): Promise<SendVerdict> {
  if (r.privileged && !r.force) return { go: true };
  const k = key(r.id);
  const expireAt = r.now + SEND_ONCE_WINDOW_MS;
  const mine = fields(r.holder, r.attempt, r.now, r.timeoutMs);
  const take = async (held: HeldClaim, note: string): Promise<SendVerdict | undefined> => {
    const version = await r.store.replace(k, held.version, mine, expireAt);
    if (version === undefined) return undefined;
    return afterClaim(r, { key: k, version, fields: mine, expireAt, note });
  };
  // Two rounds at most: a claim released or replaced between our create and our takeover.
  for (let round = 0; round < 2; round++) {
    const answer = await r.store.create(k, mine, expireAt);
    if (answer.created) return afterClaim(r, { key: k, version: answer.version, fields: mine, expireAt });
    const held = answer.held;
    // A document no claim of ours could have written: our fault, not the destination's. Replaced
    // (it tells nothing, so it is as if absent), never a reason to wait.
    if (held.malformed !== undefined) {
      const verdict = await take(held, `replaced a malformed send-once claim (${held.malformed})`);
      if (verdict) return verdict;
      continue;
    }
    const overruled = overrule(r, held);
    if (overruled !== undefined) {
      const version = await r.store.replace(k, held.version, mine, expireAt);
      if (version !== undefined)
        return { go: true, ticket: { key: k, version, fields: mine, expireAt, note: overruled } };
      continue;
    }
    if (held.fields['status'] === 'delivered') {
      const before = Number(held.fields['attempt']);
      const mineBefore = held.fields['holder'] === r.holder && Number.isInteger(before) && before > 0;
      return {
        go: false,
        folded: true,
        reason: `a copy of an event already delivered to this destination (the send-once claim of ${holderText(held)} was settled delivered${outcomeText(held)})`,
        ...(mineBefore ? { own: { attempt: before, outcome: outcomeText(held).slice(2) } } : {}),
      };
    }
    const why = takeover(r, held);
    if (why === undefined)
      return wait(
        `${holderText(held)} may be sending this event right now (its lease runs until ${new Date(Number(held.fields['lease_until'])).toISOString()})`,
      );
    const verdict = await take(held, why);
    if (verdict) return verdict;
  }
  return wait('the send-once claim changed hands while this attempt took it');
}

/**
 * The claim is ours. A message that is not the first fan-out's waits while that one may still be
 * sending: once it delivers, it settles this same record `delivered`, and the wait's retry folds.
 */
function afterClaim(r: SendRequest, ticket: SendTicket): SendVerdict {
  if (r.horizon !== undefined && r.now < r.horizon)
    return wait(
      `the event's first fan-out may still be sending to this destination (until ${new Date(r.horizon).toISOString()})`,
    );
  return { go: true, ticket };
}

/** A takeover that needs no other question: the record ran out, or the replay is forced. */
function overrule(r: SendRequest, held: HeldClaim): string | undefined {
  if (held.expireAt <= r.now)
    return `send-once claim of ${holderText(held)} expired (older than ${SEND_ONCE_DAYS} days)`;
  if (r.force) return `replay --force: sent again over the send-once claim of ${holderText(held)}`;
  return undefined;
}

/** Not delivered says the claim: whether this attempt may take it over, and why. */
function takeover(r: SendRequest, held: HeldClaim): string | undefined {
  if (held.fields['holder'] === r.holder)
    return `retry of this message after attempt ${String(held.fields['attempt'])}`;
  const lease = Number(held.fields['lease_until']);
  if (!(lease > r.now)) return `taken over from ${holderText(held)}, whose lease ran out undelivered`;
  return undefined;
}

function holderText(held: HeldClaim): string {
  return `message ${String(held.fields['holder'])} (attempt ${String(held.fields['attempt'])})`;
}

function outcomeText(held: HeldClaim): string {
  const outcome = held.fields['outcome'];
  return typeof outcome === 'string' && outcome ? `: ${outcome}` : '';
}

/**
 * How the ledger row of an attempt held by the send-once claim begins (waiting for another holder,
 * or the claim store unreachable): a fault or a wait of ours, never the platform's answer, so it
 * counts neither toward the destination's health nor against its re-drive (core/delivery/redrive.ts).
 */
export const CLAIM_HOLD_PREFIX = 'held: ';

function wait(reason: string): SendVerdict {
  return { go: false, folded: false, reason: `${CLAIM_HOLD_PREFIX}${reason}; trying again later` };
}

/** What the call came to, as the claim sees it. */
export type SendOutcome = 'delivered' | 'refused' | 'unanswered';

/** The outcome text a settled claim keeps: bounded, so a long answer never makes a large document. */
const OUTCOME_CHARS = 200;

function settledFields(base: ClaimFields, outcome: string): ClaimFields {
  return { ...base, status: 'delivered' satisfies ClaimStatus, outcome: outcome.slice(0, OUTCOME_CHARS) };
}

/**
 * After the call: a delivery settles the claim `delivered` with `detail` (the outcome); a refusal
 * (rejected, retryable answer, no request made) releases it; no answer keeps it for the lease.
 * Resolves with a warning when the store could not be told (a later copy may then send again),
 * undefined otherwise. Never rejects.
 */
export function settleSend(
  store: ClaimStore,
  ticket: SendTicket,
  outcome: SendOutcome,
  detail = 'delivered',
): Promise<string | undefined> {
  if (outcome === 'unanswered') return Promise.resolve(undefined);
  const written =
    outcome === 'refused'
      ? store.release(ticket.key, ticket.version).then(() => undefined)
      : store
          .replace(ticket.key, ticket.version, settledFields(ticket.fields, detail), ticket.expireAt)
          // Someone else's now (a forced replay, a takeover after our lease): their record stands.
          .then(() => undefined);
  return written.then(
    () => undefined,
    (err: unknown) => `the send-once claim could not be settled (${(err as Error).message})`,
  );
}

/** The first fan-out's delivery, as its record needs it. */
export type FirstDelivery = Pick<SendRequest, 'store' | 'id' | 'holder' | 'attempt' | 'now' | 'timeoutMs'> & {
  /** The outcome the record keeps (HTTP status, the driver's note). */
  readonly detail: string;
};

/**
 * After the first fan-out's first attempt delivered (it took no claim beforehand): the record
 * `delivered`, created, or written over whatever another attempt holds (that one's own settle or
 * retry then finds it delivered). Resolves with a warning when the store could not be told.
 */
export async function settleFirst(f: FirstDelivery): Promise<string | undefined> {
  const k = key(f.id);
  const expireAt = f.now + SEND_ONCE_WINDOW_MS;
  const record = settledFields(fields(f.holder, f.attempt, f.now, f.timeoutMs), f.detail);
  try {
    for (let round = 0; round < 3; round++) {
      const answer = await f.store.create(k, record, expireAt);
      if (answer.created) return undefined;
      if (answer.held.fields['status'] === 'delivered' && answer.held.malformed === undefined)
        return undefined;
      if ((await f.store.replace(k, answer.held.version, record, expireAt)) !== undefined) return undefined;
    }
    return 'the send-once claim kept changing hands while the delivery was settled';
  } catch (err) {
    return `the send-once claim could not be settled delivered (${(err as Error).message})`;
  }
}
