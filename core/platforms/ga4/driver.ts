/**
 * GA4 Measurement Protocol driver (docs/platforms.md §2): `POST {base}/mp/collect?measurement_id&api_secret`,
 * or `/debug/mp/collect` in test mode, whose `validationMessages` decide the outcome. One event
 * per request: events of different people cannot share a request's client_id.
 */
import type { StoredEvent } from '../../event.ts';
import { applyGa4Consent } from '../consent-signals.ts';
import type { Driver, DriverContext, Prepared } from '../driver.ts';
import {
  baseUrl,
  configProblem,
  configText,
  httpOutcome,
  mapForDestination,
  parseJson,
  snippet,
} from '../prepare.ts';
import { formatViolations } from '../target-common.ts';
import { GA4_RULES } from './rules.ts';
import { checkGa4Request, trimGa4Request } from './target.ts';

export const GA4_BASE_URL = 'https://www.google-analytics.com';

interface ValidationMessage {
  fieldPath?: string;
  description?: string;
  validationCode?: string;
}

const NEEDS = GA4_RULES.requirements;

/** The GA4 MP driver. */
export const ga4MpDriver: Driver = {
  type: 'ga4_mp',
  requiredSecrets: NEEDS.secrets,

  prepare(event: StoredEvent, ctx: DriverContext): Prepared {
    const d = ctx.destination;
    const p = configProblem(ctx, NEEDS);
    if (p) return { ok: false, reason: p };
    const m = mapForDestination(d, event);
    if (!m.ok) return m;
    const { params, ...requestFields } = m.mapped.payload;
    const body: Record<string, unknown> = {
      ...requestFields,
      events: [{ name: m.mapped.event, params: params ?? {} }],
    };
    // In test mode the validation server also reports missing recommended parameters.
    if (d.test_mode === true && body['validation_behavior'] === undefined)
      body['validation_behavior'] = 'ENFORCE_RECOMMENDATIONS';
    const dropped =
      [applyGa4Consent(body, event), trimGa4Request(body, ctx.now)].filter(Boolean).join('; ') || undefined;
    const violations = checkGa4Request(body, ctx.now);
    if (violations.length > 0)
      return { ok: false, reason: formatViolations('ga4_mp payload refused', violations) };
    const path = `${baseUrl(d, GA4_BASE_URL)}${d.test_mode === true ? '/debug/mp/collect' : '/mp/collect'}`;
    const measurement = encodeURIComponent(configText(d, 'measurement_id') ?? '');
    return {
      ok: true,
      request: {
        method: 'POST',
        url: `${path}?measurement_id=${measurement}&api_secret=${encodeURIComponent(ctx.secrets['api_secret'] ?? '')}`,
        redactedUrl: `${path}?measurement_id=${measurement}&api_secret=REDACTED`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      ...(dropped ? { dropped } : {}),
    };
  },

  interpret(response, ctx) {
    const transport = httpOutcome(response);
    if (transport) return transport;
    if (response.kind === 'network_error') return { status: 'retry', reason: response.message };
    const httpStatus = response.status;
    if (httpStatus < 200 || httpStatus >= 300)
      return { status: 'rejected', reason: `HTTP ${httpStatus}: ${snippet(response.body)}`, httpStatus };
    if (ctx.destination.test_mode === true) {
      // The validation server is the only place GA4 says what is wrong (/mp/collect is always 2xx).
      const parsed = parseJson(response.body) as { validationMessages?: ValidationMessage[] } | undefined;
      const messages = parsed?.validationMessages ?? [];
      if (messages.length > 0) {
        const reason = messages
          .map((m) => `${m.validationCode ?? 'INVALID'} ${m.fieldPath ?? ''}: ${m.description ?? ''}`.trim())
          .join('; ');
        return { status: 'rejected', reason: `ga4 validation: ${reason}`, httpStatus };
      }
      return {
        status: 'delivered',
        httpStatus,
        detail: 'validated by /debug/mp/collect (not recorded by GA4)',
      };
    }
    return { status: 'delivered', httpStatus };
  },
};
