/**
 * The store function's HTTP handler: decode the push, write the rows, then (and only then)
 * acknowledge. Built from explicit dependencies so tests and benchmarks can compose it;
 * `index.ts` registers it with the functions framework.
 */
import type { Request, Response } from '@google-cloud/functions-framework';
import { leaveRequestDomain } from '../../adapters/request-domain.ts';
import { failActive } from '../../adapters/tracing.ts';
import type { DefinedEvents } from '../../core/definitions/defined-events.ts';
import { apiError } from '../../core/errors.ts';
import type { StoredEvent } from '../../core/event.ts';
import { andThen } from '../../core/maybe-async.ts';
import { type AlreadyStored, type ClaimIdentity, NotYet } from '../../core/store/copies.ts';
import { DEAD_LETTER_SOURCE, decodeStorePush, type PubSubMessage } from '../../core/store/message.ts';
import { malformedPushRow } from '../../core/store/rows.ts';
import {
  type AfterStored,
  type StoreConfig,
  type StoreOutcome,
  storeMessages,
} from '../../core/store/store.ts';
import type { FieldViolation } from '../../core/validation.ts';
import type { RowWriter } from '../../core/warehouse/rows.ts';
import { TABLES } from '../../core/warehouse/warehouse.ts';
import { lookupEvent } from '../../schemas/catalogue.ts';
import { answerError, postOnly } from '../answer.ts';
import { storeHop, tracedWriter } from './tracing.ts';

/** One structured log line (Cloud Logging reads `severity` and `message` from JSON on stdout). */
export type Log = (
  entry: { severity: 'INFO' | 'WARNING' | 'ERROR'; message: string } & Record<string, unknown>,
) => void;

export interface StoreDeps {
  readonly config: StoreConfig;
  readonly writer: RowWriter;
  /** Runs after the rows are written; a throw makes the push fail so Pub/Sub redelivers. */
  readonly afterStored?: AfterStored;
  readonly now?: () => number;
  readonly log?: Log;
  /**
   * The registry's event definitions (adapters/definitions.ts): a custom event is re-validated
   * against the version the gateway stamped, or the current one. Rejecting (no copy of the
   * registry) answers non-2xx, so the push comes back rather than storing it unchecked.
   */
  readonly definitions?: { get(stamp?: string): DefinedEvents | Promise<DefinedEvents> };
  /** For late copies (core/store/copies.ts, lateCopy): is the row already stored? */
  readonly alreadyStored?: AlreadyStored;
  /** The first sightings of events whose time the server stamped (adapters/identity-claims.ts). */
  readonly claim?: ClaimIdentity;
}

/** Seconds a producer-facing 503 suggests; Pub/Sub itself follows the subscription's backoff. */
const RETRY_AFTER_SECONDS = 10;

const jsonLog: Log = (entry) => process.stdout.write(`${JSON.stringify(entry)}\n`);

/**
 * The store handler: 204 once every row of the push is written, non-2xx otherwise.
 *
 * Not an async function, and a single promise chain per push: the functions framework runs
 * each request in a `domain`, where every promise and await costs ~7 µs of CPU in async
 * hooks (measured), so the hot path avoids them rather than awaiting step by step.
 */
export function createStoreHandler(
  deps: StoreDeps,
): (req: Request, res: Response) => Promise<void> | undefined {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? jsonLog;
  const { afterStored, writer, config } = deps;
  const storeDeps = {
    writer,
    config,
    now,
    ...(deps.alreadyStored ? { alreadyStored: deps.alreadyStored } : {}),
    ...(deps.claim ? { claim: deps.claim } : {}),
  };
  const failed = (res: Response, err: unknown, message: PubSubMessage | undefined): void => {
    // Warehouse unavailable, a transient error, or a copy whose first one is not stored yet:
    // nothing is acknowledged; Pub/Sub retries.
    log({
      severity: err instanceof NotYet ? 'WARNING' : 'ERROR',
      message: `store failed, the push will be redelivered: ${(err as Error).message}`,
      messageId: message?.messageId,
      deliveryAttempt: message?.deliveryAttempt,
    });
    failActive(err instanceof NotYet ? 'NotYet' : (err as Error).name);
    answerError(res, apiError('UNAVAILABLE', { retryAfter: RETRY_AFTER_SECONDS }));
  };
  return (req, res) => {
    const posted = postOnly(req);
    if (!posted.ok) {
      answerError(res, posted.error);
      return undefined;
    }
    // Out of the framework's per-request domain before anything async (adapters/request-domain.ts).
    leaveRequestDomain();
    const decodeStart = performance.timeOrigin + performance.now();
    const decoded = decodeStorePush(req.body);
    if (!decoded.ok) return keepMalformed(req, res, decoded.violations, deps.writer, now, log, failed);
    // The push's span continues the message's trace (or starts one, whose context the message then
    // carries, so the row's trace_id names it): store.ts's steps run with it active (tracing.ts).
    const hop = storeHop(decoded.message, decodeStart);
    return hop.run(() => handleMessage(res, hop.message));
  };
  function handleMessage(res: Response, message: PubSubMessage): Promise<void> | undefined {
    let stored: Promise<unknown>;
    const traced = { ...storeDeps, writer: tracedWriter(writer) };
    const run = (defined: DefinedEvents | undefined) =>
      storeMessages([message], defined ? { ...traced, defined } : traced);
    try {
      const name = message.attributes['event_name'];
      // Catalogue events (named so by the gateway) need no definitions; anything else might.
      const defined =
        deps.definitions && (name === undefined || !lookupEvent(name))
          ? deps.definitions.get(message.attributes['definition_version'])
          : undefined;
      stored = andThen(defined, run);
    } catch (err) {
      failed(res, err, message);
      return undefined;
    }
    if (afterStored)
      stored = stored.then((outcome) => {
        const o = outcome as StoreOutcome;
        return o.stored.length > 0 ? afterStored(o.stored, o.storedMessages) : undefined;
      });
    return stored.then(
      () => {
        if (message.attributes[DEAD_LETTER_SOURCE] !== undefined && message.subscription.endsWith('-ledger'))
          log({
            severity: 'WARNING',
            message: `stored a dead letter of ${message.attributes[DEAD_LETTER_SOURCE]} after its retries ran out`,
            messageId: message.messageId,
            deliveryAttempts: message.attributes['CloudPubSubDeadLetterSourceDeliveryCount'],
          });
        res.status(204).end();
      },
      (err: unknown) => failed(res, err, message),
    );
  }
}

