/**
 * The dry run: what one event would become at one destination, through the same code the
 * forward function runs (normalise → decide → driver.prepare), without sending anything and
 * without reading a secret: secrets are placeholders and redacted from what is shown. A
 * `segment_action` destination's requests are its actions' own, run by previewDeliveryRequests.
 */
import { lookupEvent } from '../../schemas/catalogue.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { decideOne } from '../decision/decision.ts';
import type { DefinedEvent } from '../definitions/defined-events.ts';
import { createEnricher, type Enricher, withEnrichment } from '../enrich/index.ts';
import type { StoredEvent } from '../event.ts';
import { normalizeEvent, normalizeOptions } from '../event.ts';
import type { FieldOrigin } from '../linkage/engine.ts';
import type { Outcome } from '../platforms/driver.ts';
import { driverFor } from '../platforms/drivers.ts';
import { traceForDestination } from '../platforms/mappings.ts';
import type { FieldViolation } from '../validation.ts';

/** The stages that stop an event before any request is built, and why. */
type Stopped =
  | { readonly outcome: 'invalid_event'; readonly violations: readonly FieldViolation[] }
  | { readonly outcome: 'skipped'; readonly reason: string }
  | { readonly outcome: 'not_sent'; readonly reason: string };

/** One request as preview shows it. */
export interface PreviewRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** What preview shows: the request (secrets redacted), or the stage that stops the event and why. */
export type PreviewResult =
  | Stopped
  | {
      readonly outcome: 'send';
      readonly event: StoredEvent;
      /** Where each mapped field came from (source path → target field, transforms applied). */
      readonly fields?: readonly FieldOrigin[];
      /** What was left out of the event so the rest could be sent, and why. */
      readonly dropped?: string;
      readonly request: PreviewRequest;
    };

/**
 * What preview shows for any destination: a `segment_action` one's requests as its actions build
 * them, in order (credentials as `secret:<role>`), with each action's outcome had the platform
 * answered 200; or what the other destinations show.
 */
export type RequestsPreviewResult =
  | PreviewResult
  | {
      readonly outcome: 'send_actions';
      readonly event: StoredEvent;
      readonly requests: readonly PreviewRequest[];
      readonly outcomes: readonly { readonly action: string; readonly outcome: Outcome }[];
    };

export const REDACTED = 'REDACTED';
/** Headers that carry credentials or are derived from them (signatures). */
const SECRET_HEADER = /authorization|token|secret|signature|key/i;

/** What preview is given besides the settings, the destination and the event. */
export interface PreviewOptions {
  readonly definition?: DefinedEvent;
  /** The event as stored (a warehouse row rebuilt): sent as it is, not normalised again. */
  readonly stored?: StoredEvent;
  /**
   * The store function's enrichment (adapters/enrichment.ts, loadEnricher), applied to a raw
   * event as `store` would. Absent: the settings' enrichment without the referrer list and
   * geography (both need data an adapter loads), so channel is coarser and geo is missing.
   */
  readonly enrich?: Enricher;
}

/**
 * Previews one event (as a producer sends it, or as stored) for a destination of the settings.
 * `now` anchors the time windows exactly as the forward function's clock would. With a
 * `definition` (the creator's draft, or a stored event's version), an event of that name is taken
 * as defined by it, as the gateway's stamp would make it: webhooks send it, platforms when the
 * definition maps it. With `stored`, `raw` is ignored and that stored event is used as it is.
 * A `segment_action` destination's requests are built by its actions (previewDeliveryRequests).
 */
export function previewDelivery(
  settings: Readonly<Settings>,
  destinationId: string,
  raw: unknown,
  now: Date,
  options: PreviewOptions = {},
): PreviewResult {
  const d = decided(settings, destinationId, raw, now, options);
  return 'outcome' in d ? d : driverPreview(d.destination, d.event, now);
}

/**
 * A secret's stand-in in a preview: `REDACTED` and the role in letters and digits, padded to a
 * multiple of four, so it is also a key a driver can sign with (a Standard Webhooks key is
 * base64), and any header or value it shows up in is redacted.
 */
const placeholderOf = (role: string): string => {
  const text = `${REDACTED}${role.toUpperCase().replace(/[^A-Z0-9]/g, '')}`;
  return text.padEnd(Math.ceil(text.length / 4) * 4, 'X');
};

