/**
 * `POST /v1/translators/{name}` (docs/translators.md): a payload in the translator's format (CSV,
 * JSON, NDJSON) becomes events. Every row is translated and validated (the gateway's own checks,
 * and the event's definition) before anything is published; one bad row refuses the request
 * whole, naming row and field, unless `?partial=true`. Valid rows are published in chunks of at
 * most 1000; a chunk that fails answers 503 and a retry is idempotent, because each row's
 * event_id is deterministic (from the translator's `key`, else from the Idempotency-Key or the
 * body's digest and the row's number; under a signature never from the unsigned
 * Idempotency-Key). Idempotent, not atomic. A signed delivery is checked here first
 * (verifyDelivery: the signature, then the replay memory).
 */
import type { TranslatorEntry } from '../adapters/definitions.ts';
import type { EventPublisher, OutgoingMessage } from '../adapters/publisher.ts';
import { SecretAccessDenied } from '../adapters/secrets.ts';
import type { Deprecated } from '../core/definitions/defined-events.ts';
import { type ApiError, apiError } from '../core/errors.ts';
import { parseForm } from '../core/formats/form.ts';
import type { Step } from '../core/step.ts';
import {
  INVALID_ERRORS_ATTRIBUTE,
  invalidAttribute,
  invalidErrorsAttribute,
} from '../core/store/invalid-call.ts';
import { readableHeaders } from '../core/translate/headers.ts';
import { TRANSLATOR_MEDIA, translate } from '../core/translate/index.ts';
import { CERTIFICATE_SCHEMES, signatureHeader } from '../core/translate/signature-header.ts';
import type { CertificateSource } from '../core/translate/signature-sns.ts';
import {
  DEFAULT_TOLERANCE_SECONDS,
  type SignatureRefusal,
  type SignedRequest,
  verifySignature,
} from '../core/translate/signatures.ts';
import { translatorEvents } from '../core/translate/spec.ts';
import { readPath } from '../core/translate/transforms.ts';
import { TRANSLATOR_SECRET_PREFIX } from '../core/translate/translator-secrets.ts';
import type { FieldViolation } from '../core/validation.ts';
import { lookupEvent } from '../schemas/catalogue.ts';
import type { TranslatorSignature } from '../schemas/translator-signature.ts';
import type { RawBody } from './body.ts';
import { type EnvelopeContext, eventMessage, soonest } from './envelope.ts';
import type { ReplayMemory } from './idempotency.ts';

export type { TranslatorEntry };

export { TRANSLATOR_MEDIA };

export const TRANSLATOR_CHARSETS = ['utf-8', 'utf8', 'iso-8859-1', 'latin1'] as const;

/**
 * What Segment's paths take: JSON, as their libraries label it. RudderStack's (axios sending a
 * gzipped Buffer) says application/x-www-form-urlencoded; the body is JSON all the same.
 */
export const SEGMENT_MEDIA = ['application/json', 'text/plain', 'application/x-www-form-urlencoded'] as const;

/** Messages per Publish call (Pub/Sub allows 1000). */
const CHUNK = 1000;

export interface TranslateAnswer {
  /** One per row of the payload, in order: its message id, or null for a row refused (partial). */
  readonly messageIds: (string | null)[];
  /** With ?partial=true: how many rows were refused, and why. */
  readonly invalidRows?: number;
  readonly violations?: readonly FieldViolation[];
}

const ROW = /^rows\[(\d+)\]/;

/**
 * Translates and validates a payload into messages, one per distinct event_id, with each row's
 * message index (undefined for a refused row). Pure apart from the clock and id minting in ctx.
 */
