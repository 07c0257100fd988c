/**
 * One push to `forward`, as a function of injected I/O (jitsu habit): find the destination
 * named by the message's `destination` attribute, read its secrets, prepare the request with
 * its driver, send it, interpret the answer, and say which ledger rows to write and whether
 * to acknowledge. Retryable outcomes are not acknowledged, so Pub/Sub redelivers with
 * backoff; dead letters are recorded from the dead-letter topic (dead-letter.ts). Whether a
 * redelivery or a copy was already delivered is the send-once claim's word
 * (core/claims/send-once.ts), never a warehouse query: the ledger is the record, not the lock.
 */

import type { Destination } from '../../schemas/settings.ts';
import type { ClaimStore } from '../claims/claim-store.ts';
import {
  CLAIM_HOLD_PREFIX,
  claimSend,
  FIRST_WINDOW_MS,
  firstFanOutHorizon,
  REDELIVERY_RECORD,
  type SendOutcome,
  type SendTicket,
  settleFirst,
  settleSend,
} from '../claims/send-once.ts';
import { type DefinedEvent, withDefinitionMappings } from '../definitions/defined-events.ts';
import { EGRESS_REFUSED_CODE } from '../egress/policy.ts';
import type { StoredEvent } from '../event.ts';
import { deliveryId } from '../identity.ts';
import { andThen, asPromise, isPending, type MaybePromise } from '../maybe-async.ts';
import type {
  Driver,
  DriverContext,
  InboundResponse,
  OutboundRequest,
  Performed,
  Prepared,
} from '../platforms/driver.ts';
import type { AnswerColumns } from '../platforms/platform-answer.ts';
import { type Suppression, stripIdentifiers, suppressionVerdict } from '../suppression/erased.ts';
import { type Breaker, FAILURES_TO_OPEN, retryAfterTime, retryInfoTime } from './breaker.ts';
import { type Handshakes, handshakeRefusal } from './handshake.ts';
import { requestIdentifiers } from './identifiers.ts';
import { attemptEntry, type LedgerEntry, type LedgerStatus } from './ledger.ts';
import type { ConcurrencyLimiter } from './limiter.ts';
import { DELIVERY_ATTRIBUTES, type PushedMessage, parseStoredEvent } from './message.ts';
import { probeRequest } from './probe.ts';
import { readSecrets } from './secrets-read.ts';

/** Platform calls time out after this unless the destination sets `timeout_ms`. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface ForwardDeps {
  readonly destinations: readonly Readonly<Destination>[];
  /** `producers.honor_gpc`: whether Global Privacy Control opts out (what platforms are told). Default true. */
  readonly honorGpc?: boolean;
  /** The environment's name (settings `name`), handed to drivers (a CloudEvents `source`). */
  readonly environment?: string;
  readonly driverFor: (type: Destination['type']) => Driver | undefined;
  /**
   * Reads a secret by name; undefined when it has no value, throws (or rejects) when the store
   * is unreachable. A cached value may be returned directly, without a promise.
   */
  readonly getSecret: (name: string) => string | undefined | Promise<string | undefined>;
  /** Sends a request; never throws (timeouts and connection errors are `network_error`). */
  readonly send: (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;
  readonly now: () => Date;
  /**
   * The send-once claims (core/claims/send-once.ts): one claim per event identity and destination,
   * taken right before the call (or, for the first fan-out's first attempt, written after it) and
   * settled `delivered` after a delivery; the only word on whether a delivery already happened.
   * Absent (tests of the core alone): nothing is claimed.
   */
  readonly claims?: ClaimStore;
  /**
   * The longest a `store` push runs (its function's timeout): a first fan-out's messages are
   * published within it of the first sighting (core/claims/send-once.ts). Default 60 s.
   */
  readonly storePushMs?: number;
  /**
   * The first fan-out's window (EVENTBUS_FIRST_WINDOW_MS): a first fan-out's first attempt this
   * long after its publish sends without a claim, and a copy waits for it that much longer.
   * Default FIRST_WINDOW_MS (2 minutes).
   */
  readonly firstWindowMs?: number;
  /** Holds calls back from a destination that stopped answering (breaker.ts). Absent: never. */
  readonly breaker?: Breaker;
  /**
   * Bounds the calls in flight to each destination (limiter.ts): a call over its limit is held
   * back like one the breaker holds, and a destination whose calls in flight go unanswered opens
   * the breaker. Absent: no limit.
   */
  readonly limiter?: ConcurrencyLimiter;
  /**
   * The definition version a defined event was stored with (`definition_version`), for the
   * mappings it declares per destination type; rejects when the registry cannot be read.
   * Absent: definitions' mappings are not used.
   */
  readonly definitionFor?: (stamp: string) => DefinedEvent | undefined | Promise<DefinedEvent | undefined>;
  /**
   * An OAuth access token for a driver that takes one (`driver.oauth`): from the credentials its
   * secret holds, for its scope; `fresh` asks for a new one (after a 401). Rejects when none can
   * be obtained. Absent: such drivers' deliveries are retried with the reason.
   */
  readonly accessToken?: (credentials: string, scope: string, fresh: boolean) => Promise<string>;
  /**
   * The erased persons' list (adapters/suppression-list.ts): an event of one is sent without their
   * identifiers, or not at all (docs/privacy.md). Absent: no list.
   */
  readonly suppression?: () => Suppression | undefined;
  /** CloudEvents webhooks' handshake answers in this process (webhook/handshake.ts); absent: none asked. */
  readonly handshakes?: Handshakes;
}

