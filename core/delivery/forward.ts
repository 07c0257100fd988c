/**
 * One push to `forward`, as a function of injected I/O (jitsu habit): find the destination
 * named by the message's `destination` attribute, read its secrets, prepare the request with
 * its driver, send it, interpret the answer, and say which ledger rows to write and whether
 * to acknowledge. Retryable outcomes are not acknowledged, so Pub/Sub redelivers with
 * backoff; dead letters are recorded from the dead-letter topic (dead-letter.ts). A redelivery
 * is not sent again when the ledger already has it delivered.
 */
import type { Destination } from '../../schemas/settings.ts';
import { type DefinedEvent, withDefinitionMappings } from '../definitions/defined-events.ts';
import type { Driver, InboundResponse, OutboundRequest } from '../platforms/driver.ts';
import { type Breaker, retryAfterTime, retryInfoTime } from './breaker.ts';
import { requestIdentifiers } from './identifiers.ts';
import { attemptEntry, type LedgerEntry, type LedgerStatus } from './ledger.ts';
import { DELIVERY_ATTRIBUTES, type PushedMessage, parseStoredEvent } from './message.ts';

/** Platform calls time out after this unless the destination sets `timeout_ms`. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface ForwardDeps {
  readonly destinations: readonly Readonly<Destination>[];
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
   * Whether the ledger has a `delivered` row for this event and destination; asked on
   * redeliveries only. Resolves false when it cannot tell in time (fail-open: a duplicate rather
   * than a lost delivery). Absent: never asked.
   */
  readonly alreadyDelivered?: (
    eventId: string,
    destination: string,
    payloadDigest: string | undefined,
  ) => Promise<boolean>;
  /** Holds calls back from a destination that stopped answering (breaker.ts). Absent: never. */
  readonly breaker?: Breaker;
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
}

export interface ForwardResult {
  /** true → answer 2xx (Pub/Sub acknowledges); false → non-2xx, Pub/Sub redelivers. */
  readonly ack: boolean;
  readonly entries: readonly LedgerEntry[];
  /** One line for the function's log. */
  readonly summary: string;
}

/**
 * Handles one pushed `deliveries` message. Never throws for anything the message contains.
 * Not an async function: the functions framework runs each request in a `domain`, where every
 * promise costs ~7 µs of CPU in async hooks, so the common path makes only the send's promise
 * and one continuation.
 */