export function translateRows(
  entry: TranslatorEntry,
  body: RawBody,
  ctx: EnvelopeContext,
  opts: {
    partial: boolean;
    idempotencyKey?: string | undefined;
    /** The request's own headers, for `header:` sources (credential headers are never passed on). */
    headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
    defaults?: Readonly<Record<string, unknown>>;
    /** A write key's own event list (the browser SDKs' paths): a row outside it is refused. */
    keyEvents?: { readonly id: string; readonly names: readonly string[] } | undefined;
  },
): Step<{
  messages: OutgoingMessage[];
  order: (number | undefined)[];
  violations: FieldViolation[];
  deprecated?: Deprecated;
}> {
  // SNS labels its JSON text/plain (signedMedia let it in).
  const media =
    body.media === 'text/plain' && entry.spec.auth?.signature?.scheme === 'sns'
      ? 'application/json'
      : body.media;
  const result = translate({
    translator: entry.name,
    spec: entry.spec,
    eventName: entry.spec.event,
    body: body.bytes,
    contentType: body.charset ? `${media}; charset=${body.charset}` : media,
    // A signed delivery's ids come from its signed body alone: the header is not signed, and a
    // replay with another Idempotency-Key must fold into the same events (docs/senders.md).
    ...(opts.idempotencyKey && !entry.spec.auth?.signature ? { idempotencyKey: opts.idempotencyKey } : {}),
    ...(opts.defaults ? { defaults: opts.defaults } : {}),
    ...(opts.headers ? { headers: readableHeaders(opts.headers, entry.spec) } : {}),
  });
  if (!result.ok)
    return {
      ok: false,
      error: apiError('UNREADABLE_PAYLOAD', { translator: entry.name }, result.violations),
    };
  const violations: FieldViolation[] = [...result.problems];
  const rows = result.total;
  const order: (number | undefined)[] = [];
  const messages: OutgoingMessage[] = [];
  const byId = new Map<string, number>();
  let deprecated: Deprecated | undefined;
  const events = translatorEvents(entry.spec);
  for (const { row, event } of result.rows) {
    const name = event['event_name'];
    // The allow-list (issue 33): a translator's credential publishes its own events only.
    if (typeof name === 'string' && !events.names.has(name) && !(events.custom && !lookupEvent(name))) {
      violations.push({
        field: `rows[${row}].event_name`,
        description: `${name} is not among the events of translator ${entry.name} (its spec's \`events\`)`,
      });
      continue;
    }
    const keyEvents = opts.keyEvents;
    if (typeof name === 'string' && keyEvents && !keyEvents.names.includes(name)) {
      violations.push({
        field: `rows[${row}].event_name`,
        description: `${name} is not among the events of write key ${keyEvents.id} (key create --event)`,
      });
      continue;
    }
    const m = eventMessage(event, `rows[${row}]`, ctx, { attributes: { translator: entry.name } });
    if (!m.ok) {
      violations.push(
        ...(m.tooLarge !== undefined
          ? [{ field: `rows[${row}]`, description: `the event is ${m.tooLarge} bytes, over the limit` }]
          : m.violations),
      );
      continue;
    }
    deprecated = soonest(deprecated, m.deprecated);
    const seen = byId.get(m.eventId);
    if (seen !== undefined) {
      order[row] = seen;
      continue;
    }
    byId.set(m.eventId, messages.length);
    order[row] = messages.length;
    messages.push(m.message);
  }
  order.length = rows;
  // A translator that stores what it cannot map (`unmappable: store`, for senders that retry a
  // refusal for days) answers 200 and keeps each refused row in invalid_events, with its reasons.
  const store = entry.spec.unmappable === 'store';
  if (violations.length > 0 && !opts.partial && !store) {
    const invalid = new Set(violations.map((v) => ROW.exec(v.field)?.[1] ?? v.field)).size;
    return {
      ok: false,
      error: apiError(
        'INVALID_ROWS',
        { count: invalid, rows, translator: entry.name },
        sortByRow(violations),
      ),
    };
  }
  const sorted = sortByRow(violations);
  // After the events: `order` indexes only these, so the answer's ids stay the rows' own.
  if (store && sorted.length > 0) messages.push(...invalidCalls(entry, body, sorted));
  return {
    ok: true,
    value: { messages, order, violations: sorted, ...(deprecated ? { deprecated } : {}) },
  };
}

const rowOf = (v: FieldViolation): number => Number(ROW.exec(v.field)?.[1] ?? Number.MAX_SAFE_INTEGER);

function sortByRow(violations: FieldViolation[]): FieldViolation[] {
  return violations.sort((a, b) => rowOf(a) - rowOf(b));
}

