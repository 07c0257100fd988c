/**
 * Send once (docs/delivery.md, "One event, one delivery"): the one place that decides whether a
 * call to a destination may go out. Every sending path — the first fan-out, a producer's copy that
 * reached `store` again, a Pub/Sub redelivery, a dead letter re-driven, `eventbus replay`, a
 * catalogue destination in `forward-catalog` — reaches the platform through `forward`'s core
 * (core/delivery/forward.ts), which asks `claimSend` right before the call and settles the claim
 * with `settleSend` after it. test/unit/claims/paths.test.ts lists the paths and fails when one
 * sends around it.
 *
 * The claim is a record under the delivery id (SHA-256 of event_id, payload digest and
 * destination: the same for every copy of one stored event to one destination), created only if
 * absent (core/claims/claim-store.ts). The rules:
 * - created → send.
 * - held, expired (past the window) or forced (`replay --force`) → take it over, send.
 * - held → ask the ledger whether this identity is `delivered` to this destination: yes → the
 *   copy is folded (acknowledged, a `folded` ledger row, nothing sent). No → if the holder is this
 *   same message (an earlier attempt that failed, or died), or its lease ran out (an attempt that
 *   died), take it over and send; otherwise another attempt may be sending right now: wait
 *   (answer retry; Pub/Sub brings the push back after its backoff).
 * - After the call: delivered → the claim stays until the window ends. A platform's refusal, a
 *   retryable answer or a request never made → the claim is released (a claim after a rejected
 *   answer is not a delivery). No answer (timeout, connection reset) → kept: the holder's own
 *   retry takes it over, a copy from elsewhere waits for the lease.
 */
import type { ClaimFields, ClaimKey, ClaimStore, HeldClaim } from './claim-store.ts';

/** How long a copy may fold into an earlier delivery: claims expire, the ledger is asked as far back. */
export const SEND_ONCE_DAYS = 7;
export const SEND_ONCE_WINDOW_MS = SEND_ONCE_DAYS * 86_400_000;

/**
 * How long a claim protects an attempt that may still be sending: three times the destination's
 * call timeout (the ack deadline `plan()` gives its subscription), and at least a minute. Past it
 * the attempt has answered or its instance is gone.
 */
export function leaseMs(timeoutMs: number): number {
  return Math.max(3 * timeoutMs, 60_000);
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
  | { readonly go: true; readonly ticket: SendTicket }
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
  const k = key(r.id);
  const expireAt = r.now + SEND_ONCE_WINDOW_MS;
  // Two rounds at most: a claim released or replaced between our create and our takeover.
  for (let round = 0; round < 2; round++) {
    const answer = await r.store.create(k, fields(r), expireAt);
    if (answer.created) return { go: true, ticket: { key: k, version: answer.version } };
    const held = answer.held;
    const why = takeoverReason(r, held);
    if (why === undefined) {
      let delivered: boolean;
      try {
        delivered = await r.delivered();
      } catch (err) {
        return wait(
          `${holderText(held)} holds the send-once claim and the ledger could not tell whether it delivered (${(err as Error).message})`,
        );
      }
      if (delivered)
        return {
          go: false,
          folded: true,
          reason: `a copy of an event already delivered to this destination (send-once claim of ${holderText(held)})`,
        };
      const after = afterLedger(r, held);
      if (after === undefined)
        return wait(
          `${holderText(held)} may be sending this event right now (its lease runs until ${new Date(Number(held.fields['lease_until'])).toISOString()})`,
        );
      const version = await r.store.replace(k, held.version, fields(r), expireAt);
      if (version !== undefined) return { go: true, ticket: { key: k, version, note: after } };
      continue;
    }
    const version = await r.store.replace(k, held.version, fields(r), expireAt);
    if (version !== undefined) return { go: true, ticket: { key: k, version, note: why } };
  }
  return wait('the send-once claim changed hands while this attempt took it');
}

/** A takeover that needs no ledger question: the record ran out, or the replay is forced. */
function takeoverReason(r: SendRequest, held: HeldClaim): string | undefined {
  if (held.expireAt <= r.now)
    return `send-once claim of ${holderText(held)} expired (older than ${SEND_ONCE_DAYS} days)`;
  if (r.force) return `replay --force: sent again over the send-once claim of ${holderText(held)}`;
  return undefined;
}

/** Not delivered says the ledger: whether this attempt may take the claim over, and why. */
function afterLedger(r: SendRequest, held: HeldClaim): string | undefined {
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
