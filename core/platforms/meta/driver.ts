/**
 * Meta Conversions API driver (docs/platforms.md §1): `POST {base}/{version}/{pixel_id}/events`
 * with `access_token` in the query, a JSON body `{data, test_event_code?}`; up to 1000 events.
 */
import type { StoredEvent } from '../../event.ts';
import { applyMetaConsent } from '../consent-signals.ts';
import type { Driver, DriverContext, OutboundRequest } from '../driver.ts';
import {
  type BuiltEvent,
  baseUrl,
  buildChecked,
  configProblem,
  configText,
  httpOutcome,
  multiEventPrepare,
  parseJson,
  snippet,
} from '../prepare.ts';
import { META_RULES } from './rules.ts';
import { checkMetaEvent, META_MAX_EVENTS, trimMetaEvent, trimMetaValue } from './target.ts';

export const META_BASE_URL = 'https://graph.facebook.com';
export const META_API_VERSION = 'v25.0';
/** Graph API throttling codes (rate limits per app, user, ad account, CAPI). */
const THROTTLED = new Set([4, 17, 32, 613, 80003, 80004]);
/** Transient Graph API errors (unknown error, service unavailable). */
const TRANSIENT = new Set([1, 2]);

/** Maps and checks one event into a Meta server event. */
function build(event: StoredEvent, ctx: DriverContext): BuiltEvent {
  return buildChecked(
    event,
    ctx,
    (mapped) => {
      const serverEvent: Record<string, unknown> = {
        event_name: mapped.event,
        ...mapped.payload,
        action_source: mapped.payload['action_source'] ?? actionSource(event, ctx),
      };
      applyMetaConsent(serverEvent, ctx.destination, event);
      return serverEvent;
    },
    (serverEvent) => checkMetaEvent(serverEvent, ctx.now),
    (serverEvent) =>
      [trimMetaEvent(serverEvent), trimMetaValue(serverEvent)].filter(Boolean).join('; ') || undefined,
  );
}

/**
 * Where the conversion happened, when the event does not say: the destination's `action_source`,
 * but `website` (also the default) only for an event that has a page — a backend event without
 * one (an order confirmed by the shop system) did not happen on a page we can name, so it is `other`.
 */
function actionSource(event: StoredEvent, ctx: DriverContext): string {
  const configured = configText(ctx.destination, 'action_source') ?? 'website';
  if (configured !== 'website') return configured;
  return event.page?.['url'] ? 'website' : 'other';
}

function request(events: readonly Record<string, unknown>[], ctx: DriverContext): OutboundRequest {
  const d = ctx.destination;
  const version = configText(d, 'api_version') ?? META_API_VERSION;
  const path = `${baseUrl(d, META_BASE_URL)}/${version}/${encodeURIComponent(configText(d, 'pixel_id') ?? '')}/events`;
  const body: Record<string, unknown> = { data: events };
  if (d.test_mode === true && d.test_event_code) body['test_event_code'] = d.test_event_code;
  return {
    method: 'POST',
    url: `${path}?access_token=${encodeURIComponent(ctx.secrets['access_token'] ?? '')}`,
    redactedUrl: `${path}?access_token=REDACTED`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

const NEEDS = META_RULES.requirements;
const problem = (ctx: DriverContext) => configProblem(ctx, NEEDS);

/** The Meta CAPI driver: one event per `prepare`, up to 1000 per request with `prepareBatch`. */
export const metaCapiDriver: Driver = {
  type: 'meta_capi',
  requiredSecrets: NEEDS.secrets,

  ...multiEventPrepare({ problem, build, request, maxEvents: META_MAX_EVENTS }),

  interpret(response) {
    const body = response.kind === 'response' ? parseJson(response.body) : undefined;
    const error = (
      body as
        | { error?: { code?: number; error_subcode?: number; message?: string; error_user_msg?: string } }
        | undefined
    )?.error;
    if (response.kind === 'response' && error !== undefined) {
      const code = error.code ?? 0;
      const reason = `meta error ${code}${error.error_subcode ? `/${error.error_subcode}` : ''}: ${error.error_user_msg ?? error.message ?? 'no message'}`;
      const httpStatus = response.status;
      if (THROTTLED.has(code) || TRANSIENT.has(code)) return { status: 'retry', reason, httpStatus };
      // 100/2804003 (too old), 100/33 (pixel), 190 (token) and every other error: sending again will not help.
      if (response.status < 500) return { status: 'rejected', reason, httpStatus };
      return { status: 'retry', reason, httpStatus };
    }
    const transport = httpOutcome(response);
    if (transport) return transport;
    if (response.kind === 'network_error') return { status: 'retry', reason: response.message };
    if (response.status >= 200 && response.status < 300) {
      const received = (body as { events_received?: number } | undefined)?.events_received;
      return {
        status: 'delivered',
        httpStatus: response.status,
        ...(received !== undefined ? { detail: `events_received=${received}` } : {}),
      };
    }
    return {
      status: 'rejected',
      reason: `HTTP ${response.status}: ${snippet(response.body)}`,
      httpStatus: response.status,
    };
  },
};