/** Publishes the messages in chunks, in order; the ids in the same order. Rejects on a failed chunk. */
export async function publishChunks(
  publisher: EventPublisher,
  topic: string,
  messages: readonly OutgoingMessage[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < messages.length; i += CHUNK) {
    ids.push(...(await publisher.publish(topic, messages.slice(i, i + CHUNK))));
  }
  return ids;
}

/** The answer: one id (or null) per row, and with ?partial=true what was refused. */
export function translateAnswer(
  order: readonly (number | undefined)[],
  ids: readonly string[],
  violations: readonly FieldViolation[],
): TranslateAnswer {
  const messageIds = Array.from(order, (i) => (i === undefined ? null : (ids[i] ?? null)));
  if (violations.length === 0) return { messageIds };
  const invalidRows = messageIds.filter((id) => id === null).length;
  return { messageIds, invalidRows, violations: violations.slice(0, 100) };
}

/** A JSON or form body's records as sent, or undefined when it cannot be read again. */
function callsOf(entry: TranslatorEntry, body: RawBody): unknown[] | undefined {
  const format = entry.spec.format;
  const text = body.bytes.toString('utf8');
  if (format.type === 'form') {
    const read = parseForm(text, format.max_depth);
    return 'why' in read ? undefined : [read.record];
  }
  try {
    const value: unknown = JSON.parse(text);
    const records = format.type === 'json' ? format.records : undefined;
    const list =
      records && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? readPath(value as Record<string, unknown>, records)
        : value;
    return Array.isArray(list) ? list : [value];
  } catch {
    return undefined;
  }
}

/**
 * The calls of a body that could not become events (a Segment path's, or an `unmappable: store`
 * translator's), as messages the store keeps in `invalid_events` (docs/senders.md): the call as
 * sent under `invalid_call` (an object with no `event_name` never validates, so it cannot pass as
 * an event), and our reasons in the `invalid` attribute (text) and the `invalid_errors` one (the
 * row's `errors`). A JSON or form body is read again for its records (the spec allows `store` only
 * with those); one that cannot be read gives none (its rows were all refused).
 */
export function invalidCalls(
  entry: TranslatorEntry,
  body: RawBody,
  violations: readonly FieldViolation[],
): OutgoingMessage[] {
  const byRow = new Map<number, FieldViolation[]>();
  for (const v of violations) {
    const m = ROW.exec(v.field);
    if (!m) continue;
    const row = Number(m[1]);
    byRow.set(row, [...(byRow.get(row) ?? []), v]);
  }
  if (byRow.size === 0) return [];
  const calls = callsOf(entry, body);
  if (calls === undefined) return [];
  return [...byRow].map(([row, reasons]) => ({
    data: Buffer.from(JSON.stringify({ invalid_call: calls[row] ?? null })),
    attributes: {
      translator: entry.name,
      invalid: invalidAttribute(reasons),
      // The store keeps these as the row's errors (core/store/invalid-call.ts).
      [INVALID_ERRORS_ATTRIBUTE]: invalidErrorsAttribute(reasons),
    },
  }));
}

/**
 * The media a signed translator takes: its format's, and for `sns` text/plain too, which is how
 * Amazon SNS labels the JSON it posts.
 */
export function signedMedia(signature: TranslatorSignature, media: readonly string[]): readonly string[] {
  return signature.scheme === 'sns' && media.includes('application/json') ? [...media, 'text/plain'] : media;
}

/** What checking a signed delivery needs from the gateway. */
export interface DeliveryCheckDeps {
  /** Secret values by name (adapters/secrets.ts). */
  readonly secrets?: { get(name: string): Promise<string | undefined> } | undefined;
  /** Signing certificates by URL (signing-certificates.ts), for `sns`. */
  readonly certificates: CertificateSource;
  readonly replays: ReplayMemory;
  readonly now: number;
  readonly log: (entry: Record<string, unknown>) => void;
}

/** Misconfigurations already told by this instance (bounded: a name is at most 63 characters). */
const told = new Set<string>();

/** True the first time `key` is seen by this instance (the set is cleared past 10,000 keys). */
function firstTime(key: string): boolean {
  if (told.has(key)) return false;
  if (told.size >= 10_000) told.clear();
  told.add(key);
  return true;
}

