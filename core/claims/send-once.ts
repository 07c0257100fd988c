/**
 * Send once (docs/delivery.md, "One event, one delivery"): the one place that decides whether a
 * call to a destination may go out. Every sending path — the first fan-out, a producer's copy that
 * reached `store` again, a Pub/Sub redelivery, a dead letter re-driven, `eventbus replay`, a
 * catalogue destination in `forward-catalog` — reaches the platform through `forward`'s core
 * (core/delivery/forward.ts), which asks `claimSend` right before the call and settles the claim
 * with `settleSend` after it. test/unit/claims/paths.test.ts lists the paths and fails when one
 * sends around it.
 *
 * Two claims make one delivery:
 * - `store`'s first sighting of the event's identity (core/store/store.ts): created only if absent,
 *   so exactly one store push fans an identity out as its *first fan-out*, marked on its
 *   `deliveries` messages with the sighting's time. That push's messages hold the claim for each
 *   destination: their first attempt, within FIRST_WINDOW_MS of being published, sends without
 *   another write. This is what keeps the usual delivery at one claim per event, not one per
 *   destination.
 * - Every other attempt — a retry, a late first attempt, a copy fanned out again, a replay — takes
 *   the send-once claim: a record under the delivery id (SHA-256 of event_id, payload digest and
 *   destination), created only if absent (core/claims/claim-store.ts):
 *   - held by another message within its lease: wait (answer retry; Pub/Sub brings it back), unless
 *     the ledger already has the delivery: folded (acknowledged, a `folded` row, nothing sent);
 *   - held, its lease run out or held by this same message: take it over if the ledger has no
 *     delivery, fold otherwise;
 *   - expired (past SEND_ONCE_DAYS) or forced (`replay --force`): take it over and send;
 *   - once held: the ledger is asked (the first fan-out writes no claim, only its ledger row), and a
 *     message that is not the first fan-out's waits while the first fan-out may still be sending
 *     (`horizon`), then sends if nothing was delivered.
 * - After the call: delivered → the claim stays until the window ends. A platform's refusal, a
 *   retryable answer or a request never made → released (a claim after a rejected answer is not a
 *   delivery). No answer (timeout, connection reset) → kept: the holder's own retry takes it over,
 *   a copy from elsewhere waits for the lease.
 */
import type { ClaimFields, ClaimKey, ClaimStore, HeldClaim } from './claim-store.ts';

/** How long a copy may fold into an earlier delivery: claims expire, the ledger is asked as far back. */
export const SEND_ONCE_DAYS = 7;
export const SEND_ONCE_WINDOW_MS = SEND_ONCE_DAYS * 86_400_000;

/**
 * How long after it is published a first fan-out's message may send on its first attempt without
 * a claim of its own. Later (a backlog), it takes the claim like any other attempt.
 */
export const FIRST_WINDOW_MS = 2 * 60_000;

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
 * push after the sighting, its first attempt at most FIRST_WINDOW_MS after that, and the call ends
 * within its lease.
 */
export function firstFanOutHorizon(sightedAt: number, storePushMs: number, timeoutMs: number): number {
  return sightedAt + storePushMs + FIRST_WINDOW_MS + leaseMs(timeoutMs);
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
  /** An explicit `replay --force`: sends again whatever the ledger says. */
  readonly force: boolean;
  /** The first fan-out's message on its first attempt, within FIRST_WINDOW_MS: it sends as is. */
  readonly privileged: boolean;
  /**
   * For a message that is not the first fan-out's: until when that one may still be sending
   * (firstFanOutHorizon); undefined when this is the first fan-out's message or none can be.
   */
  readonly horizon: number | undefined;
  /**
   * Whether the ledger has this identity `delivered` to this destination; rejects when it
   * cannot tell (the caller waits: a fold is never a guess, nor is a second send).
   */
  readonly delivered: () => Promise<boolean>;
}

/** A claim this attempt holds: what settleSend needs. */
export interface SendTicket {
  readonly key: ClaimKey;
  readonly version: string;
  /** Set when the claim was taken over from another holder or forced: the ledger row says so. */
  readonly note?: string;
}

export type SendVerdict =
  /** `ticket` is absent for the first fan-out's first attempt, which holds store's claim. */
  | { readonly go: true; readonly ticket?: SendTicket }
  | { readonly go: false; readonly folded: true; readonly reason: string }
  | { readonly go: false; readonly folded: false; readonly reason: string };

