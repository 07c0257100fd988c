/**
 * The forward function's request handling, separate from its registration so tests and
 * the entry point share it: decode the push, run the delivery core, write ledger rows,
 * then answer 204 (acknowledged) or 503 (Pub/Sub redelivers with backoff).
 */
import type { Request, Response } from '@google-cloud/functions-framework';
import { DeliveryAttributes, recordDelivery } from '../../adapters/delivery-metrics.ts';
import type { LedgerWriter } from '../../adapters/ledger-writer.ts';
import { deliveryInstruments } from '../../adapters/metrics.ts';
import { leaveRequestDomain } from '../../adapters/request-domain.ts';
import type { Secrets } from '../../adapters/secrets.ts';
import { Breaker } from '../../core/delivery/breaker.ts';
import { isDeadLetter, recordDeadLetter } from '../../core/delivery/dead-letter.ts';
import { type ForwardDeps, type ForwardResult, forwardPush } from '../../core/delivery/forward.ts';
import { InFlight, inFlightKey } from '../../core/delivery/in-flight.ts';
import { attemptEntry } from '../../core/delivery/ledger.ts';
import { ConcurrencyLimiter } from '../../core/delivery/limiter.ts';
import { DELIVERY_ATTRIBUTES, decodePush, type PushedMessage } from '../../core/delivery/message.ts';
import { apiError } from '../../core/errors.ts';
import { andThen } from '../../core/maybe-async.ts';
import type { Plan } from '../../core/plan.ts';
import type { Driver } from '../../core/platforms/driver.ts';
import { driverFor as builtInDrivers } from '../../core/platforms/drivers.ts';
import { Handshakes } from '../../core/platforms/webhook/handshake.ts';
import { fail, ok, type Step } from '../../core/step.ts';
import type { RowRejection } from '../../core/warehouse/rows.ts';
import type { Settings } from '../../schemas/settings.ts';
import { answerError, postOnly } from '../answer.ts';
import { forwardHop, noteOutcome } from './tracing.ts';

export interface ForwardServices {
  readonly ledger: LedgerWriter;
  readonly secrets: Secrets;
  /** The egress gate (adapters/egress.ts); a refusal comes back as an answer of kind `refused`. */
  readonly send: ForwardDeps['send'];
  readonly now?: () => Date;
  readonly driverFor?: (type: Driver['type']) => Driver | undefined;
  /** The send-once claims (adapters/firestore-claims.ts); absent only in tests of the core alone. */
  readonly claims?: ForwardDeps['claims'];
  /** Definitions' mappings for defined events (adapters/definitions.ts); absent: not used. */
  readonly definitionFor?: ForwardDeps['definitionFor'];
  /** OAuth access tokens for drivers that take one (adapters/google-oauth.ts); absent: not available. */
  readonly accessToken?: ForwardDeps['accessToken'];
  /** The erased persons' list (adapters/suppression-list.ts); absent: none. */
  readonly suppression?: ForwardDeps['suppression'];
}

/**
 * Builds the `forward` http handler; services are created on first use (cold start stays
 * light), and may be given as a promise while they load.
 */
