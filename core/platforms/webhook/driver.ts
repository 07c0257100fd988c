/**
 * Webhook requests: a JSON POST of the stored event to `base_url` + `config.path`,
 * signed with HMAC-SHA256 over the timestamp, method, URL and body with the `signing_key`
 * secret, so a receiver can check origin, freshness and that the request was meant for this
 * URL, and carrying a delivery id that is the same for every attempt of one stored event to one
 * destination, for the receiver to de-duplicate on (docs/delivery.md has the snippet).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { StoredEvent } from '../../event.ts';
import { deliveryId } from '../../identity.ts';
import { scrubPayload } from '../../pii.ts';
import type { DriverContext, Prepared } from '../driver.ts';
import { scrubsPii } from '../prepare.ts';
import {
  cloudEventAttributes,
  signingSecrets,
  standardHeaders,
  WEBHOOK_FORMATS,
  webhookFormat,
} from './formats.ts';

export const WEBHOOK_HEADERS = Object.freeze({
  timestamp: 'x-eventbus-timestamp',
  signature: 'x-eventbus-signature',
  eventId: 'x-eventbus-event-id',
  eventName: 'x-eventbus-event-name',
  deliveryId: 'x-eventbus-delivery-id',
  test: 'x-eventbus-test',
});

/** Signatures older or newer than this are refused by verifyWebhookSignature by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** What a webhook signature covers. */
export interface SignedParts {
  readonly timestamp: string;
  readonly method: string;
  /** The URL as the destination's settings name it (base_url + config.path), not as a proxy rewrote it. */
  readonly url: string;
  readonly body: string;
}

/**
 * `v2=<hex HMAC-SHA256(key, timestamp LF method LF url LF body)>`. Newlines separate the parts
 * because none of the first three can hold one, so no two requests share a signed text. (v1
 * signed only `timestamp.body`: a captured request could be replayed to another URL.)
 */
export function signWebhook(key: string, parts: SignedParts): string {
  const text = `${parts.timestamp}\n${parts.method.toUpperCase()}\n${parts.url}\n${parts.body}`;
  return `v2=${createHmac('sha256', key).update(text).digest('hex')}`;
}

/** Where a webhook is sent, and the URL its signature covers: base_url + config.path. */
export const webhookUrl = (baseUrl: string, path: string | undefined) =>
  `${baseUrl.replace(/\/+$/, '')}${path ?? ''}`;

/** The delivery id (core/identity.ts): a receiver de-duplicates on it; both event parts are in the signed body. */
export const webhookDeliveryId = deliveryId;

/**
 * Checks a webhook signature header against the method, URL, body and timestamp
 * (constant-time), and that the timestamp is within `toleranceSeconds` of `now`, which bounds
 * replays to that window (a receiver also skips a delivery id it has already acted on).
 * The header may carry several `v2=` values (key rotation): any match is accepted.
 */
export function verifyWebhookSignature(input: {
  readonly key: string;
  readonly method: string;
  readonly url: string;
  readonly body: string;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly now: Date;
  readonly toleranceSeconds?: number;
}): { ok: true } | { ok: false; reason: string } {
  const { timestamp, signature } = input;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: 'missing or malformed timestamp' };
  if (!signature) return { ok: false, reason: 'missing signature' };
  const age = Math.abs(input.now.getTime() / 1000 - Number(timestamp));
  if (age > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return { ok: false, reason: 'timestamp outside the tolerance window' };
  const expected = Buffer.from(
    signWebhook(input.key, { timestamp, method: input.method, url: input.url, body: input.body }),
  );
  const ok = signature
    .split(',')
    .map((s) => Buffer.from(s.trim()))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
  return ok ? { ok: true } : { ok: false, reason: 'signature does not match' };
}

/**
 * The signed request of one stored event (scrubbed only when the destination asks: `scrub_pii`),
 * in the destination's `config.format` (formats.ts; absent: `eventbus-v2`, as every earlier
 * release sent).
 */
export function webhookPrepare(event: StoredEvent, ctx: DriverContext): Prepared {
  const { destination } = ctx;
  if (!destination.base_url) return { ok: false, reason: 'webhook destination has no base_url' };
  const path = destination.config?.['path'];
  if (path !== undefined && (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))))
    return { ok: false, reason: 'config.path must be a string starting with "/"' };
  const format = webhookFormat(destination);
  if (!format) return { ok: false, reason: `config.format must be one of ${WEBHOOK_FORMATS.join(', ')}` };
  // Always signed: a webhook without its key is not sent (the settings check requires it).
  if (!ctx.secrets['signing_key'])
    return { ok: false, reason: `secret signing_key is missing for destination ${destination.id}` };
  const url = webhookUrl(destination.base_url, path);
  const stored = scrubsPii(destination, false) ? scrubPayload(event) : event;
  const id = webhookDeliveryId(event.event_id, event.payload_digest, destination.id);
  const common: Record<string, string> = {
    'user-agent': 'eventbus-webhook/1',
    [WEBHOOK_HEADERS.eventId]: event.event_id,
    [WEBHOOK_HEADERS.eventName]: event.event_name,
    ...(destination.test_mode ? { [WEBHOOK_HEADERS.test]: '1' } : {}),
  };
  if (format === 'eventbus-v2') return eventbusV2(stored, url, id, common, ctx);
  let body: string;
  let headers: Record<string, string>;
  if (format === 'standard-webhooks') {
    body = JSON.stringify(stored);
    headers = { 'content-type': 'application/json' };
  } else {
    const attributes = cloudEventAttributes(event, id, ctx.environment);
    if (format === 'cloudevents-structured') {
      body = JSON.stringify({ ...attributes, data: stored });
      headers = { 'content-type': 'application/cloudevents+json; charset=utf-8' };
    } else {
      body = JSON.stringify(stored);
      headers = { 'content-type': attributes['datacontenttype'] ?? 'application/json' };
      for (const [k, v] of Object.entries(attributes)) if (k !== 'datacontenttype') headers[`ce-${k}`] = v;
    }
  }
  const secrets = signingSecrets(destination, ctx.secrets, ctx.now);
  let signed: Record<string, string>;
  try {
    signed = standardHeaders(id, ctx.now, body, secrets);
  } catch (err) {
    return { ok: false, reason: `destination ${destination.id}: ${(err as Error).message}` };
  }
  return {
    ok: true,
    request: { method: 'POST', url, redactedUrl: url, headers: { ...headers, ...common, ...signed }, body },
  };
}

/** Our own format: `X-Eventbus-Signature: v2=…` over the timestamp, method, URL and body. */
function eventbusV2(
  stored: StoredEvent,
  url: string,
  id: string,
  common: Readonly<Record<string, string>>,
  ctx: DriverContext,
): Prepared {
  const body = JSON.stringify(stored);
  const timestamp = String(Math.floor(ctx.now.getTime() / 1000));
  const key = ctx.secrets['signing_key'] ?? '';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...common,
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.deliveryId]: id,
    [WEBHOOK_HEADERS.signature]: signWebhook(key, { timestamp, method: 'POST', url, body }),
  };
  return { ok: true, request: { method: 'POST', url, redactedUrl: url, headers, body } };
}