const key = (id: string): ClaimKey => ({ space: 'sends', id });

function fields(r: SendRequest): ClaimFields {
  return {
    holder: r.holder,
    attempt: r.attempt,
    claimed_at: r.now,
    lease_until: r.now + leaseMs(r.timeoutMs),
  };
}

/** The claim before the call. Rejects only when the claim store cannot be reached. */
export async function claimSend(r: SendRequest): Promise<SendVerdict> {
  if (r.privileged && !r.force) return { go: true };
  const k = key(r.id);
  const expireAt = r.now + SEND_ONCE_WINDOW_MS;
  // Two rounds at most: a claim released or replaced between our create and our takeover.
  for (let round = 0; round < 2; round++) {
    const answer = await r.store.create(k, fields(r), expireAt);
    if (answer.created) return afterClaim(r, { key: k, version: answer.version }, true);
    const held = answer.held;
    const forcedOrExpired = overrule(r, held);
    if (forcedOrExpired !== undefined) {
      const version = await r.store.replace(k, held.version, fields(r), expireAt);
      if (version !== undefined) return { go: true, ticket: { key: k, version, note: forcedOrExpired } };
      continue;
    }
    const ledger = await askLedger(r, held);
    if (ledger !== 'not delivered') return ledger;
    const why = takeover(r, held);
    if (why === undefined)
      return wait(
        `${holderText(held)} may be sending this event right now (its lease runs until ${new Date(Number(held.fields['lease_until'])).toISOString()})`,
      );
    const version = await r.store.replace(k, held.version, fields(r), expireAt);
    if (version !== undefined) return afterClaim(r, { key: k, version, note: why }, false);
  }
  return wait('the send-once claim changed hands while this attempt took it');
}

/**
 * The claim is ours. A claim just created says nothing of the first fan-out, which writes none:
 * the ledger is asked. A message that is not the first fan-out's then waits while that one may
 * still be sending.
 */
async function afterClaim(r: SendRequest, ticket: SendTicket, created: boolean): Promise<SendVerdict> {
  if (created) {
    const ledger = await askLedger(r, undefined);
    if (ledger !== 'not delivered') return ledger;
  }
  if (r.horizon !== undefined && r.now < r.horizon)
    return wait(
      `the event's first fan-out may still be sending to this destination (until ${new Date(r.horizon).toISOString()})`,
    );
  return { go: true, ticket };
}

/** The ledger's word on a held claim: folded, a wait when it cannot tell, or 'not delivered'. */
async function askLedger(
  r: SendRequest,
  held: HeldClaim | undefined,
): Promise<SendVerdict | 'not delivered'> {
  const who = held ? `the send-once claim of ${holderText(held)}` : 'the first fan-out';
  let delivered: boolean;
  try {
    delivered = await r.delivered();
  } catch (err) {
    return wait(`the ledger could not tell whether ${who} delivered (${(err as Error).message})`);
  }
  if (!delivered) return 'not delivered';
  return {
    go: false,
    folded: true,
    reason: `a copy of an event already delivered to this destination (${who})`,
  };
}

/** A takeover that needs no ledger question: the record ran out, or the replay is forced. */
function overrule(r: SendRequest, held: HeldClaim): string | undefined {
  if (held.expireAt <= r.now)
    return `send-once claim of ${holderText(held)} expired (older than ${SEND_ONCE_DAYS} days)`;
  if (r.force) return `replay --force: sent again over the send-once claim of ${holderText(held)}`;
  return undefined;
}

/** Not delivered says the ledger: whether this attempt may take the claim over, and why. */
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

function wait(reason: string): SendVerdict {
  return { go: false, folded: false, reason: `held: ${reason}; trying again later` };
}

/** What the call came to, as the claim sees it. */
export type SendOutcome = 'delivered' | 'refused' | 'unanswered';

/**
 * After the call: a delivery keeps the claim; a refusal (rejected, retryable answer, no request
 * made) releases it; no answer keeps it for the lease. A release that fails is harmless: the
 * holder's retry takes its own claim over, and others wait for the lease. Never rejects.
 */
export function settleSend(store: ClaimStore, ticket: SendTicket, outcome: SendOutcome): Promise<void> {
  if (outcome !== 'refused') return Promise.resolve();
  return store.release(ticket.key, ticket.version).then(
    () => undefined,
    () => undefined,
  );
}