export interface ForwardResult {
  /** true → answer 2xx (Pub/Sub acknowledges); false → non-2xx, Pub/Sub redelivers. */
  readonly ack: boolean;
  readonly entries: readonly LedgerEntry[];
  /** One line for the function's log. */
  readonly summary: string;
  /**
   * The event's `received_at` (RFC 3339), when the pushed event parsed: with a `delivered` row's
   * `recorded_at`, the end-to-end latency the `latency` alert judges (adapters/delivery-metrics.ts).
   */
  readonly receivedAt?: string;
  /** How long the platform's call took (ms), when one was made: from the call to its answer. */
  readonly callMs?: number;
}

/**
 * Handles one pushed `deliveries` message. Never throws for anything the message contains.
 * Not an async function: the functions framework runs each request in a `domain`, where every
 * promise costs ~7 µs of CPU in async hooks, so the common path makes only the send's promise
 * and one continuation.
 */
export function forwardPush(push: PushedMessage, deps: ForwardDeps): Promise<ForwardResult> {
  try {
    return asPromise(forwardSteps(push, deps));
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The steps, in order: resolve destination → secrets → definition → OAuth token → prepare →
 * breaker and concurrency limit → send-once claim → send → interpret → settle. Each is
 * a function of the one `Delivery` value (`Call` once the request is built) and hands it to the
 * next, at once when what it needed was at hand, after a promise otherwise (maybe-async.ts).
 */
function forwardSteps(push: PushedMessage, deps: ForwardDeps): MaybePromise<ForwardResult> {
  const d = resolveDestination(push, deps);
  if (!('driver' in d)) return d;
  return readDestinationSecrets(d);
}

/** What every ledger row of this attempt says, whatever happens: which event, where, which try. */
interface Attempt {
  readonly deps: ForwardDeps;
  readonly messageId: string;
  /** The `destination` attribute as pushed (may name nothing configured). */
  readonly destinationId: string;
  readonly replay: boolean;
  /** A backfill's message: its rows say backfill = true (core/delivery/backfill.ts). */
  readonly backfill: boolean;
  /** `replay --force`: sent again over a delivered claim, and recorded so. */
  readonly force: boolean;
  /** The identity's first fan-out (it holds store's claim), and when store first sighted it. */
  readonly first: boolean;
  readonly sightedAt: number | undefined;
  /** When Pub/Sub took this message (epoch ms), when the push says. */
  readonly publishedAt: number | undefined;
  readonly attempt: number;
  readonly ids: {
    readonly event_id: string;
    readonly event_name: string;
    readonly payload_digest: string | undefined;
  };
  /** The identifier kinds of the request once it is built (match quality); names, never values. */
  carried?: readonly string[];
  /** The event's `received_at`, when it parsed (the delivery metrics' end-to-end latency). */
  readonly receivedAt?: string;
  /** When the platform's call left (epoch ms, the deps' clock), once it did. */
  calledAt?: number;
}

/** An attempt whose event parsed and whose destination and driver exist: the value the steps pass along. */
interface Delivery extends Attempt {
  readonly event: StoredEvent;
  /** The configured destination; with its event definition's mappings once `applyDefinition` ran. */
  destination: Readonly<Destination>;
  readonly driver: Driver;
  /** Secret values by role, once read. */
  secrets: Record<string, string>;
  /** For an OAuth driver: the access token, and whether it was asked for afresh (after a 401). */
  accessToken?: string;
  tokenRefreshed?: boolean;
  /** The send-once claim this attempt holds, once taken (sendOnce). */
  ticket?: SendTicket;
  /** Whether sendOnce let this attempt go (a call repeated after a 401 does not ask again). */
  cleared?: boolean;
  /** Sent as the first fan-out's first attempt, without a claim: a delivery then writes the record. */
  unclaimed?: boolean;
}

/**
 * A delivery whose request is built, or whose driver makes its requests itself (`perform`): what
 * the breaker, the send and the interpretation need. Both pass the same guards (step 6).
 */
type Call = {
  readonly delivery: Delivery;
  readonly ctx: DriverContext;
  /** Parts of the event the driver left out (Prepared.dropped), for the delivered row. */
  readonly dropped: string | undefined;
  /** When the limiter let the call go (ms), for the latency it learns; undefined without a limiter. */
  sentAt?: number;
  /** The open breaker's probe (a catalogue action's delivery is its own probe): given back if no request leaves. */
  probe?: boolean;
} & (
  | { readonly request: OutboundRequest; readonly perform?: undefined }
  | { readonly request?: undefined; readonly perform: NonNullable<Driver['perform']> }
);

/**
 * Step 1: parse the stored event, find the destination the message names and its driver.
 * Problems here are permanent (redelivery cannot fix them): recorded and acknowledged.
 */
function resolveDestination(push: PushedMessage, deps: ForwardDeps): Delivery | ForwardResult {
  const parsed = parseStoredEvent(push.data);
  const attempt: Attempt = {
    deps,
    messageId: push.messageId,
    destinationId: push.attributes[DELIVERY_ATTRIBUTES.destination] ?? '',
    replay: push.attributes[DELIVERY_ATTRIBUTES.replay] === 'true',
    backfill: push.attributes[DELIVERY_ATTRIBUTES.backfill] === 'true',
    force: push.attributes[DELIVERY_ATTRIBUTES.force] === 'true',
    first: push.attributes[DELIVERY_ATTRIBUTES.first] === 'true',
    sightedAt: epochMs(push.attributes[DELIVERY_ATTRIBUTES.sightedAt]),
    publishedAt: push.publishTime === undefined ? undefined : Date.parse(push.publishTime),
    attempt: push.deliveryAttempt,
    ...(parsed.ok && parsed.event.received_at !== undefined ? { receivedAt: parsed.event.received_at } : {}),
    ids: parsed.ok
      ? {
          event_id: parsed.event.event_id,
          event_name: parsed.event.event_name,
          payload_digest: parsed.event.payload_digest,
        }
      : {
          event_id: push.attributes[DELIVERY_ATTRIBUTES.eventId] ?? `message:${push.messageId}`,
          event_name: push.attributes[DELIVERY_ATTRIBUTES.eventName] ?? '(unknown)',
          payload_digest: push.attributes[DELIVERY_ATTRIBUTES.payloadDigest],
        },
  };
  if (!parsed.ok) return done(attempt, true, 'rejected', parsed.reason);
  // A message older than an erasure (a re-drive, a retry) carries what store would now strip.
  const verdict = suppressionVerdict(parsed.event, deps.suppression?.());
  if (verdict === 'drop')
    return done(attempt, true, 'rejected', 'the person was erased (privacy.erased_events: drop)');
  const event = verdict === 'strip' ? stripIdentifiers(parsed.event) : parsed.event;
  const destination = deps.destinations.find((x) => x.id === attempt.destinationId);
  if (!destination)
    return done(attempt, true, 'rejected', `destination "${attempt.destinationId}" is not configured`);
  const driver = deps.driverFor(destination.type);
  if (!driver) return done(attempt, true, 'rejected', `no driver for destination type ${destination.type}`);
  return { ...attempt, event, destination, driver, secrets: {} };
}

/** Step 2: the destination's secrets. Cached ones come back synchronously: no promise then. */
function readDestinationSecrets(d: Delivery): MaybePromise<ForwardResult> {
  return andThen(readSecrets(d.destination, d.driver, d.deps.getSecret), (secrets) => {
    if (!secrets.ok) return retry(d, secrets.reason);
    d.secrets = secrets.values;
    return applyDefinition(d);
  });
}

/** Step 3: a defined event's mappings for this destination type, from the version it was stored with. */
function applyDefinition(d: Delivery): MaybePromise<ForwardResult> {
  const stamp = d.event.definition_version;
  const definitionFor = d.deps.definitionFor;
  if (stamp === undefined || !definitionFor) return authorize(d);
  const unreadable = (err: unknown) =>
    retry(d, `event definition ${stamp} could not be read: ${(err as Error).message}`);
  let def: ReturnType<typeof definitionFor>;
  try {
    def = definitionFor(stamp);
  } catch (err) {
    return unreadable(err);
  }
  return andThen(
    def,
    (found) => {
      d.destination = withDefinitionMappings(d.destination, found);
      return authorize(d);
    },
    unreadable,
  );
}

/** Step 4, for drivers that take an OAuth access token: the token the credentials give (cached by the source). */
function authorize(d: Delivery): MaybePromise<ForwardResult> {
  if (d.driver.oauth === undefined) return prepare(d);
  if (!d.deps.accessToken)
    return retry(d, `no OAuth token source for ${d.destination.type} in this function`);
  return requestToken(d, false);
}

/** Asks for the access token (`fresh` after a 401: one more call with a new one), then prepares. */
function requestToken(d: Delivery, fresh: boolean): Promise<ForwardResult> {
  // authorize() came here only with both present; a 401 comes back only after it did.
  const oauth = d.driver.oauth as NonNullable<Driver['oauth']>;
  const tokens = d.deps.accessToken as NonNullable<ForwardDeps['accessToken']>;
  return tokens(d.secrets[oauth.credentials] ?? '', oauth.scope, fresh).then(
    (token) => {
      d.accessToken = token;
      d.tokenRefreshed = fresh;
      return prepare(d);
    },
    (err: unknown) => {
      const reason = `no OAuth access token for ${d.destination.id}: ${(err as Error).message}`;
      // The gate refused the token endpoint (a credentials secret naming another one): permanent,
      // as any egress refusal; nothing was sent, so nothing to retry until the secret changes.
      if ((err as { code?: unknown }).code === EGRESS_REFUSED_CODE) return done(d, true, 'rejected', reason);
      return retry(d, reason);
    },
  );
}

/** Step 5: the driver builds the request (a driver error on one event is recorded, not thrown); then handshake.ts. */
function prepare(d: Delivery): MaybePromise<ForwardResult> {
  const secrets = d.accessToken === undefined ? d.secrets : { ...d.secrets, access_token: d.accessToken };
  const ctx: DriverContext = {
    destination: d.destination,
    secrets,
    now: d.deps.now(),
    ...(d.deps.environment === undefined ? {} : { environment: d.deps.environment }),
    ...(d.deps.honorGpc === false ? { honorGpc: false } : {}),
  };
  if (d.driver.perform !== undefined)
    return passBreaker({ delivery: d, ctx, perform: d.driver.perform, dropped: undefined });
  let prepared: Prepared;
  try {
    prepared = d.driver.prepare(d.event, ctx);
  } catch (err) {
    // A driver bug on one event must not block the subscription: record it and move on.
    prepared = { ok: false, reason: `driver error: ${(err as Error).message}` };
  }
  if (!prepared.ok) return done(d, true, 'rejected', prepared.reason);
  d.carried = requestIdentifiers(prepared.request.body);
  const call: Call = { delivery: d, ctx, request: prepared.request, dropped: prepared.dropped };
  const refusal = handshakeRefusal(d.destination, d.deps, d.destination.timeout_ms ?? DEFAULT_TIMEOUT_MS);
  return andThen(refusal, (no) => (no === undefined ? passBreaker(call) : retry(d, no)));
}

/**
 * Step 6: no call to a destination that asked for none yet, that has as many calls in flight as
 * its concurrency limit allows now (limiter.ts: the call waits for a slot, or is held back), or
 * that stopped answering (breaker.ts).
 */
function passBreaker(call: Call): MaybePromise<ForwardResult> {
  const d = call.delivery;
  const { breaker, limiter } = d.deps;
  if (!breaker && !limiter) return sendOnce(call);
  const id = d.destination.id;
  const now = d.deps.now().getTime();
  const heldUntil = breaker?.heldUntil(id, now);
  if (heldUntil !== undefined)
    return retry(
      d,
      `held back: ${id} asked for no calls before ${new Date(heldUntil).toISOString()} (Retry-After or RetryInfo)`,
    );
  if (!limiter) return passOpenBreaker(call, now);
  const admission = limiter.acquire(id, now);
  if (admission === 'go') return admitted(call, now);
  if (isPending(admission))
    // Every slot is taken: it waits for one (a promise only on this path).
    return admission.then((a) => {
      const at = d.deps.now().getTime();
      return a === 'go' ? admitted(call, at) : refused(d, a, at);
    });
  return refused(d, admission, now);
}

/** The limiter let the call go at `now`: the breaker has the last word. */
function admitted(call: Call, now: number): MaybePromise<ForwardResult> {
  call.sentAt = now;
  return passOpenBreaker(call, now);
}

/** Held back by the limiter; calls in flight unanswered for the stall time open the breaker now. */
function refused(d: Delivery, admission: 'full' | 'stalled', now: number): ForwardResult {
  const id = d.destination.id;
  if (admission === 'stalled') {
    d.deps.breaker?.trip(id, now);
    return retry(
      d,
      `held back: ${id} stopped answering (its calls in flight are unanswered; one probe at a time until it answers)`,
    );
  }
  return retry(
    d,
    d.deps.limiter?.view(id).answering
      ? `held back: ${id} has as many calls in flight and waiting as its concurrency limit allows now (it grows while answers come back quickly)`
      : `held back: ${id} has not answered yet (one call at a time until it does)`,
  );
}

/**
 * An open breaker lets only its probes through, and a probe carries no event (probe.ts): the
 * delivery goes once the destination answered it. So does the first call of an instance to a
 * destination it has not heard from (the limiter's cold lane): a destination that froze before
 * this instance started would answer that call late, as a copy. A call held back gives its limiter
 * slot back.
 */
function passOpenBreaker(call: Call, now: number): MaybePromise<ForwardResult> {
  const d = call.delivery;
  const breaker = d.deps.breaker;
  if (!breaker) return sendOnce(call);
  const open = breaker.isOpen(d.destination.id);
  if (breaker.allow(d.destination.id, now)) {
    const cold = call.sentAt !== undefined && d.deps.limiter?.cold(d.destination.id) === true;
    if ((open || cold) && call.request) return probeFirst(call, call.request);
    if (open) call.probe = true;
    return sendOnce(call);
  }
  if (call.sentAt !== undefined) d.deps.limiter?.abandon(d.destination.id, now);
  return retry(d, breakerReason(d.destination.id, breaker));
}

function probeFirst(call: Call, request: OutboundRequest): Promise<ForwardResult> {
  const d = call.delivery;
  return d.deps.send(probeRequest(request), d.destination.timeout_ms ?? DEFAULT_TIMEOUT_MS).then((r) => {
    // Refused by the gate: the delivery is checked by it too, and says why.
    if (r.kind !== 'network_error') {
      const at = d.deps.now().getTime();
      if (r.kind === 'response') d.deps.breaker?.record(d.destination.id, true, at);
      // The call goes now: its round trip, not the probe's too, is the latency the limiter learns.
      if (call.sentAt !== undefined) call.sentAt = at;
      return sendOnce(call);
    }
    learn(call, false);
    return retry(d, `held back: ${d.destination.id} did not answer a probe without the event (${r.message})`);
  });
}

function breakerReason(id: string, breaker: Breaker): string {
  const failures = breaker.failures(id);
  const why =
    failures >= FAILURES_TO_OPEN
      ? `did not answer its last ${failures} calls`
      : 'stopped answering (its calls in flight went unanswered)';
  return `held back: ${id} ${why} (a probe after 10 s, then 20, 40 and 60 s apart until it answers)`;
}

/**
 * Step 7: the send-once claim (core/claims/send-once.ts), right before the call: a copy of a
 * delivery already made is folded, one another attempt may be making now waits, anything else
 * goes out holding the claim. A call held back here gives its limiter slot back. Taken once per
 * attempt (a call repeated after a 401 keeps it).
 */
function sendOnce(call: Call): MaybePromise<ForwardResult> {
  const d = call.delivery;
  const claims = d.deps.claims;
  if (!claims || d.cleared) return send(call);
  const now = d.deps.now().getTime();
  // The usual delivery: the first fan-out's first attempt holds store's claim, and sends as is
  // (no write, no promise).
  const privileged =
    d.first &&
    !d.replay &&
    !d.force &&
    d.attempt <= 1 &&
    d.publishedAt !== undefined &&
    now - d.publishedAt < (d.deps.firstWindowMs ?? FIRST_WINDOW_MS);
  if (privileged) {
    d.cleared = true;
    d.unclaimed = true;
    return send(call);
  }
  const timeoutMs = d.destination.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  // Another message than the first fan-out's: that one may still be sending until its horizon.
  const sightedAt = d.sightedAt ?? epochMs(d.event.received_at);
  const horizon =
    d.first || sightedAt === undefined
      ? undefined
      : firstFanOutHorizon(
          sightedAt,
          d.deps.storePushMs ?? 60_000,
          timeoutMs,
          d.deps.firstWindowMs ?? FIRST_WINDOW_MS,
        );
  return claimSend({
    store: claims,
    id: deliveryId(d.ids.event_id, d.ids.payload_digest, d.destination.id),
    holder: d.messageId,
    attempt: d.attempt,
    now,
    timeoutMs,
    force: d.force,
    privileged: false,
    horizon,
  }).then(
    (verdict) => {
      if (verdict.go) {
        d.cleared = true;
        if (verdict.ticket) d.ticket = verdict.ticket;
        return send(call);
      }
      giveSlotBack(call);
      if (!verdict.folded) return retry(d, verdict.reason);
      // This message's own earlier attempt delivered; its ledger row may be what was lost.
      if (verdict.own) return recordedAgain(d, verdict.own);
      return done(d, true, 'folded', verdict.reason);
    },
    (err: unknown) => {
      giveSlotBack(call);
      return retry(
        d,
        `${CLAIM_HOLD_PREFIX}the send-once claim could not be taken (${(err as Error).message}); trying again later`,
      );
    },
  );
}

/** A call the limiter let go that is not made after all: its slot back, and its probe if it was one. */
function giveSlotBack(call: Call): void {
  const d = call.delivery;
  if (call.sentAt !== undefined) d.deps.limiter?.abandon(d.destination.id, d.deps.now().getTime());
  if (call.probe) d.deps.breaker?.probeUnused(d.destination.id);
}

/**
 * What the claim keeps after the call (settleSend, settleFirst): a delivery settles it `delivered`
 * with the outcome (the first fan-out's first attempt writes it now); a refusal or a request never
 * made releases it; no answer keeps it for its lease. The result (the acknowledgement) waits for
 * the claim store, so an acknowledged delivery is one a later copy finds; a store that cannot be
 * told is said in the summary (the ledger still has the row).
 */
function settled(
  d: Delivery,
  outcome: SendOutcome,
  result: MaybePromise<ForwardResult>,
): MaybePromise<ForwardResult> {
  return andThen(result, (r) => settleClaim(d, outcome, r));
}

function settleClaim(d: Delivery, outcome: SendOutcome, result: ForwardResult): MaybePromise<ForwardResult> {
  const claims = d.deps.claims;
  if (!claims || outcome === 'unanswered') return result;
  const row = result.entries[0]?.row;
  const detail = row?.reason ?? 'delivered';
  const outcomeText = row?.http_status == null ? detail : `HTTP ${row.http_status}: ${detail}`;
  let written: Promise<string | undefined> | undefined;
  if (d.ticket) {
    const ticket = d.ticket;
    delete d.ticket;
    written = settleSend(claims, ticket, outcome, outcomeText);
  } else if (d.unclaimed && outcome === 'delivered') {
    delete d.unclaimed;
    written = settleFirst({
      store: claims,
      id: deliveryId(d.ids.event_id, d.ids.payload_digest, d.destination.id),
      holder: d.messageId,
      attempt: d.attempt,
      now: d.deps.now().getTime(),
      timeoutMs: d.destination.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      detail: outcomeText,
    });
  }
  if (!written) return result;
  return written.then((warning) =>
    warning === undefined ? result : { ...result, summary: `${result.summary}; ${warning}` },
  );
}

/** Step 8: the request goes out; the breaker and the limiter learn whether the destination answered. */
function send(call: Call): MaybePromise<ForwardResult> {
  const d = call.delivery;
  const { breaker, limiter } = d.deps;
  if (call.perform !== undefined) return perform(call, call.perform);
  d.calledAt = d.deps.now().getTime();
  let sent: Promise<InboundResponse>;
  try {
    sent = d.deps.send(call.request, d.destination.timeout_ms ?? DEFAULT_TIMEOUT_MS);
  } catch (err) {
    // Not sent after all: the destination told us nothing, and the claim goes back.
    if (call.sentAt !== undefined) limiter?.abandon(d.destination.id, d.deps.now().getTime());
    return settled(d, 'refused', networkError(call, err));
  }
  if (!breaker && !limiter)
    return sent.then(
      (response) => interpret(call, response),
      (err: unknown) => networkError(call, err),
    );
  return sent.then(
    (response) => {
      // The egress gate refused it: nothing left, so the destination told us nothing (#75). A
      // hostile event's URL must not make a destination look silent and hold back the others.
      if (response.kind === 'refused') {
        if (call.sentAt !== undefined) limiter?.abandon(d.destination.id, d.deps.now().getTime());
      } else learn(call, response.kind === 'response');
      return interpret(call, response);
    },
    (err: unknown) => {
      learn(call, false);
      return networkError(call, err);
    },
  );
}

/**
 * What the breaker and the limiter learn from a sent call: whether the destination answered, and
 * how fast. A call unanswered after a silence opens the breaker at once (limiter.ts).
 */
function learn(call: Call, answered: boolean): void {
  const d = call.delivery;
  const { breaker, limiter } = d.deps;
  const id = d.destination.id;
  const now = d.deps.now().getTime();
  breaker?.record(id, answered, now);
  if (call.sentAt !== undefined && limiter?.release(id, answered, call.sentAt, now)) breaker?.trip(id, now);
}

/**
 * Step 8, for a driver that makes its requests itself (driver.ts `perform`: the catalogue's
 * Segment actions): its outcome becomes the attempt's row as an interpreted answer's would, and
 * the breaker, the limiter and a Retry-After learn from it as from a sent request.
 */
function perform(call: Call, run: NonNullable<Driver['perform']>): Promise<ForwardResult> {
  const d = call.delivery;
  d.calledAt = d.deps.now().getTime();
  let performed: Promise<Performed>;
  try {
    performed = run(d.event, call.ctx);
  } catch (err) {
    performed = Promise.reject(err);
  }
  return performed.then(
    ({ outcome, sent, answered, retryAfter, answer }) => {
      // No request made (a payload the action refused): nothing to learn, the slot (and a probe) goes back.
      if (answered !== undefined) learn(call, answered);
      else giveSlotBack(call);
      if (sent) d.carried = [...new Set(sent.flatMap(requestIdentifiers))].sort();
      if (outcome.status === 'delivered')
        return settled(
          d,
          'delivered',
          done(d, true, 'delivered', outcome.detail, outcome.httpStatus, answer),
        );
      if (outcome.status === 'retry') holdBack(d, (now) => retryAfterTime(retryAfter, now));
      const rejected = outcome.status === 'rejected';
      // Answered, or no request made: nothing was taken. Unanswered: the claim waits for its lease.
      return settled(
        d,
        answered === false ? 'unanswered' : 'refused',
        done(d, rejected, rejected ? 'rejected' : 'failed', outcome.reason, outcome.httpStatus, answer),
      );
    },
    // A fault of the runtime itself, not the destination's: its slot back, retried (and
    // dead-lettered). Whether a request left is unknown: the claim waits for its lease.
    (err: unknown) => {
      if (call.sentAt !== undefined) d.deps.limiter?.abandon(d.destination.id, d.deps.now().getTime());
      return retry(d, `driver error: ${(err as Error).message}`);
    },
  );
}

/** Throttled with a time to come back: no call to the destination before it (breaker.ts `hold`). */
function holdBack(d: Delivery, until: (now: number) => number | undefined): void {
  const breaker = d.deps.breaker;
  if (!breaker) return;
  const now = d.deps.now().getTime();
  const at = until(now);
  if (at !== undefined && at > now) breaker.hold(d.destination.id, at, now);
}

function networkError(call: Call, err: unknown): MaybePromise<ForwardResult> {
  return interpret(call, { kind: 'network_error', message: (err as Error).message });
}

/** Step 9: the driver classifies the answer; a Retry-After holds the destination back. */
function interpret(call: Call, response: InboundResponse): MaybePromise<ForwardResult> {
  const d = call.delivery;
  // An access token refused (expired, revoked): once, with a fresh one.
  if (
    d.accessToken !== undefined &&
    !d.tokenRefreshed &&
    response.kind === 'response' &&
    response.status === 401
  )
    return requestToken(d, true);
  const outcome = d.driver.interpret(response, call.ctx);
  // What the platform said goes into the row, whatever the outcome (fbtrace_id, requestId, counts).
  const answer = d.driver.answer?.(response, call.ctx);
  if (outcome.status === 'retry' && response.kind === 'response')
    // The header, else Google's `RetryInfo` detail in the error body (docs/delivery.md).
    holdBack(
      d,
      (now) => retryAfterTime(response.headers['retry-after'], now) ?? retryInfoTime(response.body, now),
    );
  switch (outcome.status) {
    case 'delivered': {
      // What the driver left out travels in the delivered row's reason, so it is never silent.
      const note =
        [
          d.tokenRefreshed ? 'access token refreshed after a 401' : undefined,
          d.ticket?.note,
          call.dropped,
          outcome.detail,
        ]
          .filter(Boolean)
          .join('; ') || undefined;
      return settled(d, 'delivered', done(d, true, 'delivered', note, outcome.httpStatus, answer));
    }
    case 'rejected':
      return settled(d, 'refused', done(d, true, 'rejected', outcome.reason, outcome.httpStatus, answer));
    case 'retry':
      // An answer (a 5xx, a 429) took nothing: the claim goes back. No answer: it waits for its lease.
      return settled(
        d,
        response.kind === 'response' ? 'refused' : 'unanswered',
        done(d, false, 'failed', outcome.reason, outcome.httpStatus, answer),
      );
  }
}

/**
 * Retryable: not acknowledged. After the last attempt Pub/Sub moves it to the dead-letter
 * topic, whose ledger subscription records the `dead_lettered` row (dead-letter.ts).
 */
function retry(a: Attempt, reason: string, httpStatus?: number): ForwardResult {
  return done(a, false, 'failed', reason, httpStatus);
}

/**
 * The attempt's result: its one ledger row (with what the platform said, when it answered), and
 * whether to acknowledge the push.
 */
/**
 * A message back after its own attempt delivered and settled the claim: the process stopped before
 * it acknowledged, perhaps before the ledger row was written (docs/delivery.md, "One event, one
 * delivery"). The delivery is recorded again as that attempt's `delivered` row (same insertId),
 * nothing is sent; a reader counting sends skips rows whose reason begins REDELIVERY_RECORD.
 */
function recordedAgain(
  d: Delivery,
  own: { readonly attempt: number; readonly outcome: string },
): ForwardResult {
  const status = /^HTTP (\d{3})\b/.exec(own.outcome);
  return done(
    { ...d, attempt: own.attempt },
    true,
    'delivered',
    `${REDELIVERY_RECORD}attempt ${own.attempt} of this message was delivered${own.outcome ? ` (${own.outcome})` : ''}; attempt ${d.attempt} sent nothing`,
    status ? Number(status[1]) : undefined,
  );
}

function done(
  a: Attempt,
  ack: boolean,
  status: Exclude<LedgerStatus, 'skipped'>,
  reason?: string,
  httpStatus?: number,
  answer?: AnswerColumns,
): ForwardResult {
  const now = a.deps.now();
  const entry = attemptEntry({
    identifiers: a.carried,
    answer,
    ...a.ids,
    destination: a.destinationId || '(none)',
    status,
    reason,
    attempt: a.attempt,
    httpStatus,
    replay: a.replay,
    backfill: a.backfill,
    messageId: a.messageId,
    now,
  });
  return {
    ack,
    entries: [entry],
    summary: `${entry.row.destination} ${entry.row.event_id} attempt ${a.attempt}: ${entry.row.status}${entry.row.reason ? ` (${entry.row.reason})` : ''}`,
    ...(a.receivedAt !== undefined ? { receivedAt: a.receivedAt } : {}),
    ...(a.calledAt !== undefined ? { callMs: Math.max(0, now.getTime() - a.calledAt) } : {}),
  };
}

/** An epoch-milliseconds attribute or an RFC 3339 time, as a number; undefined when absent or unreadable. */
function epochMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(n) ? n : undefined;
}
