/**
 * What each platform's table keeps of its answer for the ledger (core/platforms/platform-answer.ts):
 * the platform's id for the request, its count, an allow-listed excerpt; and the bounding and
 * scrubbing every excerpt goes through.
 */
import assert from 'node:assert/strict';
import type { DriverContext, InboundResponse } from '../../../core/platforms/driver.ts';
import { GA4_RESPONSES } from '../../../core/platforms/ga4/responses.ts';
import { GOOGLE_ADS_RESPONSES } from '../../../core/platforms/google-ads/responses.ts';
import { LINKEDIN_RESPONSES } from '../../../core/platforms/linkedin/responses.ts';
import { META_RESPONSES } from '../../../core/platforms/meta/responses.ts';
import { MICROSOFT_RESPONSES } from '../../../core/platforms/microsoft/responses.ts';
import { PINTEREST_RESPONSES } from '../../../core/platforms/pinterest/responses.ts';
import { answerColumns, MAX_EXCERPT_CHARS, scrubText } from '../../../core/platforms/platform-answer.ts';
import { REDDIT_RESPONSES } from '../../../core/platforms/reddit/responses.ts';
import { type ResponseTable, readAnswer } from '../../../core/platforms/responses.ts';
import { SNAPCHAT_RESPONSES } from '../../../core/platforms/snapchat/responses.ts';
import { TIKTOK_RESPONSES } from '../../../core/platforms/tiktok/responses.ts';
import { WEBHOOK_RESPONSES } from '../../../core/platforms/webhook/responses.ts';
import { X_RESPONSES } from '../../../core/platforms/x/responses.ts';

const ctx = (secrets: Record<string, string> = {}): DriverContext => ({
  destination: { id: 'd', type: 'webhook', config: {} },
  secrets,
  now: new Date('2026-03-01T12:00:00Z'),
});
const answer = (status: number, body: unknown): InboundResponse => ({
  kind: 'response',
  status,
  headers: {},
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('platform answers in the ledger: what each table keeps', () => {
  const HASH = 'a'.repeat(64);
  const cases: {
    name: string;
    table: ResponseTable;
    status: number;
    body: unknown;
    ref: string | null;
    received: number | null;
    excerpt: unknown;
  }[] = [
    {
      name: 'Meta: events_received, messages, fbtrace_id',
      table: META_RESPONSES,
      status: 200,
      body: { events_received: 2, messages: ['ok'], fbtrace_id: 'AbC123' },
      ref: 'AbC123',
      received: 2,
      excerpt: { events_received: 2, messages: ['ok'] },
    },
    {
      name: 'GA4 debug endpoint: validation messages',
      table: GA4_RESPONSES,
      status: 200,
      body: {
        validationMessages: [{ fieldPath: 'events', description: 'bad', validationCode: 'VALUE_INVALID' }],
      },
      ref: null,
      received: null,
      excerpt: {
        validationMessages: [{ fieldPath: 'events', description: 'bad', validationCode: 'VALUE_INVALID' }],
      },
    },
    {
      name: 'GA4 /mp/collect: an empty answer says nothing',
      table: GA4_RESPONSES,
      status: 204,
      body: '',
      ref: null,
      received: null,
      excerpt: null,
    },
    {
      name: 'Google Ads: the requestId',
      table: GOOGLE_ADS_RESPONSES,
      status: 200,
      body: { requestId: 'req-1' },
      ref: 'req-1',
      received: null,
      excerpt: null,
    },
    {
      name: 'Google Ads: an error with the fields it names',
      table: GOOGLE_ADS_RESPONSES,
      status: 400,
      body: {
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: 'Request contains an invalid argument.',
          details: [{ fieldViolations: [{ field: 'events[0].userData', description: `bad ${HASH}` }] }],
        },
      },
      ref: null,
      received: null,
      excerpt: {
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: 'Request contains an invalid argument.',
          violations: [{ field: 'events[0].userData', description: 'bad [hash]' }],
        },
      },
    },
    {
      name: 'TikTok: code, message, request_id (not data)',
      table: TIKTOK_RESPONSES,
      status: 200,
      body: { code: 40002, message: 'bad', request_id: 'r-9', data: { email: HASH } },
      ref: 'r-9',
      received: null,
      excerpt: { code: 40002, message: 'bad' },
    },
    {
      name: 'Microsoft: traceId and eventsReceived',
      table: MICROSOFT_RESPONSES,
      status: 200,
      body: { eventsReceived: 1, traceId: 't-1' },
      ref: 't-1',
      received: 1,
      excerpt: { eventsReceived: 1 },
    },
    {
      name: 'Pinterest: counts and each event’s status',
      table: PINTEREST_RESPONSES,
      status: 200,
      body: {
        num_events_received: 2,
        num_events_processed: 1,
        events: [{ status: 'processed' }, { status: 'failed', error_message: 'x' }],
      },
      ref: null,
      received: 2,
      excerpt: {
        num_events_received: 2,
        num_events_processed: 1,
        events: [{ status: 'processed' }, { status: 'failed', error_message: 'x' }],
      },
    },
    {
      name: 'LinkedIn: a refusal’s codes',
      table: LINKEDIN_RESPONSES,
      status: 422,
      body: { status: 422, code: 'UNPROCESSABLE_ENTITY', message: 'bad urn' },
      ref: null,
      received: null,
      excerpt: { error: { status: 422, code: 'UNPROCESSABLE_ENTITY', message: 'bad urn' } },
    },
    {
      name: 'Reddit: a refusal’s message',
      table: REDDIT_RESPONSES,
      status: 400,
      body: { message: 'invalid action_source: web' },
      ref: null,
      received: null,
      excerpt: { message: 'invalid action_source: web' },
    },
    {
      name: 'Snapchat: status, reason, param',
      table: SNAPCHAT_RESPONSES,
      status: 400,
      body: { status: 'INVALID', reason: 'hashed', param: 'em', request_id: 'x' },
      ref: null,
      received: null,
      excerpt: { status: 'INVALID', reason: 'hashed', param: 'em' },
    },
    {
      name: 'X: conversions_processed',
      table: X_RESPONSES,
      status: 200,
      body: { data: { conversions_processed: 3 }, request: { params: { account_id: 'a' } } },
      ref: null,
      received: 3,
      excerpt: { conversions_processed: 3 },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const got = readAnswer(c.table, answer(c.status, c.body), ctx());
      assert.deepEqual(
        [
          got?.platform_ref ?? null,
          got?.platform_events_received ?? null,
          JSON.parse(got?.platform_response ?? 'null'),
        ],
        [c.ref, c.received, c.excerpt],
      );
    });

  it('a webhook receiver’s body is never kept, nor a network error', () => {
    assert.equal(readAnswer(WEBHOOK_RESPONSES, answer(200, { email: 'a@b.co' }), ctx()), undefined);
    assert.equal(readAnswer(META_RESPONSES, { kind: 'network_error', message: 'timeout' }, ctx()), undefined);
  });
});

