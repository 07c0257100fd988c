/**
 * How each platform's answers are read: one table per platform (core/platforms/<p>/responses.ts)
 * and one classifier (core/platforms/responses.ts). Table-driven: an answer, the outcome each
 * platform's driver gives it.
 */
import assert from 'node:assert/strict';
import type { DriverContext, InboundResponse, Outcome } from '../../../core/platforms/driver.ts';
import { PLATFORMS } from '../../../core/platforms/platforms.ts';
import { classify } from '../../../core/platforms/responses.ts';
import type { Destination, DestinationType } from '../../../schemas/settings.ts';

const ctx = (type: DestinationType, testMode = false): DriverContext => ({
  destination: { id: type, type, ...(testMode ? { test_mode: true } : {}) } as Destination,
  secrets: {},
  now: new Date('2025-01-01T00:00:00Z'),
});

const answer = (status: number, body: unknown = ''): InboundResponse => ({
  kind: 'response',
  status,
  headers: {},
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

interface Case {
  readonly name: string;
  readonly type: DestinationType;
  readonly response: InboundResponse;
  readonly testMode?: boolean;
  readonly outcome: Outcome;
}

const NETWORK: InboundResponse = { kind: 'network_error', message: 'ECONNREFUSED' };

const CASES: readonly Case[] = [
  // Meta: its `error` decides on any status.
  {
    name: 'Meta: a 2xx counts the events Meta received',
    type: 'meta_capi',
    response: answer(200, { events_received: 3 }),
    outcome: { status: 'delivered', httpStatus: 200, detail: 'events_received=3' },
  },
  {
    name: 'Meta: a 2xx without a count is delivered without a detail',
    type: 'meta_capi',
    response: answer(200, 'ok'),
    outcome: { status: 'delivered', httpStatus: 200 },
  },
  {
    name: 'Meta: a throttling code is retried even on a 400',
    type: 'meta_capi',
    response: answer(400, { error: { code: 17, message: 'User request limit reached' } }),
    outcome: { status: 'retry', reason: 'meta error 17: User request limit reached', httpStatus: 400 },
  },
  {
    name: "Meta: any other code is refused, with the subcode and the user's message",
    type: 'meta_capi',
    response: answer(400, {
      error: { code: 100, error_subcode: 2804003, message: 'm', error_user_msg: 'too old' },
    }),
    outcome: { status: 'rejected', reason: 'meta error 100/2804003: too old', httpStatus: 400 },
  },
  {
    name: 'Meta: a code on a 5xx is retried',
    type: 'meta_capi',
    response: answer(500, { error: { code: 100, message: 'x' } }),
    outcome: { status: 'retry', reason: 'meta error 100: x', httpStatus: 500 },
  },
  {
    name: 'Meta: a 404 without a code is refused, its body in one line',
    type: 'meta_capi',
    response: answer(404, '<html> not  found </html>'),
    outcome: { status: 'rejected', reason: 'HTTP 404: <html> not found </html>', httpStatus: 404 },
  },
  {
    name: 'Meta: a network error is retried',
    type: 'meta_capi',
    response: NETWORK,
    outcome: { status: 'retry', reason: 'network error: ECONNREFUSED' },
  },
  // TikTok: its `code` on a 2xx decides.
  {
    name: 'TikTok: code 0 is delivered',
    type: 'tiktok_events',
    response: answer(200, { code: 0, message: 'OK' }),
    outcome: { status: 'delivered', httpStatus: 200 },
  },
  {
    name: 'TikTok: a non-zero code is refused',
    type: 'tiktok_events',
    response: answer(200, { code: 40001, message: 'bad token' }),
    outcome: { status: 'rejected', reason: 'tiktok code 40001: bad token', httpStatus: 200 },
  },
  {
    name: 'TikTok: rate limiting and server-side codes are retried',
    type: 'tiktok_events',
    response: answer(200, { code: 50002 }),
    outcome: { status: 'retry', reason: 'tiktok code 50002: no message', httpStatus: 200 },
  },
  {
    name: 'TikTok: a 2xx without a code is refused',
    type: 'tiktok_events',
    response: answer(200, 'fine'),
    outcome: { status: 'rejected', reason: 'HTTP 200 without a TikTok code: fine', httpStatus: 200 },
  },
  {
    name: 'TikTok: a 429 is retried whatever its body says',
    type: 'tiktok_events',
    response: answer(429, { code: 40001 }),
    outcome: { status: 'retry', reason: 'HTTP 429: {"code":40001}', httpStatus: 429 },
  },
  // GA4: only the validation server refuses.
  {
    name: 'GA4: a live 2xx is delivered',
    type: 'ga4_mp',
    response: answer(204),
    outcome: { status: 'delivered', httpStatus: 204 },
  },
  {
    name: "GA4: in test mode the validation server's messages refuse the event",
    type: 'ga4_mp',
    testMode: true,
    response: answer(200, {
      validationMessages: [{ fieldPath: 'events', description: 'bad', validationCode: 'VALUE_INVALID' }],
    }),
    outcome: { status: 'rejected', reason: 'ga4 validation: VALUE_INVALID events: bad', httpStatus: 200 },
  },
  {
    name: 'GA4: in test mode no message is a validated delivery',
    type: 'ga4_mp',
    testMode: true,
    response: answer(200, { validationMessages: [] }),
    outcome: {
      status: 'delivered',
      httpStatus: 200,
      detail: 'validated by /debug/mp/collect (not recorded by GA4)',
    },
  },
  {
    name: 'GA4: a 503 is retried',
    type: 'ga4_mp',
    response: answer(503, 'busy'),
    outcome: { status: 'retry', reason: 'HTTP 503: busy', httpStatus: 503 },
  },
  // Webhooks: statuses only.
  {
    name: 'webhook: 408 and 425 are retried too',
    type: 'webhook',
    response: answer(425),
    outcome: { status: 'retry', reason: 'HTTP 425', httpStatus: 425 },
  },
  {
    name: 'webhook: a redirect is refused (a signed body must not go elsewhere)',
    type: 'webhook',
    response: answer(302, ' moved '),
    outcome: { status: 'rejected', reason: 'HTTP 302: moved', httpStatus: 302 },
  },
  {
    name: 'webhook: a network error is retried with its own message',
    type: 'webhook',
    response: NETWORK,
    outcome: { status: 'retry', reason: 'ECONNREFUSED' },
  },
  // Google Ads (Data Manager): Google's error envelope decides on any status.
  {
    name: 'Google Ads: a 2xx is delivered with the requestId that names its diagnostics',
    type: 'google_ads',
    response: answer(200, { requestId: 'req-1' }),
    outcome: { status: 'delivered', httpStatus: 200, detail: 'requestId=req-1' },
  },
  {
    name: 'Google Ads: in test mode a 2xx was validated only',
    type: 'google_ads',
    testMode: true,
    response: answer(200, {}),
    outcome: {
      status: 'delivered',
      httpStatus: 200,
      detail: 'validateOnly: Google checked the request and kept nothing',
    },
  },
  {
    name: 'Google Ads: INVALID_ARGUMENT is refused, naming the field Google names',
    type: 'google_ads',
    response: answer(400, {
      error: {
        code: 400,
        message: 'Request contains an invalid argument.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'events[0].currency', description: 'Invalid currency code.' }],
          },
        ],
      },
    }),
    outcome: {
      status: 'rejected',
      reason:
        'google ads INVALID_ARGUMENT (400): Request contains an invalid argument. (events[0].currency: Invalid currency code.)',
      httpStatus: 400,
    },
  },
  {
    name: 'Google Ads: PERMISSION_DENIED (no link to the account) is refused with its ErrorInfo reason',
    type: 'google_ads',
    response: answer(403, {
      error: {
        code: 403,
        message: 'The caller does not have permission',
        status: 'PERMISSION_DENIED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'PERMISSION_DENIED' }],
      },
    }),
    outcome: {
      status: 'rejected',
      reason:
        'google ads PERMISSION_DENIED (403): The caller does not have permission (reason PERMISSION_DENIED)',
      httpStatus: 403,
    },
  },
  {
    name: 'Google Ads: RESOURCE_EXHAUSTED (quota) is retried',
    type: 'google_ads',
    response: answer(429, { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }),
    outcome: {
      status: 'retry',
      reason: 'google ads RESOURCE_EXHAUSTED (429): Quota exceeded',
      httpStatus: 429,
    },
  },
  {
    name: 'Google Ads: UNAVAILABLE is retried',
    type: 'google_ads',
    response: answer(503, {
      error: { code: 503, message: 'The service is unavailable', status: 'UNAVAILABLE' },
    }),
    outcome: {
      status: 'retry',
      reason: 'google ads UNAVAILABLE (503): The service is unavailable',
      httpStatus: 503,
    },
  },
  {
    name: 'Google Ads: a retryable status is retried whatever HTTP status carries it',
    type: 'google_ads',
    response: answer(400, { error: { code: 409, message: 'aborted', status: 'ABORTED' } }),
    outcome: { status: 'retry', reason: 'google ads ABORTED (409): aborted', httpStatus: 400 },
  },
  {
    name: "Google Ads: a 429 without Google's envelope is retried",
    type: 'google_ads',
    response: answer(429, 'slow down'),
    outcome: { status: 'retry', reason: 'HTTP 429: slow down', httpStatus: 429 },
  },
];

describe('platform answers: one table per platform, one classifier', () => {
  for (const c of CASES)
    it(c.name, () => {
      const p = PLATFORMS[c.type];
      const context = ctx(c.type, c.testMode);
      assert.deepEqual(p.driver.interpret(c.response, context), c.outcome);
      // The driver reads answers by its platform's table, not by code of its own.
      assert.deepEqual(classify(p.responses, c.response, context), c.outcome);
    });
});
