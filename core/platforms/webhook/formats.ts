/**
 * The wire formats of the webhook destination (`config.format`, docs/delivery.md "Webhooks"):
 * Standard Webhooks 1.0 (the default a new destination is written with), CloudEvents 1.0 in
 * binary or structured mode (both also signed with Standard Webhooks headers), and our own
 * `eventbus-v2`, which a destination without `format` (every one written before the choice
 * existed) keeps. The Standard Webhooks signature is made by core/signing/standard-webhooks.ts,
 * the one module that signs and verifies it.
 */
import type { Destination } from '../../../schemas/settings.ts';
import type { StoredEvent } from '../../event.ts';
import { STANDARD_HEADERS, sign } from '../../signing/standard-webhooks.ts';

export const WEBHOOK_FORMATS = [
  'standard-webhooks',
  'cloudevents-binary',
  'cloudevents-structured',
  'eventbus-v2',
] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** What a destination without `config.format` sends: the format every earlier release sent. */
export const LEGACY_FORMAT: WebhookFormat = 'eventbus-v2';
/** What the CLI, the studio and the example settings write for a new webhook destination. */
export const DEFAULT_NEW_FORMAT: WebhookFormat = 'standard-webhooks';

/** The secret role of the key that signed before the current one (a key rotation). */
export const PREVIOUS_KEY_ROLE = 'signing_key_previous';
/** The config key saying until when (RFC 3339) the previous key signs alongside the current one. */
export const PREVIOUS_UNTIL_KEY = 'previous_key_until';

/**
 * A key rotation by versions of one secret (issue #101): the config keys naming the Secret Manager
 * version of `signing_key`'s secret that signs now, and the one that signed before it (with
 * `previous_key_until`). Numbers, never key values. A destination naming a second secret under
 * `signing_key_previous` (the previous release's form) keeps working, warned by settings check.
 */
export const CURRENT_VERSION_KEY = 'signing_key_version';
export const PREVIOUS_VERSION_KEY = 'previous_key_version';

/** How a secret reference names one version: `<secret>@<version>` (adapters/secrets.ts reads it). */
export const versionRef = (secret: string, version: string): string => `${secret}@${version}`;

/**
 * The secrets the delivery reads, by role: the destination's own, with `signing_key` at its named
 * version and `signing_key_previous` as the previous version of the same secret when the config
 * names them. Other destinations' secrets unchanged.
 */
export function secretRefs(destination: Readonly<Destination>): Readonly<Record<string, string>> {
  const named = destination.secrets ?? {};
  const key = named['signing_key'];
  const current = destination.config?.[CURRENT_VERSION_KEY];
  const previous = destination.config?.[PREVIOUS_VERSION_KEY];
  if (
    destination.type !== 'webhook' ||
    key === undefined ||
    (current === undefined && previous === undefined)
  )
    return named;
  return {
    ...named,
    ...(typeof current === 'string' ? { signing_key: versionRef(key, current) } : {}),
    ...(typeof previous === 'string' ? { [PREVIOUS_KEY_ROLE]: versionRef(key, previous) } : {}),
  };
}

/** The destination's format; undefined for a value that is not one (the settings check names it). */
export function webhookFormat(destination: Readonly<Destination>): WebhookFormat | undefined {
  const v = destination.config?.['format'];
  if (v === undefined) return LEGACY_FORMAT;
  return (WEBHOOK_FORMATS as readonly unknown[]).includes(v) ? (v as WebhookFormat) : undefined;
}

/** Where a rotation stands at `now`: which keys sign, and until when the previous one does. */
export interface Rotation {
  /** `none`: one key; `overlap`: both sign; `ended`: the previous key is named but no longer signs. */
  readonly state: 'none' | 'overlap' | 'ended';
  readonly until?: string;
}

/**
 * The rotation state of a destination at `now`. The previous key signs only while `now` is
 * before `config.previous_key_until`: without that date it never does (a rotation is bounded).
 */
export function rotationState(destination: Readonly<Destination>, now: Date): Rotation {
  if (!secretRefs(destination)[PREVIOUS_KEY_ROLE]) return { state: 'none' };
  const until = destination.config?.[PREVIOUS_UNTIL_KEY];
  if (typeof until !== 'string') return { state: 'ended' };
  const end = Date.parse(until);
  return Number.isFinite(end) && now.getTime() < end
    ? { state: 'overlap', until }
    : { state: 'ended', until };
}

/** The secret values that sign now: the current key, then the previous one during an overlap. */
export function signingSecrets(
  destination: Readonly<Destination>,
  secrets: Readonly<Record<string, string>>,
  now: Date,
): string[] {
  const current = secrets['signing_key'];
  if (!current) return [];
  const previous = secrets[PREVIOUS_KEY_ROLE];
  return previous && rotationState(destination, now).state === 'overlap' ? [current, previous] : [current];
}

/** The three Standard Webhooks headers of one attempt: the delivery id, this attempt's time, the signatures. */
export function standardHeaders(
  id: string,
  now: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const names = STANDARD_HEADERS.standard_webhooks;
  return {
    [names.id]: id,
    [names.timestamp]: String(timestamp),
    [names.signature]: sign({ id, timestamp, body, secrets }),
  };
}

/**
 * The CloudEvents `type` of an event name: `com.eventbus.` then the name in lower case, each run
 * of characters other than letters, digits, `.`, `_` and `-` turned into one `_`
 * (`Order Completed` → `com.eventbus.order_completed`).
 */
export function cloudEventType(eventName: string): string {
  return `com.eventbus.${eventName.toLowerCase().replace(/[^a-z0-9._-]+/g, '_')}`;
}

/**
 * The CloudEvents context attributes of one delivery (docs/delivery.md lists them): `id` the
 * delivery id, `source` the environment, `subject` the stored event's id.
 */
export function cloudEventAttributes(
  event: StoredEvent,
  id: string,
  environment: string | undefined,
): Record<string, string> {
  return {
    specversion: '1.0',
    id,
    source: `/eventbus/${environment ?? 'unknown'}`,
    type: cloudEventType(event.event_name),
    time: event.event_time,
    datacontenttype: 'application/json',
    // The stored event's own id (never a user's: a header is not scrubbed with the body).
    subject: event.event_id,
  };
}

/**
 * How each webhook destination signs at `now`, in words, by destination id: its format and where
 * a key rotation stands (the studio's destination page shows it; no secret value is read).
 */
export function webhookSigning(
  destinations: readonly Readonly<Destination>[],
  now: Date,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of destinations) {
    if (d.type !== 'webhook') continue;
    const format = webhookFormat(d) ?? `unknown format ${String(d.config?.['format'])}`;
    const legacy = d.config?.['format'] === undefined ? ' (no format set: as before)' : '';
    const r = rotationState(d, now);
    const rotation =
      r.state === 'overlap'
        ? `key rotation: the current and the previous key both sign until ${r.until}`
        : r.state === 'ended'
          ? `key rotation ended${r.until ? ` at ${r.until}` : ' (no end date set)'}: only the current key signs`
          : 'one key';
    out[d.id] = `${format}${legacy}; ${rotation}`;
  }
  return out;
}