export function forwardPush(push: PushedMessage, deps: ForwardDeps): Promise<ForwardResult> {
  try {
    const result = forwardSteps(push, deps);
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (err) {
    return Promise.reject(err);
  }
}

function forwardSteps(push: PushedMessage, deps: ForwardDeps): ForwardResult | Promise<ForwardResult> {
  const destinationId = push.attributes[DELIVERY_ATTRIBUTES.destination] ?? '';
  const replay = push.attributes[DELIVERY_ATTRIBUTES.replay] === 'true';
  const attempt = push.deliveryAttempt;
  const parsed = parseStoredEvent(push.data);
  const ids = parsed.ok
    ? {
        event_id: parsed.event.event_id,
        event_name: parsed.event.event_name,
        payload_digest: parsed.event.payload_digest,
      }
    : {
        event_id: push.attributes[DELIVERY_ATTRIBUTES.eventId] ?? `message:${push.messageId}`,
        event_name: push.attributes[DELIVERY_ATTRIBUTES.eventName] ?? '(unknown)',
        payload_digest: push.attributes[DELIVERY_ATTRIBUTES.payloadDigest],
      };
  /** The identifier kinds of the request once it is built (match quality); names, never values. */
  let carried: readonly string[] | undefined;
  const row = (status: Exclude<LedgerStatus, 'skipped'>, reason?: string, httpStatus?: number) =>
    attemptEntry({
      identifiers: carried,
      ...ids,
      destination: destinationId || '(none)',
      status,
      reason,
      attempt,
      httpStatus,
      replay,
      messageId: push.messageId,
      now: deps.now(),
    });
  const done = (ack: boolean, entry: LedgerEntry): ForwardResult => ({
    ack,
    entries: [entry],
    summary: `${entry.row.destination} ${entry.row.event_id} attempt ${attempt}: ${entry.row.status}${entry.row.reason ? ` (${entry.row.reason})` : ''}`,
  });

  // Permanent problems: redelivery cannot fix them, so they are recorded and acknowledged.
  if (!parsed.ok) return done(true, row('rejected', parsed.reason));
  const destination = deps.destinations.find((d) => d.id === destinationId);
  if (!destination) return done(true, row('rejected', `destination "${destinationId}" is not configured`));
  const driver = deps.driverFor(destination.type);
  if (!driver) return done(true, row('rejected', `no driver for destination type ${destination.type}`));

  // Retryable: not acknowledged. After the last attempt Pub/Sub moves it to the dead-letter
  // topic, whose ledger subscription records the `dead_lettered` row (dead-letter.ts).
  const retry = (reason: string, httpStatus?: number) => done(false, row('failed', reason, httpStatus));

  const event = parsed.event;
  const deliver = (values: Record<string, string>): ForwardResult | Promise<ForwardResult> => {
    const stamp = event.definition_version;
    if (stamp === undefined || !deps.definitionFor) return deliverAs(values, destination);
    let def: ReturnType<NonNullable<ForwardDeps['definitionFor']>>;
    try {
      def = deps.definitionFor(stamp);
    } catch (err) {
      return retry(`event definition ${stamp} could not be read: ${(err as Error).message}`);
    }
    if (!(def instanceof Promise)) return deliverAs(values, withDefinitionMappings(destination, def));
    return def.then(
      (d) => deliverAs(values, withDefinitionMappings(destination, d)),
      (err: unknown) => retry(`event definition ${stamp} could not be read: ${(err as Error).message}`),
    );
  };
  const deliverAs = (
    values: Record<string, string>,
    destination: Readonly<Destination>,
  ): ForwardResult | Promise<ForwardResult> => {
    const oauth = driver.oauth;
    if (oauth === undefined) return callWith(values, destination);
    const tokens = deps.accessToken;
    if (!tokens) return retry(`no OAuth token source for ${destination.type} in this function`);
    // The token the credentials give (cached by the source); a 401 gets a fresh one and one more call.
    const withToken = (fresh: boolean): Promise<ForwardResult> =>
      tokens(values[oauth.credentials] ?? '', oauth.scope, fresh).then(
        (token) =>
          callWith(
            { ...values, access_token: token },
            destination,
            fresh ? { refreshed: true } : { reauthorize: () => withToken(true) },
          ),
        (err: unknown) => retry(`no OAuth access token for ${destination.id}: ${(err as Error).message}`),
      );
    return withToken(false);
  };
  const callWith = (
    values: Record<string, string>,
    destination: Readonly<Destination>,
    auth: { readonly reauthorize?: () => Promise<ForwardResult>; readonly refreshed?: true } = {},
  ): ForwardResult | Promise<ForwardResult> => {
    const ctx = { destination, secrets: values, now: deps.now() };
    let prepared: ReturnType<Driver['prepare']>;
    try {
      prepared = driver.prepare(event, ctx);
    } catch (err) {
      // A driver bug on one event must not block the subscription: record it and move on.
      prepared = { ok: false, reason: `driver error: ${(err as Error).message}` };
    }
    if (!prepared.ok) return done(true, row('rejected', prepared.reason));
    carried = requestIdentifiers(prepared.request.body);
    const interpret = (response: InboundResponse): ForwardResult | Promise<ForwardResult> => {
      // An access token refused (expired, revoked): once, with a fresh one.
      if (auth.reauthorize && response.kind === 'response' && response.status === 401)
        return auth.reauthorize();
      const outcome = driver.interpret(response, ctx);
      if (outcome.status === 'retry' && deps.breaker && response.kind === 'response') {
        // Throttled with a time to come back: no call to the destination before it.
        const now = deps.now().getTime();
        // The header, else Google's `RetryInfo` detail in the error body (docs/delivery.md).
        const until =
          retryAfterTime(response.headers['retry-after'], now) ?? retryInfoTime(response.body, now);
        if (until !== undefined && until > now) deps.breaker.hold(destination.id, until, now);
      }
      switch (outcome.status) {
        case 'delivered': {
          // What the driver left out travels in the delivered row's reason, so it is never silent.
          const note =
            [
              auth.refreshed ? 'access token refreshed after a 401' : undefined,
              prepared.dropped,
              outcome.detail,
            ]
              .filter(Boolean)
              .join('; ') || undefined;
          return done(true, row('delivered', note, outcome.httpStatus));
        }
        case 'rejected':
          return done(true, row('rejected', outcome.reason, outcome.httpStatus));
        case 'retry':
          return retry(outcome.reason, outcome.httpStatus);
      }
    };
    const networkError = (err: unknown): ForwardResult | Promise<ForwardResult> =>
      interpret({ kind: 'network_error', message: (err as Error).message });
    const breaker = deps.breaker;
    const heldUntil = breaker?.heldUntil(destination.id, deps.now().getTime());
    if (heldUntil !== undefined)
      return retry(
        `held back: ${destination.id} asked for no calls before ${new Date(heldUntil).toISOString()} (Retry-After or RetryInfo)`,
      );
    if (breaker && !breaker.allow(destination.id, deps.now().getTime()))
      return retry(
        `held back: ${destination.id} did not answer its last ${breaker.failures(destination.id)} calls (one probe every 10 s until it does)`,
      );
    let sent: Promise<InboundResponse>;
    try {
      sent = deps.send(prepared.request, destination.timeout_ms ?? DEFAULT_TIMEOUT_MS);
    } catch (err) {
      return networkError(err);
    }
    if (!breaker) return sent.then(interpret, networkError);
    return sent.then(
      (response) => {
        breaker.record(destination.id, response.kind === 'response', deps.now().getTime());
        return interpret(response);
      },
      (err: unknown) => {
        breaker.record(destination.id, false, deps.now().getTime());
        return networkError(err);
      },
    );
  };

  const send = (): ForwardResult | Promise<ForwardResult> => {
    // Cached secrets come back synchronously: no promise on the common path.
    const read = readSecrets(destination, driver, deps.getSecret);
    const withSecrets = (secrets: SecretsResult) =>
      secrets.ok ? deliver(secrets.values) : retry(secrets.reason);
    return read instanceof Promise ? read.then(withSecrets) : withSecrets(read);
  };
  // A redelivery may follow a send that succeeded but whose push Pub/Sub gave up on: the ledger
  // says whether it did. A person's replay is always sent.
  if (attempt <= 1 || replay || !deps.alreadyDelivered) return send();
  return deps.alreadyDelivered(ids.event_id, destination.id, ids.payload_digest).then((delivered) =>
    delivered
      ? {
          ack: true,
          entries: [],
          summary: `${destination.id} ${ids.event_id} attempt ${attempt}: already delivered (ledger), not sent again`,
        }
      : send(),
  );
}

type SecretsResult = { ok: true; values: Record<string, string> } | { ok: false; reason: string };

/**
 * Every role named in the settings must resolve, and so must every role the driver requires.
 * Synchronous while every value is at hand; a promise only once a read has to wait.
 */
function readSecrets(
  destination: Readonly<Destination>,
  driver: Driver,
  getSecret: ForwardDeps['getSecret'],
): SecretsResult | Promise<SecretsResult> {
  const named = destination.secrets ?? {};
  for (const role of driver.requiredSecrets) {
    if (!Object.hasOwn(named, role))
      return {
        ok: false,
        reason: `secret role ${role} is not named in destinations.${destination.id}.secrets`,
      };
  }
  const roles = Object.entries(named);
  const values: Record<string, string> = {};
  for (let i = 0; i < roles.length; i++) {
    const [role, name] = roles[i] as [string, string];
    let value: string | undefined | Promise<string | undefined>;
    try {
      value = getSecret(name);
    } catch (err) {
      return unreadable(name, role, err);
    }
    if (value instanceof Promise) return readRest(roles, i, value, values, getSecret);
    const problem = accept(values, role, name, value);
    if (problem) return problem;
  }
  return { ok: true, values };
}

/** The slow path of readSecrets, from the first value that has to be awaited. */
async function readRest(
  roles: readonly [string, string][],
  from: number,
  first: Promise<string | undefined>,
  values: Record<string, string>,
  getSecret: ForwardDeps['getSecret'],
): Promise<SecretsResult> {
  for (let i = from; i < roles.length; i++) {
    const [role, name] = roles[i] as [string, string];
    let value: string | undefined;
    try {
      value = await (i === from ? first : getSecret(name));
    } catch (err) {
      return unreadable(name, role, err);
    }
    const problem = accept(values, role, name, value);
    if (problem) return problem;
  }
  return { ok: true, values };
}

function accept(
  values: Record<string, string>,
  role: string,
  name: string,
  value: string | undefined,
): SecretsResult | undefined {
  if (value === undefined || value === '')
    return { ok: false, reason: `secret ${name} (${role}) has no value` };
  values[role] = value;
  return undefined;
}

function unreadable(name: string, role: string, err: unknown): SecretsResult {
  return { ok: false, reason: `secret ${name} (${role}) could not be read: ${(err as Error).message}` };
}