/** The request the destination's driver prepares for an event past the decision layer. */
function driverPreview(destination: Destination, event: StoredEvent, now: Date): PreviewResult {
  const driver = driverFor(destination.type);
  if (driver === undefined) return { outcome: 'not_sent', reason: `no driver for ${destination.type}` };
  const roles = new Set([...driver.requiredSecrets, ...Object.keys(destination.secrets ?? {})]);
  const secrets = Object.fromEntries([...roles].map((r) => [r, placeholderOf(r)]));
  const prepared = driver.prepare(event, { destination, secrets, now });
  if (!prepared.ok) return { outcome: 'not_sent', reason: prepared.reason };
  const placeholders = Object.values(secrets);
  const headers = Object.fromEntries(
    Object.entries(prepared.request.headers).map(([k, v]) => [
      k,
      SECRET_HEADER.test(k) || placeholders.some((p) => v.includes(p)) ? REDACTED : v,
    ]),
  );
  let body: unknown;
  try {
    body = JSON.parse(prepared.request.body);
  } catch {
    body = prepared.request.body;
  }
  return {
    outcome: 'send',
    event,
    fields: traceForDestination(destination, event),
    ...(prepared.dropped ? { dropped: prepared.dropped } : {}),
    request: { method: prepared.request.method, url: prepared.request.redactedUrl, headers, body },
  };
}

/**
 * previewDelivery for any destination, a `segment_action` one included: its event is run through
 * its actions by `actions`, the runtime's dry run (adapters/segment-actions/preview.ts, which the
 * caller loads on the first such preview so actions-core loads only then; core loads no module
 * itself). Nothing is sent.
 */
export async function previewDeliveryRequests(
  settings: Readonly<Settings>,
  destinationId: string,
  raw: unknown,
  now: Date,
  actions: ActionsPreview,
  options: PreviewOptions = {},
): Promise<RequestsPreviewResult> {
  const d = decided(settings, destinationId, raw, now, options);
  if ('outcome' in d) return d;
  if (d.destination.type !== 'segment_action') return driverPreview(d.destination, d.event, now);
  const run = await actions(d.event, d.destination, now);
  if (!run.installed) return { outcome: 'not_sent', reason: run.reason };
  if (run.requests.length > 0)
    return { outcome: 'send_actions', event: d.event, requests: run.requests, outcomes: run.outcomes };
  const refused = run.outcomes.flatMap((o) => (o.outcome.status === 'rejected' ? [o.outcome.reason] : []));
  return {
    outcome: 'not_sent',
    reason:
      refused.length > 0
        ? refused.join('; ')
        : `no action of ${d.destination.destination ?? 'the destination'} takes ${d.event.event_name}`,
  };
}

/**
 * The Segment actions runtime's dry run of one event (adapters/segment-actions/preview.ts): each
 * action's requests and outcome, or why the runtime could not run here.
 */
export type ActionsPreview = (
  event: StoredEvent,
  destination: Readonly<Destination>,
  now: Date,
) => Promise<ActionsPreviewResult>;

/** What the actions' dry run gives: each action's outcome and its requests; or why it could not run. */
export type ActionsPreviewResult =
  | {
      readonly installed: true;
      readonly outcomes: readonly { readonly action: string; readonly outcome: Outcome }[];
      readonly requests: readonly PreviewRequest[];
    }
  | { readonly installed: false; readonly reason: string };

/** The event as the destination's driver takes it, past the decision layer; or what stops it. */
function decided(
  settings: Readonly<Settings>,
  destinationId: string,
  raw: unknown,
  now: Date,
  options: PreviewOptions,
): Stopped | { readonly destination: Destination; readonly event: StoredEvent } {
  const { definition } = options;
  const destination = (settings.destinations ?? []).find((d) => d.id === destinationId);
  if (destination === undefined) {
    const ids = (settings.destinations ?? []).map((d) => d.id).join(', ') || 'none';
    return { outcome: 'not_sent', reason: `no destination "${destinationId}" (destinations: ${ids})` };
  }
  let base: StoredEvent;
  if (options.stored) base = options.stored;
  else {
    const normalized = normalizeEvent(raw, {
      options: normalizeOptions(settings),
      now: now.getTime(),
      newId: () => 'preview-event-id',
      checkWindow: false,
    });
    if (!normalized.ok) return { outcome: 'invalid_event', violations: normalized.violations };
    base = withEnrichment(
      normalized.event as unknown as StoredEvent,
      options.enrich ?? dataFreeEnricher(settings),
    );
  }
  const stamped = definition !== undefined && base.event_name === definition.name;
  const event: StoredEvent = stamped ? { ...base, definition_version: definition.stamp } : base;
  const decision = decideOne(destination, event, {
    isKnownEvent: (n) => lookupEvent(n) !== undefined,
    ...(stamped
      ? { definitionMaps: (_: string, type) => definition.spec.mappings?.[type] !== undefined }
      : {}),
  });
  if (decision.action === 'skip') return { outcome: 'skipped', reason: decision.reason };
  return { destination, event };
}

/** The settings' enrichment with what needs no loaded data (no referrer list, no geography). */
function dataFreeEnricher(settings: Readonly<Settings>): Enricher | undefined {
  return createEnricher({ ...settings, enrichment: { ...settings.enrichment, geo: 'off' } });
}