/** A signed delivery's verdict: taken (and whether it replays one seen before), or the answer. */
export type DeliveryCheck =
  | { readonly ok: true; readonly replayOf?: number }
  | { readonly ok: false; readonly error: ApiError; readonly reason?: SignatureRefusal };

/**
 * A signing sender (Stripe, GitHub, SNS, …) cannot add a token: its signature is its credential,
 * checked on the bytes as they arrived. A bad one is 401; a secret with no value, or a signing
 * certificate that cannot be fetched, is ours to fix and answers 503 (the vendor retries).
 * A verified delivery seen inside the tolerance window is a replay: taken all the same (its
 * event ids are the first's, so it folds), and logged (docs/senders.md, "Replays").
 */
export async function verifyDelivery(
  name: string,
  signature: TranslatorSignature,
  request: SignedRequest,
  deps: DeliveryCheckDeps,
): Promise<DeliveryCheck> {
  // No signature at all cannot be authenticated whatever the translator's secrets are: 401
  // before any secret is read, so a caller never sees the operator's misconfiguration as a 5xx.
  const header = CERTIFICATE_SCHEMES.has(signature.scheme) ? undefined : signatureHeader(signature);
  const presented = header === undefined ? undefined : request.header(header);
  if (header !== undefined && (presented === undefined || presented.trim() === ''))
    return {
      ok: false,
      error: apiError('INVALID_CREDENTIALS', { detail: `no ${header} header` }),
      reason: 'missing_signature',
    };
  let values: (string | undefined)[];
  try {
    values = await Promise.all((signature.secrets ?? []).map((s) => deps.secrets?.get(s)));
  } catch (err) {
    if (err instanceof SecretAccessDenied) {
      // IAM refused the gateway: the same line locally and in the cloud, naming what to grant;
      // once per translator and secret in an instance, not once per request.
      if (firstTime(`denied\0${name}\0${err.secret}`))
        deps.log({
          severity: 'ERROR',
          message: `translator ${name}: the gateway may not read its signing secret ${err.secret}: ${err.permission} denied${err.principal ? ` for ${err.principal}` : ''} (docs/translators.md, "Signing secrets": name it ${TRANSLATOR_SECRET_PREFIX}…, or grant it)`,
          translator: name,
          secret: err.secret,
          permission: err.permission,
          ...(err.principal ? { principal: err.principal } : {}),
        });
      return { ok: false, error: apiError('UNAVAILABLE', { retryAfter: 30 }), reason: 'secret_denied' };
    }
    deps.log({
      severity: 'ERROR',
      message: `signing secret unreadable: ${(err as Error).message}`,
      translator: name,
    });
    return { ok: false, error: apiError('UNAVAILABLE', { retryAfter: 5 }) };
  }
  const check = await verifySignature(
    signature,
    request,
    values.filter((v): v is string => v !== undefined),
    deps.now,
    deps.certificates,
  );
  if (!check.ok && (check.reason === 'no_secret' || check.reason === 'certificate_unavailable')) {
    // The operator's doing or an outage, not the sender's: a 5xx makes the vendor retry. A secret
    // with no value is told once per translator in an instance; an outage at each request.
    if (check.reason !== 'no_secret' || firstTime(`no_secret\0${name}`))
      deps.log({
        severity: 'ERROR',
        message: `translator ${name}: ${check.detail}`,
        ...(check.reason === 'no_secret' ? { secrets: signature.secrets } : {}),
      });
    return { ok: false, error: apiError('UNAVAILABLE', { retryAfter: 30 }), reason: check.reason };
  }
  if (!check.ok)
    return {
      ok: false,
      error: apiError('INVALID_CREDENTIALS', { detail: check.detail }),
      reason: check.reason,
    };
  const windowMs = (signature.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS) * 1000;
  const first = deps.replays.seen(name, check.delivery, deps.now, windowMs);
  if (first === undefined) return { ok: true };
  deps.log({
    severity: 'INFO',
    message: `translator ${name}: a replay of a delivery first seen ${deps.now - first} ms ago; its events fold`,
    translator: name,
    replay: check.delivery.slice(0, 80),
  });
  return { ok: true, replayOf: first };
}
