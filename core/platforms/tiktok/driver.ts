/**
 * TikTok Events API 2.0 driver (docs/platforms.md §3): `POST {base}/open_api/v1.3/event/track/`
 * with an `Access-Token` header; up to 1000 events; HTTP 200 with a non-zero `code` is an error.
 */
import type { StoredEvent } from '../../event.ts';
import { applyTikTokConsent } from '../consent-signals.ts';
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
import { TIKTOK_RULES } from './rules.ts';
import { checkTikTokEvent, TIKTOK_MAX_EVENTS, trimTikTokEvent } from './target.ts';

export const TIKTOK_BASE_URL = 'https://business-api.tiktok.com';
const PATH = '/open_api/v1.3/event/track/';
/** Rate limited; TikTok's 5xxxx codes are server-side errors. */
const RETRY_CODES = new Set([40100]);

function build(event: StoredEvent, ctx: DriverContext): BuiltEvent {
  return buildChecked(
    event,
    ctx,
    (mapped) => {
      const row: Record<string, unknown> = { event: mapped.event, ...mapped.payload };
      applyTikTokConsent(row, ctx.destination, event);
      return row;
    },
    (row) => checkTikTokEvent(row),
    trimTikTokEvent,
  );
}

function request(rows: readonly Record<string, unknown>[], ctx: DriverContext): OutboundRequest {
  const d = ctx.destination;
  const body: Record<string, unknown> = {
    event_source: configText(d, 'event_source') ?? 'web',
    event_source_id: configText(d, 'pixel_code'),
  };
  if (d.test_mode === true && d.test_event_code) body['test_event_code'] = d.test_event_code;
  body['data'] = rows;
  const url = `${baseUrl(d, TIKTOK_BASE_URL)}${PATH}`;
  return {
    method: 'POST',
    url,
    redactedUrl: url,
    headers: { 'content-type': 'application/json', 'access-token': ctx.secrets['access_token'] ?? '' },
    body: JSON.stringify(body),
  };
}

const NEEDS = TIKTOK_RULES.requirements;
const problem = (ctx: DriverContext) => configProblem(ctx, NEEDS);

/** The TikTok Events API driver. */
export const tiktokEventsDriver: Driver = {
  type: 'tiktok_events',
  requiredSecrets: NEEDS.secrets,

  ...multiEventPrepare({ problem, build, request, maxEvents: TIKTOK_MAX_EVENTS }),

  interpret(response) {
    const transport = httpOutcome(response);
    if (transport) return transport;
    if (response.kind === 'network_error') return { status: 'retry', reason: response.message };
    const httpStatus = response.status;
    const parsed = parseJson(response.body) as { code?: number; message?: string } | undefined;
    if (httpStatus >= 200 && httpStatus < 300 && typeof parsed?.code === 'number') {
      if (parsed.code === 0) return { status: 'delivered', httpStatus };
      const reason = `tiktok code ${parsed.code}: ${parsed.message ?? 'no message'}`;
      if (RETRY_CODES.has(parsed.code) || parsed.code >= 50000)
        return { status: 'retry', reason, httpStatus };
      return { status: 'rejected', reason, httpStatus };
    }
    return {
      status: 'rejected',
      reason: `HTTP ${httpStatus} without a TikTok code: ${snippet(response.body)}`,
      httpStatus,
    };
  },
};