/** Not a push body: no redelivery can fix it, so keep the raw body and answer 400. */
async function keepMalformed(
  req: Request,
  res: Response,
  violations: readonly FieldViolation[],
  writer: RowWriter,
  now: () => number,
  log: Log,
  failed: (res: Response, err: unknown, message: undefined) => void,
): Promise<void> {
  try {
    const body = req.rawBody ? req.rawBody.toString('utf8') : JSON.stringify(req.body ?? null);
    const rejected = await writer.write(TABLES.invalidEvents, [malformedPushRow(body, violations, now())]);
    if (rejected.length > 0) throw new Error(`invalid_events refused a row: ${rejected[0]?.message}`);
  } catch (err) {
    failed(res, err, undefined);
    return;
  }
  log({ severity: 'WARNING', message: 'not a Pub/Sub push body; kept in invalid_events', violations });
  answerError(res, apiError('INVALID_ENVELOPE', { detail: 'not a Pub/Sub push body' }, violations));
}

/** The after-store steps, by the name `hook_failures` records them under. */
export type HookName = 'fan_out' | 'rules';

/**
 * A failure no redelivery can fix: an error JavaScript itself raises for the code and the data
 * it ran on (`Invalid time value` is a RangeError, a missing field a TypeError). Everything else
 * (a refused connection, a gRPC or HTTP status from Pub/Sub or BigQuery, a timeout) may pass.
 */
export function isDeterministic(err: unknown): boolean {
  return (
    err instanceof TypeError ||
    err instanceof RangeError ||
    err instanceof SyntaxError ||
    err instanceof ReferenceError ||
    err instanceof URIError ||
    err instanceof EvalError
  );
}

/**
 * Runs the after-store hooks in parallel, each guarded: a deterministic failure (isDeterministic)
 * is recorded in `hook_failures` — one row per event and hook — and the push is acknowledged, so
 * a bad rule or a bug never makes Pub/Sub redeliver the event for a month (each redelivery used
 * to store and fan out again). A transient failure rejects, and the push comes back; its row is
 * not written twice (insertId, then alreadyStored).
 */
export function guardHooks(
  hooks: readonly { readonly name: HookName; readonly run: AfterStored }[],
  deps: { readonly writer: RowWriter; readonly now?: () => number; readonly log?: Log },
): AfterStored | undefined {
  if (hooks.length === 0) return undefined;
  const now = deps.now ?? Date.now;
  const log = deps.log ?? jsonLog;
  const guarded = (name: HookName, run: AfterStored): AfterStored => {
    const record = (err: unknown, events: readonly StoredEvent[], messages: readonly PubSubMessage[]) => {
      const error = `${(err as Error).name}: ${(err as Error).message}`.slice(0, 1024);
      log({
        severity: 'ERROR',
        message: `${name} failed for good after the rows were stored; recorded in hook_failures and acknowledged: ${error}`,
        events: events.map((e) => e.event_id),
      });
      const at = new Date(now()).toISOString();
      return deps.writer
        .write(
          TABLES.hookFailures,
          events.map((e, i) => ({
            insertId: `${e.event_id}/${e.payload_digest ?? ''}/${name}`,
            json: {
              recorded_at: at,
              hook: name,
              event_id: e.event_id,
              event_name: e.event_name,
              payload_digest: e.payload_digest ?? null,
              topic: e.topic ?? null,
              message_id: messages[i]?.messageId ?? null,
              attempt: messages[i]?.deliveryAttempt ?? null,
              error,
            },
          })),
        )
        .then((refused) => {
          if (refused.length > 0) throw new Error(`hook_failures refused a row: ${refused[0]?.message}`);
        });
    };
    return (events, messages) => {
      let ran: Promise<unknown>;
      try {
        ran = run(events, messages);
      } catch (err) {
        ran = Promise.reject(err);
      }
      return ran.catch((err: unknown) => {
        if (!isDeterministic(err)) throw err;
        return record(err, events, messages);
      });
    };
  };
  const all = hooks.map((h) => guarded(h.name, h.run));
  if (all.length === 1) return all[0];
  return (events, messages) => Promise.all(all.map((h) => h(events, messages)));
}