describe('platform answers in the ledger: bounded and scrubbed', () => {
  it('replaces hashes, e-mails, phones and tokens by their kind, and the request’s secrets', () => {
    const hash = 'f'.repeat(64);
    const text = `em ${hash} for jane@example.com, +447946000000, token EAAB123abc and ya29.xyz, key sk-live-123456`;
    assert.equal(
      scrubText(text, ['sk-live-123456']),
      'em [hash] for [email], [phone], token [token] and [token], key [secret]',
    );
  });

  it('replaces a phone number written with spaces or brackets, and leaves short numbers and offsets', () => {
    assert.equal(
      scrubText('call +33 6 12 34 56 78 or +1 (415) 555-2671; at 10:00+01:00, +5 items'),
      'call [phone] or [phone]; at 10:00+01:00, +5 items',
    );
  });

  it('keeps the excerpt under 1 KB, leaving out the fields that would not fit', () => {
    const cols = answerColumns({
      ref: 'r',
      excerpt: { code: 1, messages: Array.from({ length: 50 }, () => 'm'.repeat(400)), after: 'kept' },
    });
    assert.ok((cols.platform_response ?? '').length <= MAX_EXCERPT_CHARS);
    assert.deepEqual(Object.keys(JSON.parse(cols.platform_response ?? '{}')), ['code', 'after']);
  });

  it('refuses a ref that is an identifier or a secret', () => {
    assert.equal(answerColumns({ ref: 'b'.repeat(64) }).platform_ref, null);
    assert.equal(answerColumns({ ref: 'tok-123456' }, ['tok-123456']).platform_ref, null);
    assert.equal(
      answerColumns({ ref: '5f0c8c1e-2f7a-4c3b-9a51-1d2e3f4a5b6c' }).platform_ref,
      '5f0c8c1e-2f7a-4c3b-9a51-1d2e3f4a5b6c',
    );
  });
});