export function createForwardHandler(
  config: {
    readonly settings: Readonly<Settings>;
    readonly plan: Plan;
    /** EVENTBUS_FIRST_WINDOW_MS (core/runtime-config.ts); absent: FIRST_WINDOW_MS. */
    readonly firstWindowMs?: number;
  },
  services: () => ForwardServices | Promise<ForwardServices>,
): (req: Request, res: Response) => Promise<unknown> | undefined {
  const destinations = config.settings.destinations ?? [];
  // One breaker per instance: a destination that stops answering gets probes, not every retry.
  const breaker = new Breaker();
  // One concurrency limit per destination and instance: what is in flight when a destination
  // stops answering is bounded, and its silence opens the breaker (core/delivery/limiter.ts).
  const limiter = new ConcurrencyLimiter();
  // The CloudEvents webhook handshakes' answers: each endpoint asked once per instance.
  const handshakes = new Handshakes();
  // The core's dependencies, built once per services object rather than once per push.
  let depsFor: ForwardServices | undefined;
  let deps: ForwardDeps | undefined;
  const depsOf = (s: ForwardServices): ForwardDeps => {
    if (deps && depsFor === s) return deps;
    depsFor = s;
    deps = {
      destinations,
      honorGpc: config.settings.producers?.honor_gpc ?? true,
      environment: config.settings.name,
      driverFor: s.driverFor ?? builtInDrivers,
      // A fresh cached secret is returned as is: no promise per delivery.
      getSecret: (name) => {
        const hit = s.secrets.peek(name);
        return hit ? hit.value : s.secrets.get(name);
      },
      send: s.send,
      now: s.now ?? (() => new Date()),
      breaker,
      limiter,
      handshakes,
      // A first fan-out's messages are published within one store push of the sighting.
      storePushMs: (config.settings.functions?.store?.timeout_seconds ?? 60) * 1000,
      ...(config.firstWindowMs !== undefined ? { firstWindowMs: config.firstWindowMs } : {}),
      ...(s.claims ? { claims: s.claims } : {}),
      ...(s.definitionFor ? { definitionFor: s.definitionFor } : {}),
      ...(s.accessToken ? { accessToken: s.accessToken } : {}),
      ...(s.suppression ? { suppression: s.suppression } : {}),
    };
    return deps;
  };
  // A copy of a push whose first attempt is still sending waits for it (core/delivery/in-flight.ts).
  const inFlight = new InFlight();
  // The delivery metrics' attribute sets, made once per destination and status (adapters/delivery-metrics.ts).
  const metricAttributes = new DeliveryAttributes(destinations);
  /**
   * Writes the rows and answers; resolves true when the push was delivered and that is recorded,
   * which is what copies waiting under `key` learn. No promise beyond the write's own and its
   * continuation (each one is tracked by the domain module's hooks).
   */
  const answer = (
    res: Response,
    s: ForwardServices,
    result: ForwardResult,
    key?: string,
  ): Promise<boolean> => {
    const end = (delivered: boolean): boolean => {
      if (key !== undefined) inFlight.end(key, delivered);
      return delivered;
    };
    noteOutcome(result);
    let written: Promise<readonly RowRejection[]>;
    try {
      written = s.ledger.write(result.entries);
    } catch (err) {
      // A synchronous throw from the writer becomes the 503 below too.
      written = Promise.reject(err);
    }
    return written.then(
      (refused) => {
        // Every outcome of every path (a push, a re-drive, a replay, a dead letter, a fold) ends
        // here once its rows are written: the delivery metrics count what the ledger holds.
        recordDelivery(deliveryInstruments(), metricAttributes, result);
        for (const r of refused)
          log('ERROR', `ledger row refused by the warehouse: ${r.reason}: ${r.message}`);
        if (result.ack) {
          const delivered = end(
            refused.length === 0 && result.entries.some((e) => e.row.status === 'delivered'),
          );
          if (result.entries.some((e) => e.row.status !== 'delivered')) log('WARNING', result.summary);
          res.status(204).end();
          return delivered;
        }
        end(false);
        log('WARNING', result.summary);
        answerError(res, apiError('UNAVAILABLE', { retryAfter: RETRY_AFTER_SECONDS }));
        return false;
      },
      (err: unknown) => {
        end(false);
        // The outcome is not recorded: let Pub/Sub redeliver (platforms de-duplicate by event_id).
        log('ERROR', `ledger write failed, answering 503: ${(err as Error).message} [${result.summary}]`);
        answerError(res, apiError('UNAVAILABLE', { retryAfter: RETRY_AFTER_SECONDS }));
        return false;
      },
    );
  };
  const deliver = (res: Response, s: ForwardServices, push: PushedMessage, key?: string): Promise<boolean> =>
    forwardPush(push, depsOf(s)).then(
      (result) => answer(res, s, result, key),
      (err: unknown) => {
        if (key !== undefined) inFlight.end(key, false);
        throw err;
      },
    );
  const run = (res: Response, s: ForwardServices, push: PushedMessage): Promise<unknown> => {
    if (isDeadLetter(push)) return answer(res, s, recordDeadLetter(push, (s.now ?? (() => new Date()))()));
    const key = inFlightKey(push);
    if (key === undefined) return deliver(res, s, push);
    if (inFlight.begin(key)) return deliver(res, s, push, key);
    // Another attempt of this delivery is in flight here: its outcome decides.
    return inFlight
      .wait(key)
      .then((delivered) =>
        delivered
          ? answer(res, s, deliveredInFlight(push, (s.now ?? (() => new Date()))()))
          : run(res, s, push),
      );
  };
  // Not async, one promise chain per push: the functions framework runs each request in a
  // `domain`, where every promise costs ~7 µs of CPU in async hooks.
  return (req, res) => {
    const push = pushOf(req);
    if (!push.ok) {
      answerError(res, push.error);
      return undefined;
    }
    // Out of the framework's per-request domain before anything async (adapters/request-domain.ts).
    leaveRequestDomain();
    // The push's span, active while it is delivered (tracing.ts): the claim, the call, the ledger row.
    return forwardHop(push.value, destinations, () => andThen(services(), (s) => run(res, s, push.value)));
  };
}

/** The push a request carries, or the 405 or 400 to answer. */
function pushOf(req: Request): Step<PushedMessage> {
  const posted = postOnly(req);
  if (!posted.ok) return posted;
  const decoded = decodePush(req.body);
  // Not a push from Pub/Sub: nothing to record, and redelivery cannot fix it.
  return decoded.ok ? ok(decoded.push) : fail('INVALID_ENVELOPE', { detail: decoded.reason });
}

/** Seconds a 503 suggests; Pub/Sub itself follows the subscription's retry policy. */
const RETRY_AFTER_SECONDS = 10;

/**
 * A copy of a push another attempt in this instance just delivered and recorded: acknowledged,
 * not sent, and recorded as `folded`, as the send-once claim records a copy it folds.
 */
function deliveredInFlight(push: PushedMessage, now: Date): ForwardResult {
  const a = push.attributes;
  const entry = attemptEntry({
    event_id: a[DELIVERY_ATTRIBUTES.eventId] ?? `message:${push.messageId}`,
    event_name: a[DELIVERY_ATTRIBUTES.eventName] ?? '(unknown)',
    payload_digest: a[DELIVERY_ATTRIBUTES.payloadDigest],
    destination: a[DELIVERY_ATTRIBUTES.destination] ?? '(none)',
    status: 'folded',
    reason: 'a copy of a delivery the attempt in flight in this instance made',
    attempt: push.deliveryAttempt,
    replay: a[DELIVERY_ATTRIBUTES.replay] === 'true',
    backfill: a[DELIVERY_ATTRIBUTES.backfill] === 'true',
    messageId: push.messageId,
    now,
  });
  return {
    ack: true,
    entries: [entry],
    summary: `${entry.row.destination} ${entry.row.event_id} attempt ${push.deliveryAttempt}: folded (delivered by the attempt in flight in this instance, not sent again)`,
  };
}

/** One JSON line per entry: Cloud Logging reads `severity` and `message`. */
function log(severity: 'WARNING' | 'ERROR', message: string): void {
  console.log(JSON.stringify({ severity, message, component: 'forward' }));
}
